"""Inert stand-ins for torch attributes that upstream libraries only touch at import time, or probe.

This is the one registry of such names (listed in docs/stand-ins.md). Each is one of:
- a query answer that is true on MindSpore (e.g. "is this code being compiled by dynamo?" -> False, because no
  torch graph compiler exists here);
- a placeholder type for `isinstance` checks against torch internals that cannot exist here (FakeTensor,
  fx.Proxy, DTensor, ...): constructing one raises NotImplementedError, and no object is an instance of it;
- an identity decorator for "compiler hints" (`torch.compiler.disable`, `_dynamo.allow_in_graph`): there is no
  torch compiler to hint, so the function itself is the right result.
"""


class _NeverInstantiated:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch {type(self).__qualname__} is a PyTorch internal with no MindSpore "
                                  f"equivalent; mindnlp-shim does not provide it")


def placeholder_type(qualname):
    """A type no object is ever an instance of; constructing it raises NotImplementedError."""
    return type(qualname.rsplit(".", 1)[-1], (_NeverInstantiated,), {"__qualname__": qualname})


def answer(value, doc):
    """A query function that always answers `value` (see `doc` for why that is true on MindSpore)."""

    def query(*args, **kwargs):
        return value

    query.__doc__ = doc
    return query


def identity_decorator(doc):
    """`@hint` and `@hint(...)` both return the decorated function unchanged."""

    def decorator(fn=None, *args, **kwargs):
        if callable(fn) and not args and not kwargs:
            return fn
        return lambda f: f

    decorator.__doc__ = doc
    return decorator


def unsupported(qualname, reason):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"torch.{qualname} is not supported on MindSpore: {reason}")

    fn.__name__ = qualname.rsplit(".", 1)[-1]
    return fn


NO_TORCH_COMPILER = "No torch graph compiler (dynamo/inductor/TorchScript/export) runs under mindnlp-shim."
is_compiling = answer(False, NO_TORCH_COMPILER)
compiler_hint = identity_decorator(NO_TORCH_COMPILER)


class memory_format:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def _assert(condition, message):
    if not condition:
        raise AssertionError(message)


# top-level `torch.<name>` attributes served by torch/__init__.py's module __getattr__
TORCH_ATTRIBUTES = {
    "contiguous_format": contiguous_format, "preserve_format": preserve_format, "channels_last": channels_last,
    "channels_last_3d": channels_last_3d, "_assert": _assert,
    "svd_lowrank": unsupported("svd_lowrank", "no randomized SVD is implemented"),
}
