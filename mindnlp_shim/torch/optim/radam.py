"""torch.optim.RAdam (rectified Adam), with torch's update rule:

    g = -grad if maximize else grad;  decoupled: p *= 1 - lr*wd,  else g = g + wd*p
    m = lerp(m, g, 1-beta1);  v = beta2 v + (1-beta2) g^2
    rho_inf = 2/(1-beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1-beta2^t)
    rho_t > 5: p -= lr * m/(1-beta1^t) * sqrt(1-beta2^t)/(sqrt(v)+eps) * r_t,
               r_t = sqrt((rho_t-4)(rho_t-2) rho_inf / ((rho_inf-4)(rho_inf-2) rho_t))
    otherwise: p -= lr * m/(1-beta1^t)

State: `step` (0-dim float32), `exp_avg`, `exp_avg_sq`.
"""
from . import _checks, _storage
from ._adam_moments import adam_hyper, decay_and_moments
from ._elementwise import ElementwiseOptimizer, advance_step, apply_rule
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["RAdam"]


class RAdam(ElementwiseOptimizer, Optimizer):
    _setstate_group_defaults = dict(foreach=None, maximize=False, capturable=False, differentiable=False,
                                    decoupled_weight_decay=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    _hyper = staticmethod(adam_hyper)

    @staticmethod
    def _prepare_state(param, state, group):
        if len(state) == 0:
            _storage.check_real(param, "RAdam")
            state["step"] = _storage.step_tensor(0.0)
            state["exp_avg"] = _storage.zeros_like_param(param)
            state["exp_avg_sq"] = _storage.zeros_like_param(param)

    @staticmethod
    def _update(param, grad, state, *, maximize, **hyper):
        step = advance_step(state["step"])
        apply_rule(_rule, param, grad, state, ("exp_avg", "exp_avg_sq"), maximize, step=step, **hyper)


def _rule(m, p, g, s, *, step, lr, beta1, beta2, eps, weight_decay, decoupled):
    p, g, exp_avg, exp_avg_sq = decay_and_moments(m, p, g, s, lr=lr, beta1=beta1, beta2=beta2,
                                                  weight_decay=weight_decay, decoupled=decoupled)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    corrected = exp_avg / bias_correction1
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive = (bias_correction2 ** 0.5) / (m.sqrt(exp_avg_sq) + eps)
        p = p - corrected * lr * adaptive * rect
    else:
        p = p - corrected * lr
    return {"exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq, "param": p}
