"""torch.optim.Rprop (resilient backpropagation), with torch's update rule:

    g = -grad if maximize else grad
    factor = etaplus where g*prev > 0, etaminus where < 0, 1 where 0
    step_size = clamp(step_size * factor, step_size_min, step_size_max)
    g = 0 where factor == etaminus;  p -= sign(g) * step_size;  prev = g

State: `step` (0-dim float32), `prev`, `step_size` (filled with lr at the first step).
"""
import numpy as np
from mindspore import ops

from . import _checks, _storage
from ._elementwise import ElementwiseOptimizer, advance_step, apply_rule
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["Rprop"]


class Rprop(ElementwiseOptimizer, Optimizer):
    _setstate_group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _checks.check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_implementation_flags(type(self).__name__, foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    @staticmethod
    def _hyper(group):
        (etaminus, etaplus), (low, high) = group["etas"], group["step_sizes"]
        return dict(etaminus=etaminus, etaplus=etaplus, step_size_min=low, step_size_max=high,
                    maximize=group["maximize"])

    @staticmethod
    def _prepare_state(param, state, group):
        if len(state) == 0:
            _storage.check_real(param, "Rprop")
            state["step"] = _storage.step_tensor(0.0)
            state["prev"] = _storage.zeros_like_param(param)
            state["step_size"] = _filled_like(param, _storage.as_float(group["lr"]))

    @staticmethod
    def _update(param, grad, state, *, maximize, **hyper):
        advance_step(state["step"])
        apply_rule(_rule, param, grad, state, ("prev", "step_size"), maximize, **hyper)


def _filled_like(param, value):
    if _storage.uses_host_math():
        return _storage.zeros_state(param.asnumpy(), fill=value)
    return ops.fill(param.dtype, param.shape, value)


def _rule(m, p, g, s, *, etaminus, etaplus, step_size_min, step_size_max):
    product_sign = m.sign(g * s["prev"])
    # 1 where the sign is 0 (and NaN stays NaN, as in torch's chain of wheres)
    factor = m.where(product_sign > 0, etaplus, m.where(product_sign < 0, etaminus, product_sign * 0 + 1))
    step_size = m.clip(s["step_size"] * factor, step_size_min, step_size_max)
    g = m.where(factor == etaminus, 0.0 * g, g)
    return {"step_size": step_size, "prev": g, "param": p - m.sign(g) * step_size}
