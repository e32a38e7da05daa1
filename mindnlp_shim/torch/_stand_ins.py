"""Inert stand-ins for torch attributes that upstream libraries only touch at import time or probe.

Each entry says what it answers and why that answer is true on MindSpore. Listed in docs/stand-ins.md.
Everything here is either a constant query answer or a placeholder type that no real object is an instance of.
"""


class _NeverInstantiated:
    """Placeholder type for isinstance checks against torch internals that cannot exist here (FakeTensor,
    fx.Proxy, DTensor, ...): no object is ever an instance of it, which is the truthful answer."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} is a torch internal with no MindSpore equivalent")


def placeholder_type(qualname):
    return type(qualname.rsplit(".", 1)[-1], (_NeverInstantiated,), {"__qualname__": qualname})


def returns(value, doc):
    def fn(*args, **kwargs):
        return value

    fn.__doc__ = doc
    return fn


def identity_decorator(doc):
    """Decorators such as `torch.compiler.disable` or `torch._dynamo.allow_in_graph`: no graph compiler
    runs over the code, so the decorated function is returned unchanged."""

    def deco(fn=None, *args, **kwargs):
        if fn is None or not callable(fn):
            return lambda f: f
        return fn

    deco.__doc__ = doc
    return deco


# top-level torch attributes (reached through `torch.<name>` by module __getattr__)
TORCH_ATTRIBUTES = {
    "float8_e4m3fnuz": None,  # dtype torch defines for some accelerators; MindSpore has no such dtype
    "float8_e5m2fnuz": None,
    "_assert": lambda condition, message: None if condition else (_ for _ in ()).throw(AssertionError(message)),
}
