"""torch.storage: the storage classes (`Tensor.untyped_storage()`, the deprecated `Tensor.storage()`)."""
from ._tensor import UntypedStorage  # noqa: F401
from ._typed_storage import TypedStorage  # noqa: F401
