"""torch.nn on MindSpore."""
from .parameter import Parameter, Buffer
from .modules import *  # noqa: F401,F403
from .modules import Module
from . import functional, init, modules  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from ._factory_kwargs import Container, factory_kwargs  # noqa: F401


def __getattr__(name):
    if name in ("utils", "attention", "parallel", "grad", "common_types"):
        import importlib

        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # (hasattr must answer False, not raise)
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}' (not provided by mindnlp-shim)")
