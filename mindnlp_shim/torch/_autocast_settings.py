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


# torch keeps older per-device names (is_autocast_cpu_enabled, set_autocast_gpu_dtype ...) that warn and then do
# what the device-type form does; each is built below for its device.
def _named(function, name):
    function.__name__ = function.__qualname__ = name
    return function


def _is_enabled_spelling(device):
    def is_enabled():
        _deprecated(f"is_autocast_{device}_enabled()", f"is_autocast_enabled('{device}')")
        return _is_enabled(device)
    return _named(is_enabled, f"is_autocast_{device}_enabled")


def _set_enabled_spelling(device):
    def set_enabled(enabled):
        _deprecated(f"set_autocast_{device}_enabled(enabled)", f"set_autocast_enabled('{device}', enabled)")
        _write(device, enabled=enabled)
    return _named(set_enabled, f"set_autocast_{device}_enabled")


def _get_dtype_spelling(device):
    def get_dtype():
        _deprecated(f"get_autocast_{device}_dtype()", f"get_autocast_dtype('{device}')")
        return _get_dtype(device)
    return _named(get_dtype, f"get_autocast_{device}_dtype")


def _set_dtype_spelling(spelled, device_type):
    def set_dtype(dtype):
        _deprecated(f"set_autocast_{spelled}_dtype(dtype)", f"set_autocast_dtype('{device_type}', dtype)")
        _write(device_type, dtype=dtype)
    return _named(set_dtype, f"set_autocast_{spelled}_dtype")


is_autocast_cpu_enabled = _is_enabled_spelling("cpu")
is_autocast_ipu_enabled = _is_enabled_spelling("ipu")
is_autocast_xla_enabled = _is_enabled_spelling("xla")
set_autocast_cpu_enabled = _set_enabled_spelling("cpu")
set_autocast_ipu_enabled = _set_enabled_spelling("ipu")
set_autocast_xla_enabled = _set_enabled_spelling("xla")
get_autocast_cpu_dtype = _get_dtype_spelling("cpu")
get_autocast_ipu_dtype = _get_dtype_spelling("ipu")
get_autocast_xla_dtype = _get_dtype_spelling("xla")
set_autocast_cpu_dtype = _set_dtype_spelling("cpu", "cpu")
set_autocast_gpu_dtype = _set_dtype_spelling("gpu", "cuda")
set_autocast_ipu_dtype = _set_dtype_spelling("ipu", "ipu")
set_autocast_xla_dtype = _set_dtype_spelling("xla", "xla")


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
