"""One definition of an element-wise update rule for both update paths.

A rule is a pure function `rule(m, p, g, s, **hyper) -> {name: new value}` over the parameter `p`, the gradient
`g` (already negated for `maximize`) and the per-element state arrays `s` (a dict). `m` is the math namespace
of the path: `HOST` works on NumPy arrays (the CPU target, in the compute dtype of `_work.Working`), `DEVICE`
on MindSpore tensors in float32 (GPU/Ascend). Only the arithmetic operators and the functions of the namespace
are used, so the same rule runs on both. The key "param" names the parameter's new value.
"""
import numpy as np
import mindspore
from mindspore import ops

from . import _storage
from ._work import Working


def _lerp(m, start, end, weight):
    # torch's lerp: the formula depends on which end `weight` is closer to (the roundings differ)
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


class _HostMath:
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)
    sign = staticmethod(np.sign)
    maximum = staticmethod(np.maximum)
    clip = staticmethod(np.clip)

    @staticmethod
    def where(condition, x, y):
        # (a Python number operand must not widen the array's dtype)
        dtype = next(v.dtype for v in (x, y) if isinstance(v, np.ndarray))
        return np.where(condition, x, y).astype(dtype, copy=False)

    def lerp(self, start, end, weight):
        return _lerp(self, start, end, weight)


class _DeviceMath:
    sqrt = staticmethod(ops.sqrt)
    abs = staticmethod(ops.abs)
    sign = staticmethod(ops.sign)
    maximum = staticmethod(ops.maximum)

    @staticmethod
    def clip(x, low, high):
        return ops.clamp(x, low, high)

    @staticmethod
    def where(condition, x, y):
        like = y if isinstance(y, mindspore.Tensor) else x
        as_tensor = (lambda v: v if isinstance(v, mindspore.Tensor) else ops.full_like(like, v))
        return ops.where(condition, as_tensor(x), as_tensor(y))

    def lerp(self, start, end, weight):
        return _lerp(self, start, end, weight)


HOST = _HostMath()
DEVICE = _DeviceMath()


def apply_rule(rule, param, grad, state, names, maximize, **hyper):
    """Run `rule` for one parameter on the path of this target and write the new values in place."""
    if _storage.uses_host_math():
        work = Working()
        p = work.open(param)
        arrays = {name: work.open(state[name]) for name in names}
        g = work.read(grad)
        if maximize:
            g = np.negative(g)
        new = rule(HOST, p, g, arrays, **hyper)
        for name, value in new.items():
            target = p if name == "param" else arrays[name]
            target[...] = value
        work.finish()
        return
    f32 = mindspore.float32
    p = param.astype(f32)
    g = ops.neg(grad.astype(f32)) if maximize else grad.astype(f32)
    tensors = {name: state[name].astype(f32) for name in names}
    new = rule(DEVICE, p, g, tensors, **hyper)
    for name, value in new.items():
        target = param if name == "param" else state[name]
        _storage.assign(target, value.astype(target.dtype))


class ElementwiseOptimizer:
    """Mixin for optimizers written as one rule: subclasses define `_hyper(group)` (keyword arguments of
    `_update`), `_prepare_state(param, state, group)` and `_update(param, grad, state, **hyper)`."""

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        update = self._update
        return self._step_params(closure, self._hyper, self._prepare_state,
                                 lambda param, grad, state, _buffers, **hyper: update(param, grad, state, **hyper),
                                 update)


def scalar_state(value):
    """A 0-dim float32 state tensor (torch keeps `step`, `eta`, `mu`, `mu_product` so)."""
    return _storage.step_tensor(value)


def read_scalar(tensor):
    return _storage.as_float(tensor)


def write_scalar(tensor, value):
    """Store `value` in the 0-dim float32 state tensor, rounded to float32 as torch's copy_ does; returns the
    stored value as a Python float."""
    rounded = float(np.float32(value))
    if _storage.uses_host_math():
        array, is_copy = _storage.host_array(tensor)
        array[...] = rounded
        _storage.release(tensor, array, is_copy)
    else:
        _storage.assign(tensor, _storage.step_tensor(rounded))
    return rounded


def advance_step(step):
    """Add one to the step-count tensor in place on this target's path; returns the new count."""
    if _storage.uses_host_math():
        return _storage.advance_step_on_host(step)
    return _storage.advance_step_on_device(step)
