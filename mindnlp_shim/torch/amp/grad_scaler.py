"""torch.amp.GradScaler: dynamic loss scaling with torch's semantics.

`scale(loss)` multiplies by the current scale; `unscale_(opt)` divides the gradients in place by it and
records whether any was inf/nan (checked on the values as they arrive, before dividing, as torch does);
`step(opt)` runs the optimizer only when none was; `update()` backs the scale off after an overflow and grows
it after `growth_interval` clean steps. The scale and its arithmetic are float32, like torch's scale tensor,
so the sequence of scales matches torch's exactly.

On the CPU target the unscale runs in NumPy on zero-copy views of the gradients (one pass each, like the
optimizers); other targets use device kernels.

Device: torch disables a "cuda" scaler (with a warning) when CUDA is unavailable, and so does the shim on the
CPU target. On Ascend, accelerate asks for "cuda" whenever torch_npu is not importable, so there a "cuda"
scaler serves the NPU instead of being disabled.
"""
import enum
import warnings

import numpy as np
import mindspore
from mindspore import ops

from .._runtime import DEVICE_TARGET

Tensor = mindspore.Tensor


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _scale_check_message(funcname):
    return (f"Attempted {funcname} but _scale is None.  This may indicate your script did not use "
            f"scaler.scale(loss or outputs) earlier in the iteration.")


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda" and DEVICE_TARGET == "CPU":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if not self._enabled:
            return
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None  # a float32 0-dim tensor once `scale()` first runs, as in torch
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer_states = {}

    # ------------------------------------------------------------------ scale
    def _lazy_init_scale_growth_tracker(self, dev=None):
        self._scale = Tensor(np.array(self._init_scale, dtype=np.float32))
        self._growth_tracker = int(self._init_growth_tracker)

    def _scale_value(self):
        return np.float32(self._scale.asnumpy())

    def _set_scale(self, value):
        self._scale = Tensor(np.array(value, dtype=np.float32))

    def scale(self, outputs):
        """Multiply a tensor (or an iterable of tensors, nested) by the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None and (isinstance(outputs, Tensor) or hasattr(outputs, "__iter__")):
            self._lazy_init_scale_growth_tracker()
        return self._apply_scale(outputs)

    def _apply_scale(self, value):
        if isinstance(value, Tensor):
            return value * self._scale
        if isinstance(value, (list, tuple)):
            return type(value)(self._apply_scale(v) for v in value)
        if hasattr(value, "__iter__") and not isinstance(value, (str, bytes)):
            return map(self._apply_scale, value)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    # ------------------------------------------------------------------ unscale
    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_optimizer_state())

    def _grads(self, optimizer, allow_fp16):
        grads = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype == mindspore.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads.append(grad)
        return grads

    def _unscale_grads_(self, optimizer, inv_scale, allow_fp16):
        """Multiply every gradient in place by `inv_scale` (float32); whether any held inf/nan before (None
        when there are no gradients, so nothing was checked)."""
        from ..optim import _storage

        grads = self._grads(optimizer, allow_fp16)
        if not grads:
            return None
        found_inf = False
        if _storage.uses_host_math():
            for grad in grads:
                array, is_copy = _storage.host_array(grad)
                if not found_inf and not np.isfinite(array).all():
                    found_inf = True
                if inv_scale != 1.0:
                    with np.errstate(over="ignore", invalid="ignore"):
                        np.multiply(array, inv_scale, out=array, casting="unsafe")
                _storage.release(grad, array, is_copy)
            return found_inf
        flags = []
        for grad in grads:
            flags.append(ops.logical_not(ops.isfinite(grad).all()))
            if inv_scale != 1.0:
                scaled = ops.mul(grad.astype(mindspore.float32), float(inv_scale)).astype(grad.dtype)
                _storage.assign(grad, scaled)
        return bool(ops.stack(flags).any().asnumpy())

    def unscale_(self, optimizer):
        """Divide `optimizer`'s gradients by the scale, in place (once per `update()`)."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError(_scale_check_message("unscale_"))
        state = self._state(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # torch takes the reciprocal in float64 and rounds it to float32
        inv_scale = np.float32(1.0 / np.float64(self._scale_value()))
        found_inf = self._unscale_grads_(optimizer, inv_scale, allow_fp16=False)
        state["found_inf_per_device"] = {} if found_inf is None else {
            self._device: Tensor(np.array(float(found_inf), dtype=np.float32))}
        state["stage"] = OptState.UNSCALED

    # ------------------------------------------------------------------ step / update
    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done already) and run `optimizer.step(*args, **kwargs)` unless a gradient was
        inf/nan; returns what the optimizer's step returned, or None when the step was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._scale is None:
            raise AssertionError(_scale_check_message("step"))
        state = self._state(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not any(float(v.asnumpy()) for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Set the scale for the next iteration: `new_scale` if given, else back off after an inf/nan or grow
        after `growth_interval` clean iterations."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError(_scale_check_message("update"))
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.size != 1 or new_scale.requires_grad:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                new_scale = new_scale.asnumpy().reshape(())
            self._set_scale(new_scale)
        else:
            found_infs = [v for state in self._per_optimizer_states.values()
                          for v in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            # the product is formed in double precision and rounded to the float32 scale, as torch's kernel does
            scale = np.float64(self._scale_value())
            if any(float(v.asnumpy()) for v in found_infs):
                self._set_scale(scale * self._backoff_factor)
                self._growth_tracker = 0
            elif self._growth_tracker + 1 == self._growth_interval:
                with np.errstate(over="ignore"):
                    grown = np.float32(scale * self._growth_factor)
                if np.isfinite(grown):
                    self._set_scale(grown)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
        self._per_optimizer_states = {}

    # ------------------------------------------------------------------ queries and settings
    def get_scale(self):
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else float(self._scale_value())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def is_enabled(self):
        return self._enabled

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self):
        """The settings and the current scale as plain Python numbers ({} when disabled), like torch."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._set_scale(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) > 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an iteration, "
                                     "or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
