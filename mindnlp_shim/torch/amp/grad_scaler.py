"""torch.amp.GradScaler: dynamic loss scaling; steps whose gradients hold inf/nan are skipped."""
import math

import numpy as np
import mindspore
from mindspore import ops


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer = {}  # id(optimizer) -> {"unscaled": bool, "found_inf": bool}

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if isinstance(outputs, mindspore.Tensor):
            return ops.mul(outputs, self._scale)
        return type(outputs)(self.scale(o) for o in outputs)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "found_inf": False})

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["unscaled"]:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        inv = 1.0 / self._scale
        found_inf = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                g = ops.mul(g, inv)
                p.grad = g
                if not found_inf and not np.isfinite(g.asnumpy()).all():
                    found_inf = True
        state.update(unscaled=True, found_inf=found_inf)

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        state = self._state(optimizer)
        if not state["unscaled"]:
            self.unscale_(optimizer)
        if state["found_inf"]:
            return None  # skip the step: the scale was too large for these gradients
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, mindspore.Tensor) else new_scale)
        elif any(s["found_inf"] for s in self._per_optimizer.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._per_optimizer.clear()

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
