"""torch.library: custom-op registration. Ops declared with `custom_op` run as the plain Python function."""
from .. import _stand_ins


class _CustomOp:
    """What `custom_op` returns: callable like the function, with the registration methods transformers uses."""

    def __init__(self, fn):
        self._fn = fn
        self.__name__ = getattr(fn, "__name__", "custom_op")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def register_fake(self, fn):
        return fn  # fake (meta) kernels are for torch's tracer, which does not run here

    def register_autograd(self, backward, setup_context=None):
        pass  # the op runs as its Python body, whose torch ops the tape differentiates directly

    def register_kernel(self, device_types, fn=None):
        return (lambda f: f) if fn is None else fn


def custom_op(name, fn=None, /, *, mutates_args=(), device_types=None, schema=None):
    if fn is None:
        return lambda f: _CustomOp(f)
    return _CustomOp(fn)


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    return (lambda f: f) if fn is None else fn


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    pass  # the op runs as its Python body, whose torch ops the tape differentiates directly


def impl(*args, **kwargs):
    return lambda f: f


Library = _stand_ins.placeholder_type("torch.library.Library")
