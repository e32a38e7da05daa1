"""torch.utils: data loading, checkpointing, pytree helpers and hooks."""
import importlib as _importlib

from . import _pytree, hooks  # noqa: F401
from ._swap_tensors import swap_tensors  # noqa: F401


def __getattr__(name):
    if name in ("data", "checkpoint", "_python_dispatch", "_device", "_contextlib", "tensorboard",
                "cpp_extension", "_foreach_utils", "dlpack", "benchmark"):
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'torch.utils' has no attribute '{name}' (not provided by mindnlp-shim)")
