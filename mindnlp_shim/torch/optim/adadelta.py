"""torch.optim.Adadelta, with torch's update rule:

    g = -grad if maximize else grad;  g = g + wd*p
    v = rho v + (1-rho) g^2;  delta = sqrt(u + eps) / sqrt(v + eps) * g;  u = rho u + (1-rho) delta^2
    p -= lr * delta

State: `step` (0-dim float32), `square_avg`, `acc_delta`.
"""
from . import _checks, _storage
from ._elementwise import ElementwiseOptimizer, advance_step, apply_rule
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["Adadelta"]


class Adadelta(ElementwiseOptimizer, Optimizer):
    _setstate_group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _checks.check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _checks.check_eps(eps)
        _checks.check_weight_decay(weight_decay)
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    @staticmethod
    def _hyper(group):
        return dict(lr=_storage.as_float(group["lr"]), rho=group["rho"], eps=group["eps"],
                    weight_decay=group["weight_decay"], maximize=group["maximize"])

    @staticmethod
    def _prepare_state(param, state, group):
        if len(state) == 0:
            _storage.check_real(param, "Adadelta")
            state["step"] = _storage.step_tensor(0.0)
            state["square_avg"] = _storage.zeros_like_param(param)
            state["acc_delta"] = _storage.zeros_like_param(param)

    @staticmethod
    def _update(param, grad, state, *, maximize, **hyper):
        advance_step(state["step"])
        apply_rule(_rule, param, grad, state, ("square_avg", "acc_delta"), maximize, **hyper)


def _rule(m, p, g, s, *, lr, rho, eps, weight_decay):
    if weight_decay != 0:
        g = g + weight_decay * p
    square_avg = s["square_avg"] * rho + (1 - rho) * g * g
    delta = m.sqrt(s["acc_delta"] + eps) / m.sqrt(square_avg + eps) * g
    acc_delta = s["acc_delta"] * rho + (1 - rho) * delta * delta
    return {"square_avg": square_avg, "acc_delta": acc_delta, "param": p + (-lr) * delta}
