"""torch.return_types: the named tuples ops return (`x.max(0)`, `sort`, `topk`, `linalg.eigh` ...), each under
torch's name, with torch's repr:

    torch.return_types.max(
    values=tensor([...]),
    indices=tensor([...]))

One class per name, made by the op's module at import (`return_type`) and reachable here by that name.
"""
import collections

_TYPES = {}


def return_type(name, fields):
    """The named-tuple class torch's `name` returns, with `fields` (the same class for every caller)."""
    cls = _TYPES.get(name)
    if cls is None:
        base = collections.namedtuple(name, fields)
        cls = type(name, (base,), {"__slots__": (), "__module__": "torch.return_types", "__qualname__": name,
                                   "__repr__": _repr})
        _TYPES[name] = cls
    elif cls._fields != tuple(fields):
        raise ValueError(f"torch.return_types.{name} has fields {cls._fields}, not {tuple(fields)}")
    return cls


def _repr(self):
    fields = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
    return f"{__name__.replace('mindnlp_shim.', '')}.{type(self).__name__}(\n{fields})"


def __getattr__(name):
    if name in _TYPES:
        return _TYPES[name]
    raise AttributeError(f"module 'torch.return_types' has no attribute '{name}' (not provided by mindnlp-shim)")
