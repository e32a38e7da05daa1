"""torch.functional: the module where torch defines some functions also exported as torch.<name>."""
from ._ops.shape import atleast_1d, broadcast_tensors, meshgrid, split  # noqa: F401
from ._ops.linalg import einsum  # noqa: F401
from ._ops.reduction import norm, unique  # noqa: F401
