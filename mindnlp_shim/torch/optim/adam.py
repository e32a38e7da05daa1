"""torch.optim.Adam (and the update AdamW shares), with torch's update rule:

    g = -grad if maximize else grad
    weight decay: decoupled -> p *= 1 - lr*wd        L2 -> g = g + wd*p
    m = m + (1-beta1)(g - m);  v = beta2 v + (1-beta2) g^2;  (amsgrad: v_max = max(v_max, v), used for v)
    p -= lr/(1-beta1^t) * m / (sqrt(v)/sqrt(1-beta2^t) + eps)

State per parameter: `step` (0-dim float32 tensor), `exp_avg`, `exp_avg_sq` (and `max_exp_avg_sq` with
amsgrad), in the parameter's dtype like torch. `foreach=True` and `fused=True` are accepted and run the same
single fastest path: NumPy in place on the CPU target, the fused `AdamWeightDecay` device kernel elsewhere.
"""
import math

import numpy as np
import mindspore
from mindspore import ops

from . import _storage
from ._gradient import device_gradient, host_gradient
from ._work import Working
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["Adam"]


class Adam(Optimizer):
    _setstate_group_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False,
                                    differentiable=False, fused=None, decoupled_weight_decay=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        lr_value = _storage.as_float(lr)
        if not 0.0 <= lr_value:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= _storage.as_float(betas[0]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= _storage.as_float(betas[1]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_implementation_flags(type(self).__name__, foreach, fused, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _prepare_state(self, param, state, group):
        if len(state) == 0:
            _storage.check_real(param, type(self).__name__)
            state["step"] = _storage.step_tensor(0.0)
            state["exp_avg"] = _storage.zeros_like_param(param)
            state["exp_avg_sq"] = _storage.zeros_like_param(param)
        if group["amsgrad"] and "max_exp_avg_sq" not in state:  # also when amsgrad is switched on later
            state["max_exp_avg_sq"] = _storage.zeros_like_param(param)

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        return self._step_params(closure, _hyper, self._prepare_state, _host_update, _device_update)


def _hyper(group):
    beta1, beta2 = (_storage.as_float(b) for b in group["betas"])
    return dict(lr=_storage.as_float(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
                weight_decay=group["weight_decay"], amsgrad=group["amsgrad"], maximize=group["maximize"],
                decoupled=group.get("decoupled_weight_decay", False))


def _bias_corrections(step, beta1, beta2):
    return 1 - beta1 ** step, 1 - beta2 ** step


def _host_update(param, grad, state, buffers, *, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled):
    step = _storage.advance_step_on_host(state["step"])
    work = Working()
    p = work.open(param)
    m = work.open(state["exp_avg"])
    v = work.open(state["exp_avg_sq"])
    g = host_gradient(work, grad, p, maximize, weight_decay=0 if decoupled else weight_decay)
    if decoupled and weight_decay != 0:
        p *= 1 - lr * weight_decay
    second = work.open(state["max_exp_avg_sq"]) if amsgrad else None
    bias_correction1, bias_correction2 = _bias_corrections(step, beta1, beta2)
    arrays = [a.reshape(-1) for a in (p, m, v, g) + ((second,) if amsgrad else ())]  # views: all are dense

    def update(part, tmp):
        _update_slice(*(a[part] for a in arrays), tmp=tmp, lr=lr, beta1=beta1, beta2=beta2, eps=eps,
                      bias_correction1=bias_correction1, bias_correction2=bias_correction2)

    buffers.over_slices(p.size, work.dtype, update)
    work.finish()


def _update_slice(p, m, v, g, second=None, *, tmp, lr, beta1, beta2, eps, bias_correction1, bias_correction2):
    np.subtract(g, m, out=tmp)
    tmp *= 1 - beta1
    m += tmp
    v *= beta2
    np.multiply(g, g, out=tmp)
    tmp *= 1 - beta2
    v += tmp
    if second is not None:
        np.maximum(second, v, out=second)
    else:
        second = v
    np.sqrt(second, out=tmp)
    tmp /= math.sqrt(bias_correction2)
    tmp += eps
    np.divide(m, tmp, out=tmp)
    tmp *= lr / bias_correction1
    p -= tmp


def _scalar(value):
    return mindspore.Tensor(value, mindspore.float32)


def _device_update(param, grad, state, *, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled):
    step = _storage.advance_step_on_device(state["step"])
    bias_correction1, bias_correction2 = _bias_corrections(step, beta1, beta2)
    if maximize:
        grad = ops.neg(grad)
    fused_kernel_fits = (param.dtype == mindspore.float32 and grad.dtype == mindspore.float32 and not amsgrad
                         and state["exp_avg"].dtype == mindspore.float32 and lr > 0)
    if fused_kernel_fits:
        # AdamWeightDecay has no bias correction; folding it into lr, eps and wd gives torch's rule exactly:
        # lr_t*m/(sqrt(v)+eps_t) = lr/bc1 * m/(sqrt(v)/sqrt(bc2)+eps), and lr_t*wd_t = lr*wd.
        if weight_decay != 0 and not decoupled:
            grad = grad + weight_decay * param
        lr_t = lr * math.sqrt(bias_correction2) / bias_correction1
        eps_t = eps * math.sqrt(bias_correction2)
        wd_t = weight_decay * lr / lr_t if decoupled else 0.0
        ops.AdamWeightDecay()(param, state["exp_avg"], state["exp_avg_sq"], _scalar(lr_t), _scalar(beta1),
                              _scalar(beta2), _scalar(eps_t), _scalar(wd_t), grad)
        return
    f32 = mindspore.float32
    # (grad was negated above for maximize)
    p, g = device_gradient(param, grad, maximize=False, weight_decay=0 if decoupled else weight_decay)
    if decoupled and weight_decay != 0:
        p = p * (1 - lr * weight_decay)
    m = state["exp_avg"].astype(f32)
    m = m + (1 - beta1) * (g - m)
    v = state["exp_avg_sq"].astype(f32) * beta2 + (1 - beta2) * (g * g)
    second = v
    if amsgrad:
        second = ops.maximum(state["max_exp_avg_sq"].astype(f32), v)
        _storage.assign(state["max_exp_avg_sq"], second)
    denom = ops.sqrt(second) / math.sqrt(bias_correction2) + eps
    p = p - (lr / bias_correction1) * (m / denom)
    _storage.assign(state["exp_avg"], m)
    _storage.assign(state["exp_avg_sq"], v)
    _storage.assign(param, p)
