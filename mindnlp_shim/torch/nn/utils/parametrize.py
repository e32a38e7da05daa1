"""torch.nn.utils.parametrize: a module attribute computed on access from original tensors.

After `register_parametrization(module, "weight", p)`, `module.weight` is `p(original)` recomputed on every access;
the original lives at `module.parametrizations.weight.original` (or `original0`, `original1`, ... when
`p.right_inverse` splits it into several tensors), which is where state_dict keys and optimizers find it.
As in torch, the module's class is swapped for a subclass named `Parametrized<Class>` whose property serves the
attribute.
"""
import contextlib

from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

_caching = {"enabled": False, "values": {}}


class ParametrizationList(ModuleList):
    """The parametrizations of one attribute, applied in order, and the original tensor(s) they start from."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        first = modules[0]
        from ... import no_grad

        with no_grad():
            split = first.right_inverse(original) if hasattr(first, "right_inverse") else original
        parts = list(split) if isinstance(split, (tuple, list)) else [split]
        self.is_tensor = not isinstance(split, (tuple, list))
        self.ntensors = len(parts)
        for i, part in enumerate(parts):
            name = "original" if self.is_tensor else f"original{i}"
            if isinstance(original, Parameter):  # a parameter's originals are parameters, a buffer's buffers
                self.register_parameter(name, Parameter(part.detach().clone(), requires_grad=original.requires_grad))
            else:
                self.register_buffer(name, part.detach().clone())

    def right_inverse(self, value):
        """Store `value` as the originals, through each parametrization's right_inverse (last first)."""
        from ... import no_grad

        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, part in enumerate(value):
                    getattr(self, f"original{i}").copy_(part)

    def forward(self):
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _parametrized_value(module, name):
    if _caching["enabled"]:
        key = (id(module), name)
        if key not in _caching["values"]:
            _caching["values"][key] = module.parametrizations[name]()
        return _caching["values"][key]
    return module.parametrizations[name]()


def _inject_property(module, name):
    def getter(self):
        return _parametrized_value(self, name)

    def setter(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(type(module), name, property(getter, setter))


def _swap_class(module):
    cls = type(module)
    subclass = type(f"Parametrized{cls.__name__}", (cls,), {"__module__": cls.__module__})
    module.__class__ = subclass


def is_parametrized(module, tensor_name=None):
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` computed by `parametrization` from the current value (kept as original)."""
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    if tensor_name in module._parameters:
        original = module._parameters[tensor_name]
    elif tensor_name in module._buffers:
        original = module._buffers[tensor_name]
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _swap_class(module)
        module.parametrizations = ModuleDict()
    _inject_property(module, tensor_name)
    module.parametrizations[tensor_name] = plist
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Turn the attribute back into a plain parameter: its current value, or the original when
    leave_parametrized=False (only possible with a single original tensor)."""
    from ... import no_grad

    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    with no_grad():
        if leave_parametrized:
            value = Parameter(getattr(module, tensor_name).detach().clone())
        elif plist.is_tensor:
            value = plist.original
        else:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    module.register_parameter(tensor_name, value if isinstance(value, Parameter) else Parameter(value))
    if not is_parametrized(module):
        del module._modules["parametrizations"]
        module.__class__ = type(module).__bases__[0]
    return module


@contextlib.contextmanager
def cached():
    """Within the block each parametrized attribute is computed once per module."""
    _caching["enabled"] = True
    try:
        yield
    finally:
        _caching["enabled"] = False
        _caching["values"].clear()


__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "ParametrizationList"]
