"""torch.linalg: norms, products and the Cholesky factorization."""
from ._ops.linalg import vector_norm, matmul, cross, cholesky, cholesky_ex  # noqa: F401


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if ord is None or ord == "fro" or A.ndim == 1 or (dim is not None and not isinstance(dim, (tuple, list))):
        return vector_norm(A, 2 if ord in (None, "fro") else ord, dim, keepdim, dtype=dtype)
    raise NotImplementedError(f"torch.linalg.norm(ord={ord!r}) for matrices is not supported on MindSpore yet")
