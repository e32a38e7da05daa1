"""Weight normalisation, w = g * v / ||v|| with the norm over every dim but `dim`: the parametrization
(torch.nn.utils.parametrizations.weight_norm: originals g = original0, v = original1) and the older hook form
(torch.nn.utils.weight_norm: parameters <name>_g and <name>_v, the weight recomputed before each forward)."""
from ..modules.module import Module
from ..parameter import Parameter
from . import parametrize


def _norm_except_dim(v, dim):
    """The 2-norm of v over all dims but `dim` (over the whole tensor for dim None or -1), kept broadcastable
    against v."""
    if dim is None or dim == -1:
        return v.norm()
    dim = dim % v.ndim
    others = [d for d in range(v.ndim) if d != dim]
    return v.norm(2, dim=others, keepdim=True) if others else v.abs()


def _weight(g, v, dim):
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight(weight_g, weight_v, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def parametrized_weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.parametrizations.weight_norm."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _WeightNormHook:
    def __init__(self, name, dim):
        self.name, self.dim = name, (-1 if dim is None else dim)

    def compute(self, module):
        return _weight(getattr(module, self.name + "_g"), getattr(module, self.name + "_v"), self.dim)

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute(module))


def weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.weight_norm (the hook form)."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    hook = _WeightNormHook(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, hook.dim).detach().clone()))
    module.register_parameter(name + "_v", Parameter(weight.detach().clone()))
    setattr(module, name, hook.compute(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name="weight"):
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            weight = hook.compute(module).detach().clone()
            del module._forward_pre_hooks[key]
            del module._parameters[name + "_g"], module._parameters[name + "_v"]
            module.__dict__.pop(name, None)
            module.register_parameter(name, Parameter(weight))
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
