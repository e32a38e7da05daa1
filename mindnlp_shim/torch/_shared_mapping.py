"""`share_memory_()` where MindSpore cannot move a storage into shared memory together with its views.

MindSpore 2.7.x has no shared-memory storages, and 2.8.0 moves a storage there without its views (docs/
mindspore-releases.md). A tensor that no view reads (`torch.tensor(0).share_memory_()`, as `datasets`' iterable
data sets make one at construction) needs no views moved: its values go into a fresh anonymous shared mapping
(MAP_SHARED, which forked processes such as DataLoader workers share) and the tensor reads that from then on.
"""
import mmap
import weakref

import mindspore
import numpy as np

from . import _autograd_views, _inplace, _memory
from .. import _mindspore as _ms

_mapped = {}  # the first address of each live mapping -> (its end, the mapping)


def is_mapped(tensor):
    """Whether `tensor` reads a storage moved here (it, or a view taken of it after the move)."""
    if not _mapped or 0 in tensor._shape:
        return False
    address = tensor.data_ptr()
    return any(start <= address < end for start, (end, _) in _mapped.items())


def movable(tensor):
    """Whether no other tensor may read `tensor`'s memory: it reads all of its storage, no view of it is alive,
    and no tensor it was taken from is alive but through it."""
    if _autograd_views.live_views(tensor) or _autograd_views.other_untracked_views_alive(tensor, ()):
        return False
    first, end = _memory.span(tensor)
    if tensor.storage_offset() != 0 or _ms.untyped_storage(tensor).nbytes() > end - first:
        return False  # (a part of a larger storage)
    _let_go_of_its_base(tensor)
    return not _autograd_views.live_bases(tensor)


def _let_go_of_its_base(tensor):
    # (2.7.x: a view holds the base its writes are counted on; it is kept only where something else holds it too)
    held = tensor.__dict__.pop(_ms.WRITE_COUNTER_OWNER, None)
    if held is not None:
        ref = weakref.ref(held)
        del held
        if ref() is not None:
            tensor.__dict__[_ms.WRITE_COUNTER_OWNER] = ref()


def move(tensor):
    """`tensor` (contiguous or not, no view reads it) reads a shared mapping holding its values from now on."""
    typestr, itemsize, reviewed = _memory.layout(tensor.dtype)
    if reviewed is not None:
        raise NotImplementedError(f"torch.Tensor.share_memory_ of a {tensor.dtype} tensor is not supported on this "
                                  f"MindSpore release (no shared storages; NumPy has no {tensor.dtype} to map)")
    shape = tuple(tensor._shape)
    count = int(np.prod(shape, dtype=np.int64))
    mapping = mmap.mmap(-1, count * itemsize)
    array = np.frombuffer(mapping, dtype=np.dtype(typestr), count=count).reshape(shape)
    array[...] = _memory.host_view(tensor)
    _inplace.swap_data(tensor, mindspore.Tensor.from_numpy(array))
    address = array.ctypes.data
    _mapped[address] = (address + count * itemsize, mapping)
    weakref.finalize(array, _mapped.pop, address, None)  # (the storage, which holds the array, is gone)
    _autograd_views.forget_bases(tensor)  # (no view any more: its own storage)
