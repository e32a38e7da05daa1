"""torch's functions that read and set the autocast state outside a `with torch.autocast(...)` block: per device
type (set_autocast_enabled / set_autocast_dtype and their older per-device spellings), the cast-cache flag and the
nesting counter. They write the same per-thread state `torch.autocast` regions use (amp/autocast_mode.py), so
ops and regions see them alike. The older spellings warn as torch's do. The shim keeps no cast cache:
clear_autocast_cache has nothing to clear."""
import threading
import warnings

from .amp import autocast_mode

# default dtypes torch reports for device types this process holds no tensors on
_STATE_ONLY_DEFAULTS = {"ipu": "float16", "xla": "bfloat16"}


class _Counters(threading.local):
    def __init__(self):
        self.nesting = 0
        self.cache_enabled = True


_counters = _Counters()


def _dtype_default(device_type):
    if device_type in _STATE_ONLY_DEFAULTS:
        import importlib

        return getattr(importlib.import_module(__package__), _STATE_ONLY_DEFAULTS[device_type])
    return autocast_mode.get_dtype(device_type)


def _region(device_type):
    return autocast_mode._thread.regions.get(device_type)


def _write(device_type, enabled=None, dtype=None):
    region = _region(device_type)
    was_open = region is not None
    current = region if was_open else (False, _dtype_default(device_type), _counters.cache_enabled)
    autocast_mode._thread.regions[device_type] = (current[0] if enabled is None else bool(enabled),
                                                  current[1] if dtype is None else dtype, current[2])
    if not was_open and device_type == autocast_mode.PROCESS_DEVICE_TYPE:
        autocast_mode.open_process_regions += 1  # (ops then consult the state, as inside a region)


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:  # the older one-argument form sets "cuda"
        device_type, enabled = "cuda", device_type
    if not isinstance(device_type, str):
        raise TypeError("set_autocast_enabled(): argument 'device_type' must be str")
    if device_type not in _STATE_ONLY_DEFAULTS:
        autocast_mode._check_device_type(device_type)
    _write(device_type, enabled=enabled)


def set_autocast_dtype(device_type, dtype):
    if device_type not in _STATE_ONLY_DEFAULTS:
        autocast_mode._check_device_type(device_type)
    _write(device_type, dtype=dtype)


def _is_enabled(device_type):
    region = _region(device_type)
    return bool(region[0]) if region is not None else False


def _get_dtype(device_type):
    region = _region(device_type)
    return region[1] if region is not None else _dtype_default(device_type)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _is_enabled("cpu")


def is_autocast_ipu_enabled():
    _deprecated("is_autocast_ipu_enabled()", "is_autocast_enabled('ipu')")
    return _is_enabled("ipu")


def is_autocast_xla_enabled():
    _deprecated("is_autocast_xla_enabled()", "is_autocast_enabled('xla')")
    return _is_enabled("xla")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _write("cpu", enabled=enabled)


def set_autocast_ipu_enabled(enabled):
    _deprecated("set_autocast_ipu_enabled(enabled)", "set_autocast_enabled('ipu', enabled)")
    _write("ipu", enabled=enabled)


def set_autocast_xla_enabled(enabled):
    _deprecated("set_autocast_xla_enabled(enabled)", "set_autocast_enabled('xla', enabled)")
    _write("xla", enabled=enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _get_dtype("cpu")


def get_autocast_ipu_dtype():
    _deprecated("get_autocast_ipu_dtype()", "get_autocast_dtype('ipu')")
    return _get_dtype("ipu")


def get_autocast_xla_dtype():
    _deprecated("get_autocast_xla_dtype()", "get_autocast_dtype('xla')")
    return _get_dtype("xla")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _write("cpu", dtype=dtype)


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _write("cuda", dtype=dtype)


def set_autocast_ipu_dtype(dtype):
    _deprecated("set_autocast_ipu_dtype(dtype)", "set_autocast_dtype('ipu', dtype)")
    _write("ipu", dtype=dtype)


def set_autocast_xla_dtype(dtype):
    _deprecated("set_autocast_xla_dtype(dtype)", "set_autocast_dtype('xla', dtype)")
    _write("xla", dtype=dtype)


def is_autocast_cache_enabled():
    return _counters.cache_enabled


def set_autocast_cache_enabled(enabled):
    _counters.cache_enabled = bool(enabled)


def clear_autocast_cache():
    return None


def autocast_increment_nesting():
    _counters.nesting += 1
    return _counters.nesting


def autocast_decrement_nesting():
    _counters.nesting -= 1
    return _counters.nesting


__all__ = ["set_autocast_enabled", "set_autocast_dtype", "is_autocast_cpu_enabled", "is_autocast_ipu_enabled",
           "is_autocast_xla_enabled", "set_autocast_cpu_enabled", "set_autocast_ipu_enabled", "set_autocast_xla_enabled",
           "get_autocast_cpu_dtype", "get_autocast_ipu_dtype", "get_autocast_xla_dtype", "set_autocast_cpu_dtype",
           "set_autocast_gpu_dtype", "set_autocast_ipu_dtype", "set_autocast_xla_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting"]
