"""A tensor's own memory as a NumPy array, on the CPU target: how in-place writes reach every alias.

MindSpore's view ops (reshape, transpose, expand, slicing, split, diagonal, stop_gradient, ...) give tensors that
share their base's storage with strides and an offset, like torch's. What MindSpore lacks is a write into that
storage: its CPU `copy_`/`__setitem__` on a leaf give the tensor a new storage, so views and arrays taken
before keep the old values. `host_view(t)` is a writable NumPy array over exactly the elements `t` addresses
(its data pointer, shape and strides), so `np.copyto(host_view(t), value)` changes the memory that `t`, its base,
its other views and any NumPy array over it all read.

The array keeps `t` alive (through its `base`), so the memory cannot be freed while the array is in use.
"""
import numpy as np
import mindspore

from . import _dtype
from .. import _mindspore as _ms

_ms_stride = mindspore.Tensor.stride  # MindSpore's own (a list of element strides), captured before the torch binding
# MindSpore's count of in-place writes into a tensor's storage (shared with its views), which its autograd checks
# for the tensors it saved; its own kernels' writes count, NumPy's do not unless counted here
write_count = _ms.write_count
count_writes = _ms.count_writes


class _Buffer:
    """The object behind a host view: NumPy reads the layout from `__array_interface__`; `tensor` keeps the
    memory alive for as long as the array (whose `base` this is) exists."""
    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, interface, tensor):
        self.__array_interface__ = interface
        self.tensor = tensor


_LAYOUTS = {}  # dtype -> (NumPy type string, itemsize, dtype to re-view the items as or None)


def layout(dtype):
    """(NumPy type string, item size, dtype to re-view the items as or None) of a MindSpore dtype."""
    layout = _LAYOUTS.get(dtype)
    if layout is None:
        np_dtype = _dtype.to_numpy_dtype(dtype)
        if np_dtype.name == "bfloat16":  # NumPy's interface has no type string for it: lay out uint16, re-view
            layout = ("<u2", 2, np_dtype)
        else:
            layout = (np_dtype.str, np_dtype.itemsize, None)
        _LAYOUTS[dtype] = layout
    return layout


def host_view(tensor):
    """A writable NumPy array over `tensor`'s elements in its own storage (CPU target only)."""
    typestr, itemsize, reviewed = layout(tensor.dtype)
    shape = tensor._shape  # MindSpore's own tuple
    if 0 in shape:
        return np.empty(shape, reviewed or np.dtype(typestr))  # nothing to alias
    interface = {"data": (tensor.data_ptr(), False), "shape": shape,
                 "strides": tuple(s * itemsize for s in _ms_stride(tensor)), "typestr": typestr, "version": 3}
    array = np.asarray(_Buffer(interface, tensor))
    return array if reviewed is None else array.view(reviewed)


def positions(size, stride, offset):
    """The storage position of each element of a (size, stride, offset) geometry, in C order."""
    if not size:
        return np.array([offset], dtype=np.int64)
    grids = np.indices(size, dtype=np.int64).reshape(len(size), -1)
    return offset + (np.asarray(stride, dtype=np.int64)[:, None] * grids).sum(0)


def span(tensor):
    """`(first, end)`: the addresses of the memory `tensor`'s elements lie in, `end` exclusive ((0, 0) if empty)."""
    shape = tensor._shape
    if 0 in shape:
        return 0, 0
    first = tensor.data_ptr()
    last = sum((n - 1) * st for n, st in zip(shape, _ms_stride(tensor)))  # (strides are never negative here)
    return first, first + (last + 1) * layout(tensor.dtype)[1]


def has_internal_overlap(tensor):
    """Whether two elements of `tensor` share one memory location (an expanded dimension): torch refuses to
    write into such a tensor. An empty tensor has no elements to share."""
    return 0 in _ms_stride(tensor) and 0 not in tensor._shape and \
        any(st == 0 and n > 1 for n, st in zip(tensor._shape, _ms_stride(tensor)))


OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                   "location. Please clone() the tensor before performing the operation.")


def write(tensor, value, check_overlap=True):
    """Write `value` (a NumPy array or scalar of `tensor`'s dtype, broadcastable to its shape) into `tensor`'s
    storage; every alias sees it. Overlap between `value` and `tensor` is safe (NumPy buffers it).
    `check_overlap=False` (the fills torch allows into a tensor whose elements share memory, `value` being the
    filled result): only the elements the fill changed are written, so that an element it left alone cannot
    overwrite, with the old value, one it filled at the same location (torch writes the selected elements only)."""
    if has_internal_overlap(tensor):
        if check_overlap:
            raise RuntimeError(OVERLAP_MESSAGE)
        target = host_view(tensor)
        new = np.broadcast_to(np.asarray(value).astype(target.dtype, casting="unsafe"), target.shape)
        changed = (new != target) & ~((new != new) & (target != target))  # (NaN for NaN is no change)
        np.copyto(target, new, where=changed)
    else:
        np.copyto(host_view(tensor), value, casting="unsafe")
    count_write(tensor)


# on a tensor made by `detach()` (and the views of one): a weak reference to the tensor it was taken from (a tuple of
# them for a detach of a detach). torch's detached tensor shares that tensor's version counter; MindSpore's
# stop_gradient has a counter of its own, so a write through it is counted on the sources too (`count_write`).
# Weak: a detached loss must not keep its graph alive.
DETACHED_FROM = "_detached_from"


def views_written(tensor):
    """Re-derives the autograd nodes of the views of `tensor` after a write outside the graph: replaced by
    `_autograd_views.refresh` when that module loads (it imports this one)."""


def count_write(tensor):
    """Count a write made through a host view as MindSpore counts its own in-place writes, so a backward that
    saved the tensor before the write refuses it (torch's version-counter error) instead of reading the new
    values. Writes through `.data` are not counted, as in torch."""
    if getattr(tensor, "_is_data_alias", False):
        return
    count_writes([tensor])
    written_through(tensor)


def written_through(tensor):
    """After a counted write into `tensor`'s memory: the tensors it was detached from count it too, and the views
    in the graph over that memory keep their gradients (`_autograd_views.refresh`)."""
    count_on_sources(tensor)
    views_written(tensor)


def count_on_sources(tensor):
    """A write into `tensor`, counted on its own counter, is counted on the tensors it was detached from."""
    sources = tensor.__dict__.get(DETACHED_FROM)
    if sources is not None:
        for ref in sources if type(sources) is tuple else (sources,):
            source = ref()
            if source is not None:
                count_writes([source])
                views_written(source)
