"""MindSpore's view kernels (Reshape, Transpose, ExpandDims, NarrowView), called without their Python layer.

`ops.reshape(x, shape)` is three Python calls (the function, the primitive's `__call__`, its `jit_context()`
test) around the C call that does the work; on a decoding step's ~60 views per token that layer is 2-3 µs of the
~12 µs each view costs. The shim runs eagerly only (`torch.compile` runs the model eagerly, docs/graph-capture.md),
so the primitive's graph-capture branch never applies and the C call is the whole op: the same kernel, the
same view over the input's storage, the same autograd record.
"""
from ..._mindspore import view_kernels as _kernels

expand_dims_op, narrow_view_op = _kernels["expand_dims_op"], _kernels["narrow_view_op"]
reshape_op, transpose_op = _kernels["reshape_op"], _kernels["transpose_op"]
pyboost_expand_dims, pyboost_narrow_view = _kernels["pyboost_expand_dims"], _kernels["pyboost_narrow_view"]
pyboost_reshape, pyboost_transpose = _kernels["pyboost_reshape"], _kernels["pyboost_transpose"]


def reshape(input, shape):
    """`ops.reshape(input, shape)`; `shape` a tuple of ints."""
    return pyboost_reshape(reshape_op, [input, shape])


def permute(input, dims):
    """`ops.transpose(input, dims)`; `dims` a tuple of ints, a permutation of the input's dims."""
    return pyboost_transpose(transpose_op, [input, dims])


def expand_dims(input, dim):
    """`ops.expand_dims(input, dim)`; `dim` an int in [0, input.ndim]."""
    return pyboost_expand_dims(expand_dims_op, [input, dim])


def narrow(input, dim, start, length):
    """`mint.narrow(input, dim, start, length)`: a view of one range of one dim; ints, already in range."""
    return pyboost_narrow_view(narrow_view_op, [input, dim, start, length])
