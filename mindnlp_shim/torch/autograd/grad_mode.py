"""Grad-mode switches (`no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`) on MindSpore's executor."""
import functools

from ... import _mindspore as _ms

from .._runtime import ensure_recording, grad_enabled


def is_grad_enabled():
    return bool(grad_enabled())


def _set_enabled(mode):
    _ms.set_grad_enabled(bool(mode))
    if mode:
        ensure_recording()


class _GradModeContext:
    """Context manager and decorator that sets grad mode and restores the previous one."""

    _mode = None

    def __enter__(self):
        self._prev = is_grad_enabled()
        _set_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _set_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeContext):
    _mode = False

    def __init__(self, orig_func=None):
        # torch allows both `@no_grad` and `@no_grad()`
        self._orig = orig_func

    def __new__(cls, orig_func=None):
        obj = super().__new__(cls)
        if callable(orig_func):
            obj.__init__()
            return obj(orig_func)
        return obj


class enable_grad(no_grad):
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode immediately (torch semantics), and restores it when used as a context manager."""

    def __init__(self, mode):
        self._prev = is_grad_enabled()
        self._mode = bool(mode)
        _set_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set_enabled(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode
        _set_enabled(self._prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return set_grad_enabled(self._mode)


_inference = [False]  # whether an inference_mode(True) region is innermost (is_inference_mode_enabled)


class inference_mode(_GradModeContext):
    """No recording, like no_grad (MindSpore has no separate inference tensors); inference_mode(False) inside it
    turns recording back on and is_inference_mode_enabled() off for its region."""

    def __init__(self, mode=True):
        self._mode = not mode

    def __enter__(self):
        self._prev_inference = _inference[0]
        _inference[0] = not self._mode
        return super().__enter__()

    def __exit__(self, *exc):
        _inference[0] = self._prev_inference
        return super().__exit__(*exc)

    def __new__(cls, mode=True):
        obj = super().__new__(cls)
        if callable(mode):
            obj.__init__(True)
            return obj(mode)
        return obj

    def __call__(self, fn):
        mode = not self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper


def is_inference_mode_enabled():
    return _inference[0]
