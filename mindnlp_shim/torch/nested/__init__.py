"""torch.nested: nested tensors of the strided layout, partially (see mindnlp_shim/torch/_nested_tensor.py)."""
from .._nested_tensor import as_nested_tensor, nested_tensor, to_padded_tensor, unsupported as _unsupported

__all__ = ["nested_tensor", "as_nested_tensor", "to_padded_tensor"]


def __getattr__(name):
    if name in ("nested_tensor_from_jagged", "narrow", "masked_select"):
        raise _unsupported(f"torch.nested.{name}")
    raise AttributeError(f"module 'torch.nested' has no attribute '{name}'")
