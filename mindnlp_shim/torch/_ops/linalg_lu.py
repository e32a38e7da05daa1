"""torch.linalg's LU decomposition: lu_factor(_ex), lu, lu_solve, and torch.lu_unpack.

The factorization is LAPACK's getrf on the host (scipy, the routine torch uses: the same pivots), recorded as
a Function. For a square A = P L U, dA gives X = L⁻¹ Pᵀ dA U⁻¹, dL = L tril(X, -1), dU = triu(X) U; so the
gradient is Gₐ = P L⁻ᵀ (tril(Lᵀ G_L, -1) + triu(G_U Uᵀ)) U⁻ᵀ (rectangular matrices: not supported).
lu_solve composes triangular solves on the unpacked factors (their gradients are recorded ops)."""

import mindspore
import numpy as np
from mindspore import ops

from ..autograd.function import Function, first_order_only
from . import matrix, shape as sh
from ._util import Tensor, write_outs
from ..return_types import return_type
from ... import _mindspore as _ms

_lu_factor_result = return_type("linalg_lu_factor", ["LU", "pivots"])
_lu_factor_ex_result = return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_lu_result = return_type("linalg_lu", ["P", "L", "U"])
_lu_unpack_result = return_type("lu_unpack", ["P", "L", "U"])


def _getrf(a):
    """(LU, 1-based pivots, info) of a batch of matrices."""
    from scipy.linalg import lapack

    flat = a.reshape((-1,) + a.shape[-2:])
    getrf = lapack.get_lapack_funcs("getrf", (flat,))
    k = min(a.shape[-2], a.shape[-1])
    lus, pivs, infos = [], [], []
    for m in flat:
        if m.size:
            lu, piv, info = getrf(m)
        else:
            lu, piv, info = m.copy(), np.arange(k), 0
        lus.append(lu)
        pivs.append(np.asarray(piv[:k]) + 1)
        infos.append(max(int(info), 0))
    batch = a.shape[:-2]
    return (np.stack(lus).reshape(a.shape), np.stack(pivs).astype(np.int32).reshape(batch + (k,)),
            np.asarray(infos, np.int32).reshape(batch))


def _permutation(pivots, m):
    """P with A = P L U from LAPACK's row interchanges (row i was swapped with row pivots[i] - 1)."""
    perm = np.arange(m)
    for i, p in enumerate(pivots):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    P = np.zeros((m, m))
    P[perm, np.arange(m)] = 1.0
    return P


def _permutations(pivots, m, dtype):
    flat = pivots.reshape((-1, pivots.shape[-1])) if pivots.ndim else pivots.reshape(1, -1)
    Ps = np.stack([_permutation(p, m) for p in flat]) if flat.shape[0] else np.zeros((0, m, m))
    return Ps.reshape(pivots.shape[:-1] + (m, m)).astype(dtype)


def _unpacked(LU, m, n):
    k = min(m, n)
    L = ops.add(sh.tril(LU, -1)[..., :, :k], ops.eye(m, k, LU.dtype))
    U = sh.triu(LU)[..., :k, :]
    return L, U


class _LUFactor(Function):
    @staticmethod
    def forward(ctx, A):
        a = A.asnumpy()
        lu, piv, info = _getrf(a)
        ctx.save_for_backward(A)
        ctx.lu, ctx.piv = lu, piv
        return Tensor(np.ascontiguousarray(lu)), Tensor(piv), Tensor(info)

    @staticmethod
    @first_order_only  # the backward computes on the host: not recorded
    def backward(ctx, grad_LU, grad_piv=None, grad_info=None):
        (A,) = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        if m != n:
            raise NotImplementedError("the derivative of torch.linalg.lu_factor for non-square matrices is not "
                                      "supported by mindnlp-shim")
        LU = Tensor(np.ascontiguousarray(ctx.lu))
        L, U = _unpacked(LU, m, n)
        P = Tensor(_permutations(ctx.piv, m, ctx.lu.dtype))
        return _lu_backward(P, L, U, sh.tril(grad_LU, -1), sh.triu(grad_LU))


