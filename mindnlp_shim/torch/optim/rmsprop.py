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
from ._work import WorkBuffers, Working
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
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
        self._work_buffers = WorkBuffers()

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        if "_work_buffers" not in self.__dict__:
            self._work_buffers = WorkBuffers()

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._call_closure(closure)
        on_host = _storage.uses_host_math()
        with _storage.no_grad():
            for group in self.param_groups:
                hyper = dict(lr=_storage.as_float(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                             weight_decay=group["weight_decay"], momentum=group["momentum"],
                             centered=group["centered"], maximize=group["maximize"])
                for param in group["params"]:
                    grad = _storage.grad_of(param)
                    if grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        _storage.check_real(param, "RMSprop")
                        state["step"] = _storage.step_tensor(0.0)
                        state["square_avg"] = _zeros_like(param)
                        if group["momentum"] > 0:
                            state["momentum_buffer"] = _zeros_like(param)
                        if group["centered"]:
                            state["grad_avg"] = _zeros_like(param)
                    if on_host:
                        _host_update(param, grad, state, self._work_buffers, **hyper)
                    else:
                        _device_update(param, grad, state, **hyper)
        return loss


def _zeros_like(param):
    if _storage.uses_host_math():
        return _storage.zeros_state(param.asnumpy())
    return ops.zeros(param.shape, param.dtype)


def _host_update(param, grad, state, buffers, *, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    step_array, step_is_copy = _storage.host_array(state["step"])
    step_array += 1
    _storage.release(state["step"], step_array, step_is_copy)
    work = Working()
    p = work.open(param)
    square_avg = work.open(state["square_avg"])
    g = work.read(grad)
    if maximize:
        g = np.negative(g)
    if weight_decay != 0:
        g = g + weight_decay * p
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
    import mindspore

    step = _storage.as_float(state["step"]) + 1
    _storage.assign(state["step"], _storage.step_tensor(step))
    f32 = mindspore.float32
    p = param.astype(f32)
    g = grad.astype(f32)
    if maximize:
        g = ops.neg(g)
    if weight_decay != 0:
        g = g + weight_decay * p
    square_avg = state["square_avg"].astype(f32) * alpha + (1 - alpha) * (g * g)
    _storage.assign(state["square_avg"], square_avg)
    if centered:
        grad_avg = state["grad_avg"].astype(f32)
        grad_avg = grad_avg + (1 - alpha) * (g - grad_avg)
        _storage.assign(state["grad_avg"], grad_avg)
        denom = ops.sqrt(square_avg - grad_avg * grad_avg) + eps
    else:
        denom = ops.sqrt(square_avg) + eps
    if momentum > 0:
        buf = state["momentum_buffer"].astype(f32) * momentum + g / denom
        _storage.assign(state["momentum_buffer"], buf)
        p = p - lr * buf
    else:
        p = p - lr * (g / denom)
    _storage.assign(param, p)
