"""torch.optim.Adamax (Adam with the infinity norm), with torch's update rule:

    g = -grad if maximize else grad;  g = g + wd*p
    m = lerp(m, g, 1-beta1);  u = max(beta2*u, |g| + eps);  p -= lr/(1-beta1^t) * m/u

State: `step` (0-dim float32), `exp_avg`, `exp_inf`.
"""
from . import _checks, _storage
from ._elementwise import ElementwiseOptimizer, advance_step, apply_rule
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["Adamax"]


class Adamax(ElementwiseOptimizer, Optimizer):
    _setstate_group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    @staticmethod
    def _hyper(group):
        beta1, beta2 = (_storage.as_float(b) for b in group["betas"])
        return dict(lr=_storage.as_float(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
                    weight_decay=group["weight_decay"], maximize=group["maximize"])

    @staticmethod
    def _prepare_state(param, state, group):
        if len(state) == 0:
            _storage.check_real(param, "Adamax")
            state["step"] = _storage.step_tensor(0.0)
            state["exp_avg"] = _storage.zeros_like_param(param)
            state["exp_inf"] = _storage.zeros_like_param(param)

    @staticmethod
    def _update(param, grad, state, *, maximize, **hyper):
        step = advance_step(state["step"])
        apply_rule(_rule, param, grad, state, ("exp_avg", "exp_inf"), maximize, step=step, **hyper)


def _rule(m, p, g, s, *, step, lr, beta1, beta2, eps, weight_decay):
    if weight_decay != 0:
        g = g + weight_decay * p
    exp_avg = m.lerp(s["exp_avg"], g, 1 - beta1)
    exp_inf = m.maximum(s["exp_inf"] * beta2, m.abs(g) + eps)
    clr = lr / (1 - beta1 ** step)
    return {"exp_avg": exp_avg, "exp_inf": exp_inf, "param": p + (-clr) * (exp_avg / exp_inf)}
