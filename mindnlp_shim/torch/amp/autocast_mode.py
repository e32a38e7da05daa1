"""torch.autocast: mixed-precision regions, with torch's per-thread, per-device-type state.

The region's state answers `torch.is_autocast_enabled(device_type)` and `torch.get_autocast_dtype(device_type)`
as in torch (nesting, `enabled=False`, unsupported dtypes disable the region with torch's warning). Which ops
change precision inside a region, and how, is `autocast_policy`'s job: the ops consult the state through
`cast_dtype_for(category)`.
"""
import collections.abc
import functools
import threading
import warnings

import mindspore

from .._device import PROCESS_DEVICE_TYPE, device as _device
from .._runtime import DEVICE_TARGET

F16, BF16, F32, F64 = mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64

# torch's default autocast dtype per device type (torch_npu's for "npu")
_DEFAULT_DTYPE = {"cpu": BF16, "cuda": F16, "npu": F16, "xpu": BF16, "hpu": BF16, "mps": F16}
# dtypes a region may use; any other dtype disables the region with a warning, as torch does
_SUPPORTED_DTYPES = {"cpu": (BF16, F16), "cuda": (F16, BF16), "npu": (F16, BF16)}
# Device types this process runs ops on. "cuda" exists only on MindSpore's GPU target; elsewhere torch's
# "CUDA is not available" rule applies. Other device types hold no tensors here, so their regions are state only.
_CUDA_AVAILABLE = DEVICE_TARGET == "GPU"


class _ThreadState(threading.local):
    def __init__(self):
        self.regions = {}  # device type -> (enabled, dtype, cache_enabled) of the innermost open region


_thread = _ThreadState()
# Regions open for the process's device type, over all threads: lets every autocast-aware op skip the
# per-thread lookup when no region is open (the common case) with one global read.
open_process_regions = 0


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type == "meta":
        raise RuntimeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    _device(device_type)  # raises torch's RuntimeError for an unknown device string


def is_enabled(device_type=None):
    """torch.is_autocast_enabled: without an argument torch answers for "cuda"."""
    device_type = "cuda" if device_type is None else device_type
    _check_device_type(device_type)
    return _thread.regions.get(device_type, (False,))[0]


def get_dtype(device_type):
    """torch.get_autocast_dtype: the innermost region's dtype, else the device type's default."""
    _check_device_type(device_type)
    region = _thread.regions.get(device_type)
    return region[1] if region is not None else _DEFAULT_DTYPE.get(device_type, F16)


def is_autocast_available(device_type):
    return device_type in ("cpu", PROCESS_DEVICE_TYPE) or (device_type == "cuda" and _CUDA_AVAILABLE)


def process_region_dtype():
    """The dtype of the innermost enabled region for the device type this process's tensors live on, or None."""
    region = _thread.regions.get(PROCESS_DEVICE_TYPE)
    return region[1] if region is not None and region[0] else None


class autocast:
    """`torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`: context manager and
    decorator. Entering sets this thread's state for `device_type`; leaving restores the previous state."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        self.device = device_type
        self.fast_dtype = get_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if enabled and device_type == "cuda" and not _CUDA_AVAILABLE:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        supported = _SUPPORTED_DTYPES.get(device_type)
        if enabled and supported is not None and self.fast_dtype not in supported:
            names = ", ".join(f"torch.{_torch_name(d)}" for d in supported)
            warnings.warn(f"In {device_type.upper()} autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\n{device_type.upper()} Autocast only supports dtypes of {names} currently.",
                          stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        global open_process_regions
        if not isinstance(self._enabled, bool):
            raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be bool, "
                            f"not {type(self._enabled).__name__}")
        self._previous = _thread.regions.get(self.device)
        _thread.regions[self.device] = (self._enabled, self.fast_dtype, self._cache_enabled)
        if self.device == PROCESS_DEVICE_TYPE:
            open_process_regions += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        global open_process_regions
        if self._previous is None:
            _thread.regions.pop(self.device, None)
        else:
            _thread.regions[self.device] = self._previous
        if self.device == PROCESS_DEVICE_TYPE:
            open_process_regions -= 1
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def decorate_autocast(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)

        return decorate_autocast


def _torch_name(dtype):
    return {F16: "float16", BF16: "bfloat16", F32: "float32"}.get(dtype, str(dtype))


def snapshot():
    """This thread's autocast state, to re-enter later (activation checkpointing recomputes under it)."""
    return dict(_thread.regions)


class restored:
    """Context manager that runs a block under a `snapshot()` of the autocast state."""

    def __init__(self, state):
        self._state = state

    def __enter__(self):
        global open_process_regions
        self._previous = _thread.regions
        _thread.regions = dict(self._state)
        self._counted = PROCESS_DEVICE_TYPE in self._state
        open_process_regions += self._counted
        return self

    def __exit__(self, *exc):
        global open_process_regions
        _thread.regions = self._previous
        open_process_regions -= self._counted
        return False


def _is_eligible(value):
    return isinstance(value, mindspore.Tensor) and value.dtype in (F16, BF16, F32)


def _cast(value, device_type, dtype):
    """Cast every floating tensor (not float64) in a nested structure to `dtype` (torch.amp.autocast_mode._cast)."""
    if _is_eligible(value):
        return value if value.dtype == dtype else value.to(dtype)
    if isinstance(value, (str, bytes)) or value is None:
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        cast = [_cast(v, device_type, dtype) for v in value]
        return type(value)(*cast) if hasattr(value, "_fields") else type(value)(cast)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's forward: with `cast_inputs`, floating tensor arguments are cast to that
    dtype and the forward runs with autocast off; the backward (see `custom_bwd`) runs under the same state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(ctx, *args, **kwargs):
        ctx._autocast_dtype = get_dtype(device_type)
        running = is_enabled(device_type)
        if cast_inputs is None or not running:
            ctx._fwd_used_autocast = running
            return fwd(ctx, *args, **kwargs)
        ctx._fwd_used_autocast = False
        with autocast(device_type, enabled=False):
            return fwd(ctx, *_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's backward: runs it with the autocast state its forward ran with."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(ctx, *grads):
        with autocast(device_type, dtype=getattr(ctx, "_autocast_dtype", None),
                      enabled=getattr(ctx, "_fwd_used_autocast", False)):
            return bwd(ctx, *grads)

    return decorate_bwd
