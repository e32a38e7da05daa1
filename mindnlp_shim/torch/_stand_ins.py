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
        name = f"{type(self).__module__}.{type(self).__qualname__}"
        raise NotImplementedError(f"{name} is a PyTorch internal with no MindSpore equivalent; mindnlp-shim does "
                                  f"not provide it")


def placeholder_type(qualname):
    """A type no object is ever an instance of; constructing it raises NotImplementedError."""
    module, _, name = qualname.rpartition(".")
    return type(name, (_NeverInstantiated,), {"__qualname__": name, "__module__": module})


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


COMPILER_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile",
                    "aot_eager_then_compile")
_stance = ["default"]


class compiler_setting:
    """torch.compiler.set_stance: sets how torch.compile'd code runs, as a call, a context manager or a decorator.

    It is recorded (`current_stance()`) and has nothing to change: torch.compile runs the model eagerly here, which
    is what every stance allows (no compilation, so no recompilation to fail on or fall back from)."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.stance = stance
        self.prev = _stance[0]
        _stance[0] = stance

    def __enter__(self):
        _stance[0] = self.stance

    def __exit__(self, *exc_info):
        _stance[0] = self.prev

    def __call__(self, fn):
        import functools

        _stance[0] = self.prev  # as a decorator it applies only while `fn` runs

        @functools.wraps(fn)
        def with_stance(*args, **kwargs):
            with self.__class__(self.stance):
                return fn(*args, **kwargs)

        return with_stance


compiler_setting._compiler_setting_doc = ("recorded and without effect: torch.compile runs the model eagerly, "
                                          "which every stance allows")


def current_stance():
    """The stance last set with torch.compiler.set_stance (no effect here: see compiler_setting)."""
    return _stance[0]


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


# torch's device-agnostic stream type: code names it in annotations; MindSpore's streams are not torch streams
Stream = placeholder_type("torch.Stream")

# top-level `torch.<name>` attributes served by torch/__init__.py's module __getattr__
TORCH_ATTRIBUTES = {
    "Stream": Stream,
    "contiguous_format": contiguous_format, "preserve_format": preserve_format, "channels_last": channels_last,
    "channels_last_3d": channels_last_3d, "_assert": _assert,
}


# modules (under mindnlp_shim.torch) that hold stand-ins; docs/stand-ins.md is generated from them by describe()
MODULES_WITH_STAND_INS = (
    "cuda", "xpu", "mps", "backends", "_dynamo", "_dynamo.eval_frame", "_dynamo._trace_wrapped_higher_order_op",
    "compiler", "_logging", "jit", "fx", "library", "utils._python_dispatch", "utils._device", "_subclasses",
    "_subclasses.fake_tensor", "profiler", "distributed.tensor",
    "distributed.tensor._utils", "distributed.device_mesh", "distributed._functional_collectives", "distributed.fsdp",
    "distributed._composable.fsdp", "distributed.checkpoint.hf_storage",
    "distributed.algorithms.join", "distributed.algorithms.ddp_comm_hooks.default_hooks",
    "distributed.algorithms.ddp_comm_hooks.powerSGD_hook", "distributed.elastic.multiprocessing.errors", "distributions", "distributions.wishart", "fft",
    "nn.attention.flex_attention", "autograd.graph", "overrides",
    "utils.data.datapipes.iter.combinatorics", "utils.cpp_extension", "distributed.checkpoint.state_dict",
)


def describe():
    """(torch name, kind, description) for every stand-in, in documentation order."""
    import importlib

    rows, seen = [], set()
    for module_name in MODULES_WITH_STAND_INS:
        module = importlib.import_module(f"{__package__}.{module_name}")
        for name, value in sorted(vars(module).items()):
            qual = getattr(value, "__qualname__", "")
            full = f"torch.{module_name}.{name}"
            if isinstance(value, type) and issubclass(value, _NeverInstantiated):
                if value.__qualname__ != full:
                    continue  # an alias of a type documented where it is defined
                row = (full, "placeholder type", "never instantiated; constructing raises NotImplementedError")
            elif callable(value) and qual.startswith("answer.<locals>"):
                row = (full, "query", f"returns {value()!r}: {value.__doc__}")
            elif callable(value) and qual.startswith("identity_decorator.<locals>"):
                row = (full, "compiler hint", "returns the decorated function unchanged: " + (value.__doc__ or ""))
            elif getattr(value, "_compiler_setting_doc", None):
                row = (full, "compiler setting", value._compiler_setting_doc)
            elif callable(value) and qual.startswith("unsupported.<locals>"):
                row = (full, "unsupported", "raises NotImplementedError when called")
            else:
                continue
            if full not in seen:
                seen.add(full)
                rows.append(row)
    for name in TORCH_ATTRIBUTES:
        rows.append((f"torch.{name}", "attribute", "constant or helper defined in mindnlp_shim/torch/_stand_ins.py"))
    return rows
