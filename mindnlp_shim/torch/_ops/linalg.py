"""Matrix products and norms."""
import mindspore
from mindspore import ops

from ._util import reject_out
from .pointwise import add as _add  # (not ops.add: see pointwise.add on gradients reaching leaves)


def matmul(input, other, *, out=None):
    reject_out(out, "matmul")
    return ops.matmul(input, other)


def mm(input, mat2, *, out=None):
    return ops.matmul(input, mat2)


def bmm(input, mat2, *, out=None):
    return ops.bmm(input, mat2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    prod = ops.bmm(batch1, batch2)
    if alpha != 1:
        prod = ops.mul(prod, alpha)
    return prod if beta == 0 else _add(ops.mul(input, beta) if beta != 1 else input, prod)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    prod = ops.matmul(mat1, mat2)
    if alpha != 1:
        prod = ops.mul(prod, alpha)
    return prod if beta == 0 else _add(ops.mul(input, beta) if beta != 1 else input, prod)


def outer(input, vec2):
    return ops.mul(input.reshape(-1, 1), vec2.reshape(1, -1))


def dot(input, other):
    return ops.sum(ops.mul(input, other))


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return ops.einsum(equation, *operands)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    from .reduction import sum as _sum, amax, amin

    if dtype is not None:
        x = x.astype(dtype)
    a = ops.abs(x)
    if ord == float("inf"):
        return amax(a, dim if dim is not None else (), keepdim)
    if ord == float("-inf"):
        return amin(a, dim if dim is not None else (), keepdim)
    if ord == 0:
        return _sum(ops.not_equal(x, 0).astype(x.dtype), dim, keepdim)
    if ord == 1:
        return _sum(a, dim, keepdim)
    if ord == 2:
        return ops.sqrt(_sum(ops.square(a), dim, keepdim))
    return ops.pow(_sum(ops.pow(a, ord), dim, keepdim), 1.0 / ord)


def cross(input, other, dim=None):
    return ops.cross(input, other, -1 if dim is None else dim)


from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)
