"""torch.linalg's matrix norms, condition number and rank, the matrix exponential, Vandermonde matrices,
vecdot and multi_dot: compositions of recorded ops (their gradients are MindSpore's)."""
import math

import mindspore
from mindspore import ops

from .. import _dtype
from . import linalg as products, matrix, pointwise as pw, reduction as red, shape as sh
from ._util import write_out
from ... import _mindspore as _ms

_INF = float("inf")


def _norm_dims(dim, ndim):
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d0, d1 = (d % ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _move_last(A, d0, d1):
    """A with dims d0, d1 moved to the end (in that order)."""
    return sh.permute(A, [d for d in range(A.ndim) if d not in (d0, d1)] + [d0, d1])


def _restore(value, keepdim, d0, d1):
    """A reduction over the last two dims of the permuted input, with size-1 dims put back where keepdim asks."""
    if keepdim:
        for d in sorted((d0, d1)):
            value = sh.unsqueeze(value, d)
    return value


def _singular_values(A):
    return matrix.svd(A, compute_uv=False).S


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Frobenius ('fro'), nuclear ('nuc'), max/min absolute row (inf/-inf) or column (1/-1) sums, and the
    largest/smallest singular value (2/-2)."""
    if out is not None:
        return write_out(out, matrix_norm(A, ord, dim, keepdim, dtype=dtype), "linalg_matrix_norm", exact=True,
                         differentiable=False)  # (a composite in torch: its out= does not refuse grad)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    products._check_norm_dtype("matrix_norm", A, dtype)
    if dtype is not None:
        A = A.astype(dtype)
    d0, d1 = _norm_dims(tuple(dim), A.ndim)
    if ord == "fro":
        return products.vector_norm(A, 2, (d0, d1), keepdim)
    B = _move_last(A, d0, d1)
    if ord == "nuc" or ord in (2, -2):
        s = _singular_values(B)
        value = red.sum(s, -1) if ord == "nuc" else red.amax(s, -1) if ord == 2 else red.amin(s, -1)
    elif ord in (_INF, -_INF, 1, -1):
        # inf: rows (sum over columns); 1: columns (sum over rows)
        sums = red.sum(pw.abs(B), -1 if ord in (_INF, -_INF) else -2)
        value = red.amax(sums, -1) if ord in (_INF, 1) else red.amin(sums, -1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.dtype in _dtype.COMPLEX:
        value = ops.real(value) if value.dtype in _dtype.COMPLEX else value
    return _restore(value, keepdim, d0, d1)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector norm (1-d input, an int dim, or ord None with no dim) or a matrix norm (2-d input or a 2-tuple
    dim)."""
    if out is not None:
        return write_out(out, norm(A, ord, dim, keepdim, dtype=dtype), "linalg_norm", exact=True,
                         differentiable=False)  # (torch's linalg.norm out= does not refuse grad inputs)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or (dim is None and ord is not None and A.ndim == 2):
        return matrix_norm(A, "fro" if ord is None else ord, dim if dim is not None else (-2, -1), keepdim,
                           dtype=dtype)
    if ord is not None and dim is None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Order {ord} not supported.")
    return products.vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def cond(A, p=None, *, out=None):
    """The condition number in the p-norm: σ_max/σ_min for p None or 2 (σ_min/σ_max for -2), otherwise
    ‖A‖_p ‖A⁻¹‖_p."""
    if out is not None:
        return write_out(out, cond(A, p), "linalg_cond", differentiable=False)  # (as torch: cast, no grad check)
    if p is None or p in (2, -2):
        s = _singular_values(A)
        big, small = red.amax(s, -1), red.amin(s, -1)
        return pw.div(small, big) if p == -2 else pw.div(big, small)
    from .linalg_solve import inv_ex

    inverse = inv_ex(A).inverse
    return pw.mul(matrix_norm(A, p), matrix_norm(inverse, p))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values above max(atol, rtol σ_max) (torch's default rtol: eps * max(m, n));
    `tol` is the older spelling of atol."""
    if out is not None:
        return write_out(out, matrix_rank(A, tol, hermitian, atol=atol, rtol=rtol), "linalg_matrix_rank",
                         differentiable=False)
    from .linalg_solve import _cutoff, _default_rtol

    if tol is not None:
        atol, rtol = tol, 0.0 if rtol is None else rtol
    # (with `hermitian` torch counts |eigenvalues|: for a Hermitian matrix those are its singular values)
    s = _singular_values(A.detach())
    return red.sum(pw.gt(s, _cutoff(s, atol, rtol, _default_rtol(A))), -1).astype(mindspore.int64)


def matrix_exp(A):
    """exp(A) by scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with the Taylor series of the scaled matrix
    (norm <= 1/2) to 18 terms: below float64's rounding."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices")
    n = A.shape[-1]
    if A.numel() == 0:
        return A
    scale = float(red.amax(red.sum(pw.abs(A.detach()), -1)).asnumpy()) if A.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(scale / 0.5)))) if scale > 0.5 else 0
    X = pw.div(A, float(2 ** s)) if s else A
    eye = sh.broadcast_to(ops.eye(n, n, A.dtype), tuple(A.shape))
    result, term = eye, eye
    for k in range(1, 19):
        term = pw.div(products.matmul(term, X), float(k))
        result = pw.add(result, term)
    for _ in range(s):
        result = products.matmul(result, result)
    return result


def vander(x, N=None):
    """Columns x^0, x^1, ..., x^(N-1) (N defaults to the length of x)."""
    n = x.shape[-1] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x.ndim < 1:
        raise RuntimeError("x must have at least one dimension.")
    if n == 0:
        return _ms.zeros(tuple(x.shape) + (0,), x.dtype)
    ones = ops.ones(tuple(x.shape) + (1,), x.dtype)
    if n == 1:
        return ones
    powers = red.cumprod(sh.expand(sh.unsqueeze(x, -1), tuple(x.shape) + (n - 1,)), -1)
    return sh.cat((ones, powers), -1)


def vecdot(x, y, *, dim=-1, out=None):
    """sum(conj(x) * y) along dim."""
    if out is not None:
        return write_out(out, vecdot(x, y, dim=dim), "linalg_vecdot", exact=True)
    if x.dtype in _dtype.COMPLEX:
        x = ops.conj(x)
    return red.sum(pw.mul(x, y), dim)


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices; a 1-d first (last) operand is a row (column) vector."""
    if out is not None:
        return write_out(out, multi_dot(tensors), "linalg_multi_dot", exact=True)
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vector, last_vector = tensors[0].ndim == 1, tensors[-1].ndim == 1
    if first_vector:
        tensors[0] = sh.unsqueeze(tensors[0], 0)
    if last_vector:
        tensors[-1] = sh.unsqueeze(tensors[-1], -1)
    for i, t in enumerate(tensors):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    result = tensors[0]
    for t in tensors[1:]:
        result = products.matmul(result, t)
    if first_vector:
        result = sh.squeeze(result, 0)
    if last_vector:
        result = sh.squeeze(result, -1)
    return result


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return sh.diagonal(A, offset, dim1, dim2)

