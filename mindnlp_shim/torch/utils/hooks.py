"""torch.utils.hooks.RemovableHandle (shared with nn.Module's hook registration)."""
from ..nn.modules.module import RemovableHandle  # noqa: F401
