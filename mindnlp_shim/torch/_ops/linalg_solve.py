"""torch.linalg's linear solvers: solve (and _ex), inv_ex, solve_triangular, pinv, lstsq, tensorinv and
tensorsolve.

`solve` and `inv` run MindSpore's MatrixSolve kernel with their own gradient Function (MindSpore's recorded
gradient of MatrixSolve is float32-accurate for float64 inputs): X = A⁻¹B gives dB = A⁻ᴴ dX and dA = -dB Xᴴ.
(MindSpore's MatrixInverse returns zeros for a singular matrix without a word; MatrixSolve refuses it.) Only
for a matrix MatrixSolve refuses is LAPACK's LU run on the host, to give torch's `info` (the 1-based index of
the first zero pivot) and its LinAlgError."""

import mindspore
import numpy as np
from mindspore import ops

from .. import _dtype
from ..autograd.function import Function
from . import matrix, pointwise as pw, reduction as red, shape as sh
from ._util import Tensor, write_out, write_outs
from ..return_types import return_type
from ... import _mindspore as _ms

_solve_ex_result = return_type("linalg_solve_ex", ["result", "info"])
_inv_ex_result = return_type("linalg_inv_ex", ["inverse", "info"])
_lstsq_result = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix function failed on its input (a singular or non-definite matrix)."""


LinAlgError.__module__ = "torch.linalg"


def adjoint(x):
    return sh.transpose(ops.conj(x) if x.dtype in _dtype.COMPLEX else x, -2, -1)


def _check_square(A, name):
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{tuple(A.shape[-2:]) if A.ndim >= 2 else tuple(A.shape)} matrices")


def lu_info(A):
    """torch's `info` per matrix: 0, or the 1-based index of the first exactly zero pivot of LAPACK's LU."""
    from scipy.linalg import lapack

    a = A.asnumpy()
    batch = a.shape[:-2]
    flat = a.reshape((-1,) + a.shape[-2:])
    getrf = lapack.get_lapack_funcs("getrf", (flat,))
    infos = [getrf(m)[2] if m.size else 0 for m in flat]
    return Tensor(np.asarray([max(int(i), 0) for i in infos], np.int32).reshape(batch))


def _raise_singular(info, name):
    flat = info.asnumpy().reshape(-1)
    first = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {first}): " if info.ndim else ""
    raise LinAlgError(f"linalg.{name}: {where}The solver failed because the input matrix is singular.")


class _Solve(Function):
    @staticmethod
    def forward(ctx, A, B):
        X = ops.MatrixSolve()(A, B)
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        # solved through this Function again, not MatrixSolve directly: MindSpore's own derivative of
        # MatrixSolve mixes float32 into float64 (create_graph=True then failed); this one is recorded ops
        grad_B = _Solve.apply(adjoint(A), grad)
        return ops.neg(ops.matmul(grad_B, adjoint(X))), grad_B


def solve_function(A, B):
    """X with A X = B (same batch shapes), recorded as one Function whose derivative is differentiable again."""
    return _Solve.apply(A, B)


def _batch_broadcast(A, B):
    batch = np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    A = sh.broadcast_to(A, batch + tuple(A.shape[-2:])) if tuple(A.shape[:-2]) != batch else A
    B = sh.broadcast_to(B, batch + tuple(B.shape[-2:])) if tuple(B.shape[:-2]) != batch else B
    return A, B


def _solve_values(A, B, left):
    """(X, info) with A X = B (left) or X A = B; B a vector where torch reads it as one."""
    _check_square(A, "solve")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if vector:
        B = sh.unsqueeze(B, -1 if left else -2)
    if not left:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
        A, B = sh.transpose(A, -2, -1), sh.transpose(B, -2, -1)
    dt = _products_dtype(A, B)
    A, B = _batch_broadcast(A.astype(dt) if A.dtype != dt else A, B.astype(dt) if B.dtype != dt else B)
    X, info = _checked_solve(A, B)
    if not left:
        X = sh.transpose(X, -2, -1)
    return (sh.squeeze(X, -1 if left else -2) if vector else X), info


def _checked_solve(A, B):
    """(X, info) for batches of the same shape; the matrices MatrixSolve refuses as singular get NaN."""
    no_info = _ms.zeros(tuple(A.shape[:-2]), mindspore.int32)
    if not (A.numel() and B.numel()):
        return _ms.zeros(tuple(B.shape), B.dtype), no_info
    try:
        return _Solve.apply(A, B), no_info
    except ValueError as exc:
        if "not invertible" not in str(exc):
            raise
    info = lu_info(A)
    if not A.ndim > 2:
        return ops.full(tuple(B.shape), float("nan"), dtype=B.dtype), info
    flat_A = A.reshape((-1,) + tuple(A.shape[-2:]))
    flat_B = B.reshape((-1,) + tuple(B.shape[-2:]))
    flags = info.asnumpy().reshape(-1)
    parts = [_Solve.apply(flat_A[i], flat_B[i]) if not flags[i] else
             ops.full(tuple(B.shape[-2:]), float("nan"), dtype=B.dtype) for i in range(flat_A.shape[0])]
    return ops.stack(parts).reshape(tuple(B.shape)), info


def _products_dtype(A, B):
    from ._util import result_dtype

    return result_dtype([A.dtype, B.dtype])


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    if out is not None:
        return write_outs(out, solve_ex(A, B, left=left, check_errors=check_errors), "linalg_solve_ex")
    X, info = _solve_values(A, B, left)
    if check_errors and bool(info.any()):
        _raise_singular(info, "solve_ex")
    return _solve_ex_result(X, info)


def solve(A, B, *, left=True, out=None):
    """X with A X = B (left=False: X A = B); raises LinAlgError for a singular A, as torch does."""
    if out is not None:
        return write_out(out, solve(A, B, left=left), "linalg_solve", exact=True)
    X, info = _solve_values(A, B, left)
    if bool(info.any()):
        _raise_singular(info, "solve")
    return X


def inv_ex(A, *, check_errors=False, out=None):
    if out is not None:
        return write_outs(out, inv_ex(A, check_errors=check_errors), "linalg_inv_ex")
    _check_square(A, "inv")
    n = A.shape[-1]
    inverse, info = _checked_solve(A, sh.broadcast_to(ops.eye(n, n, A.dtype), tuple(A.shape)))
    if check_errors and bool(info.any()):
        _raise_singular(info, "inv_ex")
    return _inv_ex_result(inverse, info)


def inv(A, *, out=None):
    """A⁻¹; raises LinAlgError for a singular A, as torch does."""
    if out is not None:
        return write_out(out, inv(A), "linalg_inv", exact=True)
    inverse, info = inv_ex(A)
    if bool(info.any()):
        _raise_singular(info, "inv")
    return inverse


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with T X = B (left=False: X T = B), T the upper or lower triangle of A."""
    if out is not None:
        return write_out(out, solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular),
                         "linalg_solve_triangular", exact=True)
    if left:
        return matrix.triangular_solve(B, A, upper=upper, unitriangular=unitriangular).solution
    # X T = B  <=>  Tᵀ Xᵀ = Bᵀ, and Tᵀ is the other triangle
    At, Bt = sh.transpose(A, -2, -1), sh.transpose(B, -2, -1)
    return sh.transpose(matrix.triangular_solve(Bt, At, upper=not upper, unitriangular=unitriangular).solution,
                        -2, -1)


