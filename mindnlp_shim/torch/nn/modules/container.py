"""Module containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (torch.nn semantics).

Members are registered under their index ("0", "1", ...) or key, so they appear in `named_parameters()`,
`state_dict()` and `named_modules()` with the same names as in PyTorch.
"""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice

import mindspore

from .module import Module, _addindent, _dtype_name, _typename
from ..parameter import Parameter

Tensor = mindspore.Tensor

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _absolute_index(idx, size):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _renumber(modules, items=None):
    """Re-key `modules` in place as "0".."n-1" (after a deletion, or with `items` after an insertion)."""
    items = list(modules.values()) if items is None else items
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(items))


class Sequential(Module):
    """Chains modules: `forward(x)` feeds x through each in turn. Built from modules or one OrderedDict."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key_at(self, idx):
        pos = _absolute_index(idx, len(self))
        return next(islice(iter(self._modules), pos, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        _renumber(self._modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        combined = Sequential()
        for layer in chain(self, other):
            combined.append(layer)
        return combined

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        for i, module in enumerate(list(self) * other):
            combined.add_module(str(i), module)
        return combined

    __rmul__ = __mul__

    def __imul__(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        originals = list(self)
        offset = len(self)
        for _ in range(other - 1):
            for module in originals:
                self.add_module(str(offset), module)
                offset += 1
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self._modules, items)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules registered as children "0", "1", ... (no forward of its own)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def _key(self, idx):
        return str(_absolute_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._key(idx))
        _renumber(self._modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self._modules, items)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self):
        # runs of identical children print once: "(0-11): 12 x BertLayer(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines = []
        start = 0
        for end in range(1, len(reprs) + 1):
            if end < len(reprs) and reprs[end] == reprs[start]:
                continue
            body = _addindent(reprs[start], 2)
            if end - start == 1:
                lines.append(f"({start}): {body}")
            else:
                lines.append(f"({start}-{end - 1}): {end - start} x {body}")
            start = end
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules registered as children under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is"
                                + type(pair).__name__)
            pair = list(pair)
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]


def _as_parameter(value):
    """Containers of parameters turn plain tensors into parameters, as torch does."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _size_text(t):
    return "x".join(str(s) for s in t.shape)


class ParameterList(Module):
    """A list of parameters registered as "0", "1", ... (plain tensors are wrapped as parameters; other
    objects are stored as attributes)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, idx):
        return str(_absolute_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._key(idx))

    def __setitem__(self, idx, param):
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        index = len(self)
        self._size += 1
        self[index] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{_dtype_name(p.dtype)} of size {_size_text(p)}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters registered under their (string) keys."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        attr = self._key_to_attr(key)
        self._keys[key] = None
        setattr(self, attr, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = list(self._keys)[-1]
        value = self[key]
        del self[key]
        return key, value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            for j, pair in enumerate(parameters):
                if not isinstance(pair, Iterable):
                    raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; is"
                                    + type(pair).__name__)
                pair = list(pair)
                if len(pair) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; 2 is "
                                     "required")
                self[pair[0]] = pair[1]

    def __or__(self, other):
        combined = self.copy()
        combined.update(other)
        return combined

    def __ror__(self, other):
        combined = other.copy()
        combined.update(self)
        return combined

    def __ior__(self, other):
        self.update(other)
        return self

    def extra_repr(self):
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{_typename(p)} of size {_size_text(p)}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
