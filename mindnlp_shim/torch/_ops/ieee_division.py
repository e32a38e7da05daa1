"""Division with IEEE's signed zeros, over MindSpore's Div kernel.

MindSpore's CPU Div gives x / -0.0 the sign of x alone (1 / -0.0 = +inf); IEEE's, NumPy's and torch's answer is
-inf. Where a float divisor holds zeros, the quotient there is x * (1 / y) instead (Reciprocal keeps the zero's
sign: 1 / -0.0 = -inf), and the division elsewhere divides by 1 at those places, so that no NaN reaches the
gradients of the unused branch.
"""
from mindspore import ops
from ..._mindspore import TensorPy
from .. import _dtype


def quotient(x, y):
    """ops.div(x, y), with torch's signed infinities where the float tensor y holds zeros."""
    if not (isinstance(y, TensorPy) and y._dtype in _dtype.FLOATING):
        return ops.div(x, y)
    zero = ops.equal(y, 0)
    if not bool(zero.any()):
        return ops.div(x, y)
    return ops.where(zero, ops.mul(x, ops.reciprocal(y)), ops.div(x, ops.where(zero, ops.ones_like(y), y)))
