"""torch.linalg: norms, products, determinants, inverse, SVD and the Cholesky factorization."""
import collections

from ._ops.linalg import vector_norm, matmul, _linalg_cross as cross, cholesky, cholesky_ex  # noqa: F401
from ._ops.matrix import det, slogdet, matrix_power, inverse as inv, svd as _tensor_svd  # noqa: F401

_svd_result = collections.namedtuple("svd", ["U", "S", "Vh"])


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh (torch.svd and Tensor.svd answer V instead)."""
    if out is not None:
        from ._ops._util import write_outs

        return write_outs(out, svd(A, full_matrices), "linalg_svd")
    U, S, V = _tensor_svd(A, some=not full_matrices)
    return _svd_result(U, S, V.mH)


def svdvals(A, *, driver=None, out=None):
    if out is not None:
        from ._ops._util import write_out

        return write_out(out, svdvals(A), "linalg_svdvals", exact=True, grad_inputs=(A,))
    return _tensor_svd(A, compute_uv=False).S


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        from ._ops._util import write_out

        # (torch's linalg.norm out= does not refuse inputs that require grad, unlike vector_norm's)
        return write_out(out, norm(A, ord, dim, keepdim, dtype=dtype), "linalg_norm", exact=True,
                         differentiable=False)
    if ord is None or ord == "fro" or A.ndim == 1 or (dim is not None and not isinstance(dim, (tuple, list))):
        return vector_norm(A, 2 if ord in (None, "fro") else ord, dim, keepdim, dtype=dtype)
    raise NotImplementedError(f"torch.linalg.norm(ord={ord!r}) for matrices is not supported on MindSpore yet")
