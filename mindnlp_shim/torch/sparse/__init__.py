"""torch.sparse: the functions of sparse COO tensors the shim provides (mindnlp_shim/torch/_sparse_coo.py);
every other torch.sparse name raises NotImplementedError."""
from .._sparse_coo import _InvariantChecks as check_sparse_tensor_invariants  # noqa: F401
from .._sparse_coo import mm, sparse_sum as sum, unsupported  # noqa: F401  (torch.sparse.sum is the name)

__all__ = ["mm", "sum", "check_sparse_tensor_invariants"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise unsupported(f"torch.sparse.{name}")
