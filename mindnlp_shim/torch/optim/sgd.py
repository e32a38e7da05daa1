"""torch.optim.SGD with torch's update rule:

    g = -grad if maximize else grad;  g = g + wd*p
    momentum: buf = g on the first step, else buf = momentum*buf + (1-dampening)*g
              g = g + momentum*buf (nesterov) or g = buf
    p -= lr*g

State: `momentum_buffer` only when momentum != 0 (no step count, as in torch).
"""
import numpy as np

from . import _storage
from ._gradient import device_gradient, host_gradient
from ._work import Working
from .optimizer import Optimizer, required, check_implementation_flags

__all__ = ["SGD"]


class SGD(Optimizer):
    _setstate_group_defaults = dict(nesterov=False, maximize=False, foreach=None, differentiable=False, fused=None)

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required and _storage.as_float(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if _storage.as_float(weight_decay) < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_implementation_flags(type(self).__name__, foreach, fused, differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        return self._step_params(closure, _hyper, _check_param, _host_update, _device_update)


def _hyper(group):
    return dict(lr=_storage.as_float(group["lr"]), momentum=group["momentum"], dampening=group["dampening"],
                weight_decay=_storage.as_float(group["weight_decay"]), nesterov=group["nesterov"],
                maximize=group["maximize"])


def _check_param(param, state, group):
    # the momentum buffer is created by the update itself (from the first gradient, as torch does)
    _storage.check_real(param, "SGD")


def _host_update(param, grad, state, buffers, *, lr, momentum, dampening, weight_decay, nesterov, maximize):
    work = Working()
    p = work.open(param)
    g = host_gradient(work, grad, p, maximize, weight_decay)
    if momentum != 0:
        if state.get("momentum_buffer") is None:
            state["momentum_buffer"] = _storage.host_tensor(g.astype(param.asnumpy().dtype, copy=True))
            buf = g
        else:
            buf = work.open(state["momentum_buffer"])
            buf *= momentum
            buf += (1 - dampening) * g
        if nesterov:
            g = g + momentum * buf
        else:
            g = buf
    tmp = buffers.take(p.shape, work.dtype)
    np.multiply(g, lr, out=tmp)
    p -= tmp
    work.finish()


def _device_update(param, grad, state, *, lr, momentum, dampening, weight_decay, nesterov, maximize):
    p, g = device_gradient(param, grad, maximize, weight_decay)
    if momentum != 0:
        if state.get("momentum_buffer") is None:
            buf = g
            state["momentum_buffer"] = g.astype(param.dtype) if g.dtype != param.dtype else g + 0
        else:
            buf = state["momentum_buffer"].astype(g.dtype) * momentum + (1 - dampening) * g
            _storage.assign(state["momentum_buffer"], buf)
        g = g + momentum * buf if nesterov else buf
    _storage.assign(param, p - lr * g)
