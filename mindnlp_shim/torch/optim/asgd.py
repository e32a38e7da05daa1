"""torch.optim.ASGD (averaged SGD), with torch's update rule:

    g = -grad if maximize else grad;  g = g + wd*p
    p = p * (1 - lambd*eta) - eta*g
    ax = p when mu == 1, else ax + mu (p - ax)
    eta = lr / (1 + lambd*lr*t)^alpha;  mu = 1 / max(1, t - t0)   (both stored as float32, used next step)

State: `step`, `eta`, `mu` (0-dim float32), `ax`.
"""
from . import _checks, _storage
from ._elementwise import ElementwiseOptimizer, advance_step, apply_rule, read_scalar, scalar_state, write_scalar
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["ASGD"]


class ASGD(ElementwiseOptimizer, Optimizer):
    _setstate_group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _checks.check_lr(lr)
        _checks.check_weight_decay(weight_decay)
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    @staticmethod
    def _hyper(group):
        return dict(lr=_storage.as_float(group["lr"]), lambd=group["lambd"], alpha=group["alpha"], t0=group["t0"],
                    weight_decay=group["weight_decay"], maximize=group["maximize"])

    @staticmethod
    def _prepare_state(param, state, group):
        if len(state) == 0:
            _storage.check_real(param, "ASGD")
            state["step"] = _storage.step_tensor(0.0)
            state["eta"] = scalar_state(_storage.as_float(group["lr"]))
            state["mu"] = scalar_state(1.0)
            state["ax"] = _storage.zeros_like_param(param)

    @staticmethod
    def _update(param, grad, state, *, maximize, lr, lambd, alpha, t0, weight_decay):
        step = advance_step(state["step"])
        eta, mu = read_scalar(state["eta"]), read_scalar(state["mu"])
        apply_rule(_rule, param, grad, state, ("ax",), maximize, eta=eta, mu=mu, lambd=lambd,
                   weight_decay=weight_decay)
        write_scalar(state["eta"], lr / ((1 + lambd * lr * step) ** alpha))
        write_scalar(state["mu"], 1 / max(1, step - t0))


def _rule(m, p, g, s, *, eta, mu, lambd, weight_decay):
    if weight_decay != 0:
        g = g + weight_decay * p
    p = p * (1 - lambd * eta)
    p = p + (-eta) * g
    ax = p if mu == 1 else s["ax"] + (p - s["ax"]) * mu
    return {"param": p, "ax": ax}