def _lu_backward(P, L, U, grad_L, grad_U):
    t = lambda x: sh.transpose(x, -2, -1)  # noqa: E731
    M = ops.add(sh.tril(ops.matmul(t(L), grad_L), -1), sh.triu(ops.matmul(grad_U, t(U))))
    left = ops.MatrixSolve()(t(L), M)  # L⁻ᵀ M
    right = t(ops.MatrixSolve()(U, t(left)))  # (L⁻ᵀ M) U⁻ᵀ
    return ops.matmul(P, right)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): L (unit diagonal, below) and U (on and above) packed, LAPACK's 1-based pivots."""
    if out is not None:
        return write_outs(out, lu_factor_ex(A, pivot=pivot, check_errors=check_errors), "linalg_lu_factor_ex")
    if not pivot:
        raise NotImplementedError("torch.linalg.lu_factor(pivot=False) is not supported on the CPU (torch "
                                  "supports it on CUDA only)")
    if A.ndim < 2:
        raise RuntimeError("linalg.lu_factor: Expected tensor with 2 or more dimensions.")
    LU, pivots, info = _LUFactor.apply(A)
    if check_errors and bool(info.any()):
        from .linalg_solve import LinAlgError

        raise LinAlgError("linalg.lu_factor: The factorization could not be completed because the input is "
                          "singular.")
    return _lu_factor_ex_result(LU, pivots, info)


def lu_factor(A, *, pivot=True, out=None):
    if out is not None:
        return write_outs(out, lu_factor(A, pivot=pivot), "linalg_lu_factor")
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return _lu_factor_result(LU, pivots)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's packed result."""
    if out is not None:
        return write_outs(out, lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots), "lu_unpack")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    L, U = _unpacked(LU_data, m, n) if unpack_data else (_ms.zeros((0,), LU_data.dtype),) * 2
    P = Tensor(_permutations(LU_pivots.asnumpy(), m, mindspore.dtype_to_nptype(LU_data.dtype))) \
        if unpack_pivots else _ms.zeros((0,), LU_data.dtype)
    return _lu_unpack_result(P, L, U)


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U."""
    if out is not None:
        return write_outs(out, lu(A, pivot=pivot), "linalg_lu")
    LU, pivots = lu_factor(A, pivot=pivot)
    return _lu_result(*lu_unpack(LU, pivots))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (left=False: X A = B; adjoint: with Aᴴ), A given by lu_factor's result."""
    if out is not None:
        from ._util import write_out

        return write_out(out, lu_solve(LU, pivots, B, left=left, adjoint=adjoint), "linalg_lu_solve", exact=True)
    P, L, U = lu_unpack(LU, pivots)
    t = lambda x: sh.transpose(x, -2, -1)  # noqa: E731
    solve = lambda T, b, upper, unit: matrix.triangular_solve(b, T, upper=upper, unitriangular=unit).solution  # noqa

    def apply_inverse(b):  # A⁻¹ b = U⁻¹ L⁻¹ Pᵀ b
        return solve(U, solve(L, ops.matmul(t(P), b), False, True), True, False)

    def apply_adjoint_inverse(b):  # A⁻ᵀ b = P L⁻ᵀ U⁻ᵀ b
        return ops.matmul(P, solve(t(L), solve(t(U), b, False, False), True, True))

    if left:
        return apply_adjoint_inverse(B) if adjoint else apply_inverse(B)
    # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
    return t(apply_inverse(t(B)) if adjoint else apply_adjoint_inverse(t(B)))


def torch_lu(A, pivot=True, get_infos=False):
    """torch.lu: (LU, pivots) or (LU, pivots, infos), the older spelling of linalg.lu_factor(_ex) (its out=
    is not provided)."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve: the older argument order of linalg.lu_solve."""
    return lu_solve(LU_data, LU_pivots, b, out=out)
