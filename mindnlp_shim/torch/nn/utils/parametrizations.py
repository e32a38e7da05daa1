"""torch.nn.utils.parametrizations: ready-made parametrizations (weight_norm so far)."""
from .weight_norm import parametrized_weight_norm as weight_norm  # noqa: F401
