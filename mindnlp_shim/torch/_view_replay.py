"""An in-place write that torch turns into a `CopySlices` on the base: a write through a view of a tensor in the
autograd graph, a write into such a tensor while views of it are alive, and a value that requires grad written
through a view of a tensor outside the graph.

MindSpore's tape has no view replay (a view's node stays the one it was made with), so the write is recorded
as an op on the base instead: the base's new value is computed out of place on the tape (its old elements
where the write does not reach, the written values where it does: a `where` over a gather), the base takes
that node, and every live view of the base takes a node re-derived from it (a gather of the base's new value
at the view's elements, as torch's as_strided replay does). Nodes move with MindSpore's `assign_value_cpp`
(which takes the other tensor's node and data) followed by `_update_data` back to the tensor's own memory, so
every tensor keeps its identity and its aliasing; the values are then written into the shared memory once,
which counts one write as torch's version counter does. Only this rare path pays for the gathers; plain
writes never reach it.
"""
import mindspore
import numpy as np
from mindspore import ops

from . import _autograd_views, _memory
from ._runtime import ON_CPU
from .. import _mindspore as _ms

_update_data = _ms.update_data


def _elements_in(root, root_positions, view):
    """For each element of `view` (C order), the index of the element of `root` (C order) at its address."""
    itemsize = _memory.layout(root.dtype)[1]
    wanted = _memory.positions(tuple(view._shape), tuple(_ms.stride(view)), (view.data_ptr() - root.data_ptr()) // itemsize)
    if root_positions is None:  # a contiguous root: the address is the index
        if wanted.size and (wanted.min() < 0 or wanted.max() >= int(np.prod(root._shape, dtype=np.int64))):
            _outside()
        return wanted.reshape(view._shape)
    order = np.argsort(root_positions, kind="stable")
    found = np.clip(np.searchsorted(root_positions, wanted, sorter=order), 0, root_positions.size - 1)
    element = order[found]
    if not (root_positions[element] == wanted).all():
        _outside()
    return element.reshape(view._shape)


def _outside():
    raise NotImplementedError("an in-place write inside autograd into a view that reaches memory outside its base's "
                              "elements (or into its base while such a view is alive) is not supported by "
                              "mindnlp-shim: the write cannot be replayed there")


def _take_node(tensor, source):
    """`tensor` gets `source`'s autograd node and keeps its own memory, identity and geometry."""
    own = ops.stop_gradient(tensor)  # the same memory, off the tape
    tensor.assign_value_cpp(source)
    _update_data(tensor, own)


def _computable(tensor):
    # (no bfloat16 Select/Gather kernels on the CPU: the casts are exact)
    return tensor.astype(mindspore.float32) if tensor.dtype == mindspore.bfloat16 else tensor


def write(target, root, value, views):
    """Write `value` (`target`'s shape and dtype, contiguous) into `target`, which is `root` or a view of it,
    with torch's gradients: `root` and each tensor of `views` (live views of `root`) take nodes from the write."""
    if not ON_CPU:
        raise NotImplementedError("an in-place write into a view of a tensor inside autograd (or into such a tensor "
                                  "while views of it are alive) is supported by mindnlp-shim on the CPU target only")
    if 0 in target._shape:
        return
    contiguous = root.is_contiguous()
    root_positions = None if contiguous else _memory.positions(tuple(root._shape), tuple(_ms.stride(root)), 0)
    shape = root._shape
    numel = int(np.prod(shape, dtype=np.int64))
    written = _elements_in(root, root_positions, target).reshape(-1)
    covered = np.zeros(numel, dtype=bool)
    covered[written] = True
    source = np.zeros(numel, dtype=np.int64)
    source[written] = np.arange(written.size, dtype=np.int64)

    # every node below is a fresh tensor of its final shape (no reshape view), read before the memory changes
    values = ops.reshape(_computable(value), (-1,))
    new_root = ops.where(mindspore.Tensor(covered.reshape(shape)),
                         ops.gather(values, mindspore.Tensor(source.reshape(shape)), 0), _computable(root))
    new_flat = ops.reshape(new_root, (-1,))
    nodes = [(root, new_root)]
    seen = {id(root)}
    for view in views:
        if id(view) in seen or 0 in view._shape:
            continue
        seen.add(id(view))
        index = _elements_in(root, root_positions, view)
        nodes.append((view, ops.gather(new_flat, mindspore.Tensor(index), 0)))
    # (counted as one write; the views take their nodes below, not from `_autograd_views.refresh`)
    np.copyto(_memory.host_view(target), _memory.host_view(value), casting="unsafe")
    _memory.count_writes([target])
    tensors = [tensor for tensor, _ in nodes]
    counts = [_ms.write_count(tensor) for tensor in tensors]
    for tensor, node in nodes:
        _take_node(tensor, node if node.dtype == tensor.dtype else node.astype(tensor.dtype))
    # each tensor took its node's write counter: it gets back the count its memory has, and later replays raise
    # the counters of all of them, as torch's one counter shared by a base and its views would be raised
    _ms.set_write_counts(tensors, counts)
    for tensor, node in nodes:
        if tensor is not root and getattr(tensor, _autograd_views.ROOT, None) is not root:
            _autograd_views.register(root, tensor)  # (a view of a root outside the graph so far)
