"""torch.optim.NAdam (Adam with Nesterov momentum), with torch's update rule:

    g = -grad if maximize else grad;  decoupled: p *= 1 - lr*wd,  else g = g + wd*p
    mu_t = beta1 (1 - 0.5 * 0.96^(t*momentum_decay));  mu_product *= mu_t (a float32 state)
    m = lerp(m, g, 1-beta1);  v = beta2 v + (1-beta2) g^2;  denom = sqrt(v / (1-beta2^t)) + eps
    p -= lr (1-mu_t)/(1-mu_product) * g/denom + lr mu_{t+1}/(1-mu_product*mu_{t+1}) * m/denom

State: `step`, `mu_product` (0-dim float32), `exp_avg`, `exp_avg_sq`.
"""
import numpy as np

from . import _checks, _storage
from ._adam_moments import adam_hyper, decay_and_moments
from ._elementwise import ElementwiseOptimizer, advance_step, apply_rule, read_scalar, scalar_state, write_scalar
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["NAdam"]


class NAdam(ElementwiseOptimizer, Optimizer):
    _setstate_group_defaults = dict(maximize=False, foreach=None, capturable=False, differentiable=False,
                                    decoupled_weight_decay=False)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    @staticmethod
    def _hyper(group):
        return dict(adam_hyper(group), momentum_decay=group["momentum_decay"])

    @staticmethod
    def _prepare_state(param, state, group):
        if len(state) == 0:
            _storage.check_real(param, "NAdam")
            state["step"] = _storage.step_tensor(0.0)
            state["mu_product"] = scalar_state(1.0)
            state["exp_avg"] = _storage.zeros_like_param(param)
            state["exp_avg_sq"] = _storage.zeros_like_param(param)

    @staticmethod
    def _update(param, grad, state, *, maximize, beta1, momentum_decay, **hyper):
        step = advance_step(state["step"])
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        # (a float32 tensor times a Python float: torch multiplies in float32)
        mu_product = write_scalar(state["mu_product"], np.float32(read_scalar(state["mu_product"])) * np.float32(mu))
        apply_rule(_rule, param, grad, state, ("exp_avg", "exp_avg_sq"), maximize, step=step, beta1=beta1, mu=mu,
                   mu_next=mu_next, mu_product=mu_product, **hyper)


def _rule(m, p, g, s, *, step, lr, beta1, beta2, eps, weight_decay, decoupled, mu, mu_next, mu_product):
    p, g, exp_avg, exp_avg_sq = decay_and_moments(m, p, g, s, lr=lr, beta1=beta1, beta2=beta2,
                                                  weight_decay=weight_decay, decoupled=decoupled)
    denom = m.sqrt(exp_avg_sq / (1 - beta2 ** step)) + eps
    p = p + (-lr * (1.0 - mu) / (1.0 - mu_product)) * (g / denom)
    p = p + ((-lr * mu_next) / (1.0 - mu_product * mu_next)) * (exp_avg / denom)
    return {"exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq, "param": p}
