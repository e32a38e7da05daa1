"""Matrix products with an empty operand, answered without MindSpore's MatMul kernels.

MindSpore's CPU MatMul/BatchMatMul leave the output uninitialized when the contracted dimension is empty, and
their gradients contract over the empty dimension too (the weight gradient of a linear layer on an empty batch,
for one). torch's answer is exactly known in every such case: a product with an empty operand is zeros of the
product's shape (empty if the shape is), and so is each operand's gradient. `empty_product` gives that answer
as one autograd Function, so the result keeps its place in the graph."""
import numpy as np

from ..autograd.function import Function
from ... import _mindspore as _ms


def has_empty(a, b):
    return 0 in a._shape or 0 in b._shape


def product_shape(a_shape, b_shape, name="matmul"):
    """The shape of matmul(a, b) under torch's rules (1-D operands, broadcast batch dimensions); bmm and
    baddbmm take 3-D operands with equal batch sizes."""
    if name in ("bmm", "baddbmm") and (len(a_shape) != 3 or len(b_shape) != 3 or a_shape[0] != b_shape[0]):
        raise RuntimeError(f"{name}: expected 3-D tensors with equal batch sizes, got shapes {list(a_shape)} and "
                           f"{list(b_shape)}")
    a2 = (1,) + tuple(a_shape) if len(a_shape) == 1 else tuple(a_shape)
    b2 = tuple(b_shape) + (1,) if len(b_shape) == 1 else tuple(b_shape)
    if not a_shape or not b_shape:
        raise RuntimeError(f"both arguments to {name} need to be at least 1D, but they are {len(a_shape)}D and "
                           f"{len(b_shape)}D")
    if a2[-1] != b2[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a2[-2]}x{a2[-1]} and "
                           f"{b2[-2]}x{b2[-1]})")
    try:
        batch = tuple(np.broadcast_shapes(a2[:-2], b2[:-2]))
    except ValueError:
        raise RuntimeError(f"{name}: batch dimensions {list(a2[:-2])} and {list(b2[:-2])} cannot be "
                           f"broadcast") from None
    rows = () if len(a_shape) == 1 else (a2[-2],)  # a 1-D operand's added dimension is dropped again
    columns = () if len(b_shape) == 1 else (b2[-1],)
    return batch + rows + columns


class _EmptyProduct(Function):
    @staticmethod
    def forward(ctx, a, b, shape):
        ctx.shapes = (tuple(a.shape), a.dtype, tuple(b.shape), b.dtype)
        return _ms.zeros(shape, a.dtype)

    @staticmethod
    def backward(ctx, grad):
        a_shape, a_dtype, b_shape, b_dtype = ctx.shapes
        return _ms.zeros(a_shape, a_dtype), _ms.zeros(b_shape, b_dtype), None


def empty_product(a, b, shape):
    """zeros(shape) as the product of a and b, one of which is empty (gradients: zeros)."""
    return _EmptyProduct.apply(a, b, shape)
