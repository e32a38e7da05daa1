"""torch.amp: autocast regions and GradScaler."""
from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast, custom_fwd, custom_bwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
