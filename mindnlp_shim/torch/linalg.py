"""torch.linalg: products, norms, determinants, inverses and solvers, the SVD, QR, Cholesky and eigen
decompositions, the matrix exponential. Implementations live in _ops/ (linalg, matrix, linalg_solve,
linalg_decompositions, linalg_matrix_functions)."""

import numpy as np

from ._ops.linalg import vector_norm, matmul, cross as _cross  # noqa: F401
from ._ops.matrix import det, matrix_power, slogdet as _slogdet, svd as _tensor_svd  # noqa: F401
from ._ops.shape import cat as _cat
from ._ops.linalg_solve import (LinAlgError, solve, solve_ex, inv, inv_ex, solve_triangular, pinv,  # noqa: F401
                                lstsq, tensorinv, tensorsolve)
from ._ops.linalg_decompositions import (cholesky, cholesky_ex, qr, eigh, eigvalsh, eig, eigvals,  # noqa: F401
                                         householder_product)
from ._ops.linalg_lu import lu_factor, lu_factor_ex, lu, lu_solve  # noqa: F401
from ._ops.linalg_matrix_functions import (matrix_norm, norm, cond, matrix_rank, matrix_exp, vander,  # noqa: F401
                                           vecdot, multi_dot, diagonal)
from .return_types import return_type

_svd_result = return_type("linalg_svd", ["U", "S", "Vh"])


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim; the operands broadcast (torch.cross's do not)."""
    if out is not None:
        from ._ops._util import write_out

        return write_out(out, cross(input, other, dim=dim), "linalg_cross", exact=True)
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    input = input if tuple(input.shape) == shape else input.broadcast_to(shape)
    other = other if tuple(other.shape) == shape else other.broadcast_to(shape)
    return _cross(input, other, dim)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh (torch.svd and Tensor.svd answer V instead). With full_matrices the
    columns beyond min(m, n) complete the bases and take no gradient (torch ignores theirs too); MindSpore's
    own full-matrices gradient refuses |m - n| > 1."""
    if out is not None:
        from ._ops._util import write_outs

        return write_outs(out, svd(A, full_matrices), "linalg_svd")
    U, S, V = _tensor_svd(A, some=True)
    m, n = A.shape[-2], A.shape[-1]
    if full_matrices and m != n:
        U_full, _, V_full = _tensor_svd(A.detach(), some=False)
        k = min(m, n)
        U = _cat((U, U_full[..., :, k:]), -1)
        V = _cat((V, V_full[..., :, k:]), -1)
    return _svd_result(U, S, V.mH)


def svdvals(A, *, driver=None, out=None):
    if out is not None:
        from ._ops._util import write_out

        return write_out(out, svdvals(A), "linalg_svdvals", exact=True, grad_inputs=(A,))
    return _tensor_svd(A, compute_uv=False).S


_slogdet_result = return_type("linalg_slogdet", ["sign", "logabsdet"])


def slogdet(A):
    """torch.linalg.slogdet: torch.slogdet's pair, named as torch.linalg names it."""
    return _slogdet_result(*_slogdet(A))

from . import _python_dtypes  # noqa: E402

_python_dtypes.install(globals())  # dtype=float and friends, as torch reads them
