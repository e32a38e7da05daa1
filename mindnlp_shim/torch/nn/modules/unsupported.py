"""nn module classes upstream code names (often in isinstance tuples) that the shim does not implement yet.

The classes exist so those references resolve; constructing one raises NotImplementedError.
"""
from .module import Module


def _unsupported(name):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.nn.{name} is not supported by mindnlp-shim yet")

    return type(name, (Module,), {"__init__": __init__, "__doc__": f"torch.nn.{name} (not supported yet)."})


_NAMES = ["SyncBatchNorm"]
__all__ = list(_NAMES)
for _name in _NAMES:
    globals()[_name] = _unsupported(_name)
del _name