def _default_rtol(A):
    return float(np.finfo(mindspore.dtype_to_nptype(_real_dtype(A.dtype))).eps) * max(A.shape[-2], A.shape[-1])


def _real_dtype(dt):
    return {mindspore.complex64: mindspore.float32, mindspore.complex128: mindspore.float64}.get(dt, dt)


def _cutoff(S, atol, rtol, default_rtol):
    """max(atol, rtol * σ_max) per matrix, with torch's defaults (rtol = eps * max(m, n) when neither given)."""
    if rtol is None:
        rtol = default_rtol if atol is None or (isinstance(atol, (int, float)) and atol <= 0) else 0.0
    top = red.amax(S, -1, keepdim=True) if S.shape[-1] else _ms.zeros(tuple(S.shape[:-1]) + (1,), S.dtype)
    cut = pw.mul(top, rtol)
    return pw.maximum(cut, atol if isinstance(atol, Tensor) else ops.full((), atol or 0.0, dtype=S.dtype)) \
        if atol is not None else cut


class _PinvFunction(Function):
    """The pseudoinverse from the SVD, with the derivative of a constant-rank pseudoinverse (Golub and
    Pereyra): dP = -P dA P + P Pᵀ dAᵀ (I - A P) + (I - P A) dAᵀ Pᵀ P, transposed onto dA."""

    @staticmethod
    def forward(ctx, A, atol, rtol):
        U, S, V = matrix.svd(A, some=True)  # (torch.svd's V, not Vᴴ)
        keep = pw.gt(S, _cutoff(S, atol, rtol, _default_rtol(A)))
        inv_s = pw.where(keep, pw.reciprocal(pw.where(keep, S, ops.ones((), S.dtype))), _ms.zeros((), S.dtype))
        P = ops.matmul(pw.mul(V, sh.unsqueeze(inv_s, -2)), sh.transpose(U, -2, -1))
        ctx.save_for_backward(A, P)
        return P

    @staticmethod
    def backward(ctx, grad):
        A, P = ctx.saved_tensors
        t = lambda x: sh.transpose(x, -2, -1)  # noqa: E731
        mm = ops.matmul
        m, n = A.shape[-2], A.shape[-1]
        eye_m, eye_n = ops.eye(m, m, A.dtype), ops.eye(n, n, A.dtype)
        grad_A = ops.neg(mm(mm(t(P), grad), t(P)))
        grad_A = ops.add(grad_A, mm(mm(ops.sub(eye_m, mm(A, P)), t(grad)), mm(P, t(P))))
        grad_A = ops.add(grad_A, mm(mm(t(P), P), mm(t(grad), ops.sub(eye_n, mm(P, A)))))
        return grad_A, None, None


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudoinverse, from the SVD: singular values at or below max(atol, rtol σ_max) count as
    zero. (`hermitian` selects torch's eigendecomposition path; the SVD gives the same matrix.)"""
    if out is not None:
        return write_out(out, pinv(A, atol=atol, rtol=rtol, hermitian=hermitian), "linalg_pinv")
    if A.dtype in _dtype.COMPLEX:
        raise NotImplementedError("torch.linalg.pinv of complex matrices is not supported by mindnlp-shim")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.pinv(A): The input tensor A must have at least 2 dimensions.")
    if hermitian and not bool(ops.equal(A, sh.transpose(A, -2, -1)).all()):
        # torch reads only the lower triangle then (for a symmetric A the matrix itself: its gradient is the
        # general one, as torch's)
        A = ops.add(sh.tril(A), sh.transpose(sh.tril(A, -1), -2, -1))
    if not A.numel():
        return _ms.zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]), A.dtype)
    return _PinvFunction.apply(A, atol, rtol)


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution through the pseudoinverse (the minimum-norm solution, as gelsy/gelsd give),
    with torch's per-driver extras: rank (not for 'gels'), residuals (not for 'gelsy'; only for tall full-rank
    A) and singular values ('gelsd' and 'gelss')."""
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    vector = B.ndim == A.ndim - 1
    Bm = sh.unsqueeze(B, -1) if vector else B
    m, n = A.shape[-2], A.shape[-1]
    rtol = rcond if rcond is not None and rcond > 0 else \
        float(np.finfo(mindspore.dtype_to_nptype(_real_dtype(A.dtype))).eps) * max(m, n)
    X = ops.matmul(pinv(A, rtol=rtol), Bm)
    S = matrix.svd(A.detach() if hasattr(A, "detach") else A, compute_uv=False).S
    S_out = S if driver in ("gelsd", "gelss") else _ms.zeros((0,), S.dtype)
    rank = red.sum(pw.gt(S, _cutoff(S, None, rtol, rtol)), -1).astype(mindspore.int64)
    full_rank = bool((rank == min(m, n)).all()) if S.numel() else True
    if driver != "gelsy" and m > n and full_rank:
        residual = pw.sub(ops.matmul(A, X), Bm)
        residuals = red.sum(pw.mul(residual, residual), -2)
        residuals = residuals.reshape(tuple(residuals.shape[:-1])) if vector else residuals
    else:
        residuals = _ms.zeros((0,), A.dtype)
    if driver == "gels":
        rank = _ms.zeros((0,), mindspore.int64)
    return _lstsq_result(sh.squeeze(X, -1) if vector else X, residuals, rank, S_out)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A read as a linear map from its first `ind` dims to the rest."""
    if out is not None:
        return write_out(out, tensorinv(A, ind), "linalg_tensorinv", differentiable=False)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    n = int(np.prod(rows))
    if n != int(np.prod(cols)):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {int(np.prod(cols))} != {n}")
    return inv(A.reshape(n, n)).reshape(cols + rows)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if out is not None:
        return write_out(out, tensorsolve(A, B, dims), "linalg_tensorsolve", differentiable=False)
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        order = [d for d in range(A.ndim) if d not in dims] + dims
        A = sh.permute(A, order)
    rest = tuple(A.shape[B.ndim:])
    n = int(np.prod(tuple(B.shape)))
    return solve(A.reshape(n, int(np.prod(rest))), B.reshape(n)).reshape(rest)
