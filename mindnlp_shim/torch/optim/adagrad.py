"""torch.optim.Adagrad with torch's update rule:

    g = -grad if maximize else grad;  g = g + wd*p
    clr = lr / (1 + (t-1)*lr_decay);  sum += g^2;  p -= clr * g / (sqrt(sum) + eps)

As in torch, the state (`step`, `sum` filled with `initial_accumulator_value`) is created for every
parameter in the constructor, so `state_dict()` has it before the first step.
"""
import numpy as np
from mindspore import ops

from . import _storage
from ._gradient import device_gradient, host_gradient
from ._work import Working
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    _setstate_group_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= _storage.as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_implementation_flags(type(self).__name__, foreach, fused, differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                _storage.check_real(param, "Adagrad")
                _init_state(param, self.state[param], group)

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        return self._step_params(closure, _hyper, _init_state, _host_update, _device_update)


def _hyper(group):
    return dict(lr=_storage.as_float(group["lr"]), lr_decay=group["lr_decay"], eps=group["eps"],
                weight_decay=group["weight_decay"], maximize=group["maximize"])


def _init_state(param, state, group):
    # The constructor creates every parameter's state; in a step, only a parameter added later with
    # add_param_group still lacks it.
    if len(state) == 0:
        state["step"] = _storage.step_tensor(0.0)
        state["sum"] = _filled_like(param, group["initial_accumulator_value"])


def _filled_like(param, value):
    if _storage.uses_host_math():
        return _storage.zeros_state(param.asnumpy(), fill=value)
    return ops.fill(param.dtype, param.shape, value)


def _host_update(param, grad, state, buffers, *, lr, lr_decay, eps, weight_decay, maximize):
    step = _storage.advance_step_on_host(state["step"])
    work = Working()
    p = work.open(param)
    total = work.open(state["sum"])
    g = host_gradient(work, grad, p, maximize, weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    tmp = buffers.take(p.shape, work.dtype)
    np.multiply(g, g, out=tmp)
    total += tmp
    np.sqrt(total, out=tmp)
    tmp += eps
    np.divide(g, tmp, out=tmp)
    tmp *= clr
    p -= tmp
    work.finish()


def _device_update(param, grad, state, *, lr, lr_decay, eps, weight_decay, maximize):
    step = _storage.advance_step_on_device(state["step"])
    p, g = device_gradient(param, grad, maximize, weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    total = state["sum"].astype(g.dtype) + g * g
    _storage.assign(state["sum"], total)
    _storage.assign(param, p - clr * (g / (ops.sqrt(total) + eps)))
