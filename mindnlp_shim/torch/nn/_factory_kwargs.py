"""torch.nn.factory_kwargs and the deprecated torch.nn.Container."""
import warnings

from .modules.module import Module

_SIMPLE_KEYS = frozenset({"device", "dtype", "memory_format"})


def factory_kwargs(kwargs):
    """The device/dtype/memory_format arguments in `kwargs` (also those nested under "factory_kwargs") as one
    dict for factory functions; an unknown key, or a key given both ways, raises TypeError."""
    if kwargs is None:
        return {}
    unexpected = set(kwargs) - _SIMPLE_KEYS - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in _SIMPLE_KEYS:
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result


class Container(Module):
    """Deprecated: a Module built from keyword submodules (subclass Module instead)."""

    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)
