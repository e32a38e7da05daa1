"""torch.autocast: mixed-precision regions.

On MindSpore's CPU target the low-precision kernels are missing (bf16) or 5-40x slower than float32 (fp16), so
ops inside a CPU autocast region compute in float32; that is the float32 fallback torch also applies to ops
without low-precision kernels. The region's state is tracked so `torch.is_autocast_enabled()` and
`get_autocast_dtype()` answer as in torch.
"""
import functools

import mindspore

_state = {}  # device_type -> (enabled, dtype)
_DEFAULT_DTYPE = {"cpu": mindspore.bfloat16, "cuda": mindspore.float16, "npu": mindspore.float16}


def is_enabled(device_type=None):
    if device_type is None:
        return any(enabled for enabled, _ in _state.values())
    return _state.get(device_type, (False, None))[0]


def get_dtype(device_type):
    return _state.get(device_type, (False, _DEFAULT_DTYPE.get(device_type, mindspore.float16)))[1]


class autocast:
    def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device_type = device_type
        self.fast_dtype = dtype or _DEFAULT_DTYPE.get(device_type, mindspore.float16)
        self._enabled = enabled

    def __enter__(self):
        self._prev = _state.get(self.device_type)
        _state[self.device_type] = (self._enabled, self.fast_dtype)
        return self

    def __exit__(self, *exc):
        if self._prev is None:
            _state.pop(self.device_type, None)
        else:
            _state[self.device_type] = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)

        return wrapper


def custom_fwd(fwd=None, *, device_type="cuda", cast_inputs=None):
    return fwd if fwd is not None else (lambda f: f)


def custom_bwd(bwd=None, *, device_type="cuda"):
    return bwd if bwd is not None else (lambda f: f)
