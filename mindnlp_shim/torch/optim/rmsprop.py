"""torch.optim.RMSprop with torch's update rule:

    g = -grad if maximize else grad;  g = g + wd*p
    v = alpha v + (1-alpha) g^2
    centered: g_avg = g_avg + (1-alpha)(g - g_avg);  denom = sqrt(v - g_avg^2) + eps, else sqrt(v) + eps
    momentum > 0: buf = momentum*buf + g/denom;  p -= lr*buf      else: p -= lr * g/denom

State: `step`, `square_avg`, plus `momentum_buffer` (momentum > 0) and `grad_avg` (centered).
"""
import numpy as np
from mindspore import ops

from . import _storage
from ._gradient import device_gradient, host_gradient
from ._work import Working
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    _setstate_group_defaults = dict(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                                    capturable=False)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= _storage.as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        return self._step_params(closure, _hyper, _init_state, _host_update, _device_update)


def _hyper(group):
    return dict(lr=_storage.as_float(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                weight_decay=group["weight_decay"], momentum=group["momentum"], centered=group["centered"],
                maximize=group["maximize"])


def _init_state(param, state, group):
    if len(state) == 0:
        _storage.check_real(param, "RMSprop")
        state["step"] = _storage.step_tensor(0.0)
        state["square_avg"] = _storage.zeros_like_param(param)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _storage.zeros_like_param(param)
        if group["centered"]:
            state["grad_avg"] = _storage.zeros_like_param(param)


def _host_update(param, grad, state, buffers, *, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    _storage.advance_step_on_host(state["step"])
    work = Working()
    p = work.open(param)
    square_avg = work.open(state["square_avg"])
    g = host_gradient(work, grad, p, maximize, weight_decay)
    tmp = buffers.take(p.shape, work.dtype)
    square_avg *= alpha
    np.multiply(g, g, out=tmp)
    tmp *= 1 - alpha
    square_avg += tmp
    if centered:
        grad_avg = work.open(state["grad_avg"])
        np.subtract(g, grad_avg, out=tmp)
        tmp *= 1 - alpha
        grad_avg += tmp
        np.multiply(grad_avg, grad_avg, out=tmp)
        np.subtract(square_avg, tmp, out=tmp)
        np.sqrt(tmp, out=tmp)
    else:
        np.sqrt(square_avg, out=tmp)
    tmp += eps
    np.divide(g, tmp, out=tmp)
    if momentum > 0:
        buf = work.open(state["momentum_buffer"])
        buf *= momentum
        buf += tmp
        np.multiply(buf, lr, out=tmp)
    else:
        tmp *= lr
    p -= tmp
    work.finish()


def _device_update(param, grad, state, *, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    _storage.advance_step_on_device(state["step"])
    p, g = device_gradient(param, grad, maximize, weight_decay)
    square_avg = state["square_avg"].astype(g.dtype) * alpha + (1 - alpha) * (g * g)
    _storage.assign(state["square_avg"], square_avg)
    if centered:
        grad_avg = state["grad_avg"].astype(g.dtype)
        grad_avg = grad_avg + (1 - alpha) * (g - grad_avg)
        _storage.assign(state["grad_avg"], grad_avg)
        denom = ops.sqrt(square_avg - grad_avg * grad_avg) + eps
    else:
        denom = ops.sqrt(square_avg) + eps
    if momentum > 0:
        buf = state["momentum_buffer"].astype(g.dtype) * momentum + g / denom
        _storage.assign(state["momentum_buffer"], buf)
        p = p - lr * buf
    else:
        p = p - lr * (g / denom)
    _storage.assign(param, p)
