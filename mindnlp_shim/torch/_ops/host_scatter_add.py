"""scatter_add / index_add on the CPU, accumulated by NumPy.

MindSpore 2.10's CPU TensorScatterElements kernel with reduction "add" loses updates when several indices name
the same element: its worker threads add into the output without ordering, and about one call in a thousand
came out short (`zeros(4).scatter_add_(0, index, ones)` with repeated indices while another kernel was queued;
Mixtral's load-balancing loss, which counts tokens per expert that way, changed from run to run). NumPy's
unbuffered `np.add.at` adds every update, in index order, in the input's dtype as torch's CPU kernel does.
Recorded as one Function: the input's gradient is the output's, src's is the output's gradient at `index`.
"""
import numpy as np
import mindspore

from ..autograd.function import Function, first_order_only
from ..autograd.grad_mode import is_grad_enabled

# dtypes NumPy adds as torch does (bfloat16, complex and bool keep MindSpore's kernel)
HOST_DTYPES = (mindspore.float32, mindspore.float64, mindspore.float16, mindspore.int64, mindspore.int32,
               mindspore.int16, mindspore.int8, mindspore.uint8)


def targets(index, dim):
    """Every update's coordinates: index's values along `dim`, index's own position along the other axes."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _added(x, index, src, dim):
    shape = x.shape
    if x.ndim <= 1:  # (torch also takes a 0-d input or index here)
        x, index, src = x.reshape(-1), index.reshape(-1), src.reshape(-1)
    out = np.array(x, copy=True, order="C")
    if index.size:
        with np.errstate(all="ignore"):  # (inf + -inf gives torch's nan, without NumPy's warning)
            np.add.at(out, targets(index, dim), src)
    return out.reshape(shape)


def used(src, index):
    """The part of src that index addresses (torch reads src only where index has elements)."""
    return src[tuple(slice(0, n) for n in index.shape)] if src.shape != index.shape else src


class _ScatterAdd(Function):
    @staticmethod
    def forward(ctx, input, index, src, dim):
        idx = index.asnumpy().astype(np.int64, copy=False)
        ctx.targets = targets(idx.reshape(-1) if input.ndim <= 1 else idx, dim)
        ctx.src_shape, ctx.index_shape = tuple(src.shape), idx.shape
        return mindspore.Tensor.from_numpy(_added(input.asnumpy(), idx, used(src.asnumpy(), idx), dim))

    @staticmethod
    @first_order_only  # computed with NumPy
    def backward(ctx, grad):
        needs_input, _, needs_src = ctx.needs_input_grad[:3]
        grad_src = None
        if needs_src:
            g = grad.asnumpy()
            picked = (g.reshape(-1) if g.ndim <= 1 else g)[ctx.targets].reshape(ctx.index_shape)
            full = np.zeros(ctx.src_shape, g.dtype)  # (src's elements past index's shape get no gradient)
            full[tuple(slice(0, n) for n in ctx.index_shape)] = picked
            grad_src = mindspore.Tensor.from_numpy(full)
        return (grad if needs_input else None), None, grad_src, None


def scatter_add(input, dim, index, src):
    """input with src added at index along dim (src of input's dtype and at least index's shape, index
    int32/int64, every index in range), or None where this path does not apply (a dtype NumPy does not add as
    torch)."""
    if input._dtype not in HOST_DTYPES:
        return None
    if is_grad_enabled() and (input.requires_grad or src.requires_grad):
        return _ScatterAdd.apply(input, index, src, dim)
    idx = index.asnumpy().astype(np.int64, copy=False)
    return mindspore.Tensor.from_numpy(_added(input.asnumpy(), idx, used(src.asnumpy(), idx), dim))
