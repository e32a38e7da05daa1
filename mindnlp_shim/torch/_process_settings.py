"""Process-wide settings torch exposes at the top level beside those of _functions.py: the deterministic debug
mode (another view of use_deterministic_algorithms), flush-denormal mode and the legacy default tensor type."""
from . import _functions

_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """0/'default': off; 1/'warn': deterministic algorithms, warning only; 2/'error': deterministic."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    _functions.use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _functions.are_deterministic_algorithms_enabled():
        return 0
    return 1 if _functions.is_deterministic_algorithms_warn_only_enabled() else 2


def set_flush_denormal(mode):
    """False: MindSpore's CPU kernels offer no switch for flushing denormals (torch answers False where the CPU
    cannot do it), so nothing was changed."""
    return False


def set_default_tensor_type(t):
    """The default dtype from a legacy floating tensor type (torch.DoubleTensor or its name)."""
    from . import _dtype
    from ._legacy_types import dtype_of

    try:
        dt = dtype_of(t)
    except ValueError as exc:
        raise TypeError(str(exc)) from None
    if dt not in _dtype.FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(dt)
