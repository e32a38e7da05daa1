"""torch.utils.checkpoint: activation checkpointing by recomputation.

`checkpoint(fn, *args, **kwargs)` runs `fn` without recording its intermediate activations (so their memory is
freed as soon as the forward moves on) and keeps only its inputs. When the backward pass reaches its outputs,
`fn` runs again with recording on, from the same inputs, under the same RNG state (so dropout draws the same
masks), autocast state and grad mode, and the backward continues through that recomputed graph. Gradients are
the ones `fn` would give without checkpointing.

Built on a custom autograd Function (MindSpore's `_Function`): its forward is the unrecorded run; its
backward is the recomputation plus a nested backward on MindSpore's tape engine. Parameters `fn` closes over
receive their gradients from that nested backward. Tensors anywhere in the arguments (nested in tuples, lists,
dicts, or bound into a `functools.partial`, as transformers passes layer keyword arguments) are inputs of the
Function, so their gradients flow back to the graph that produced them; tensors in the outputs may be nested
the same ways (and in transformers' ModelOutput). So may tensors held as attributes of plain Python objects (peft's
ShadowCarrier pairs the hidden states with a shadow state): such an object reaches `fn` itself in the forward (so what
`fn` changes in it stays), and a shallow copy holding the recomputation's tensors in the backward; an output object
comes back as a copy holding the Function's outputs. Modules are never looked into, and with `use_reentrant=True`
objects are not either: torch's reentrant variant takes them for constants.

Randomness is replayed for the shim's generator (`torch.get_rng_state`), which every random op of the shim
draws from. `use_reentrant=True` and `False` both recompute as above; they differ only where torch's do in
what they accept (keyword arguments and `context_fn` need `use_reentrant=False`) and in that the reentrant
variant gives no gradients when no input tensor requires grad. Not supported: `torch.autograd.grad(...)` with
`inputs` being parameters used inside a checkpointed region (the nested backward accumulates into `.grad`
instead, as torch's reentrant variant does).

An input written in place after the forward makes the backward raise torch's RuntimeError (recomputing from
the new values would differentiate another function); writes are seen through MindSpore's count of them
(`_memory.write_count`: its kernels' writes and the shim's writes through host memory).
"""
import collections.abc
import contextlib
import copy
import enum
import functools
import types
import warnings

import mindspore
from mindspore import ops

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..amp import autocast_mode
from .. import random as _random
from .._ops import host_small
from .._function_outputs import plain_tensor
from .. import _memory
from ... import _mindspore as _ms

Tensor = mindspore.Tensor
_FLOATING = (mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64)


# ---------------------------------------------------------------- nested structures of tensors
def _flatten(value, tensors, objects=None):
    """A template of `value` with each tensor replaced by its index in `tensors` (appended). `objects`: None to
    take plain objects for constants (torch's reentrant variant does), else the ones being looked into (a cycle
    through attributes stops there)."""
    if isinstance(value, Tensor):
        tensors.append(value)
        return _Slot(len(tensors) - 1)
    if isinstance(value, (list, tuple)):
        return type(value), [_flatten(v, tensors, objects) for v in value], hasattr(value, "_fields")
    if isinstance(value, collections.abc.Mapping):
        return type(value), {k: _flatten(v, tensors, objects) for k, v in value.items()}, None
    if objects is not None and _may_hold_tensors(value) and not any(value is seen for seen in objects):
        start = len(tensors)
        fields = {k: _flatten(v, tensors, objects + (value,)) for k, v in vars(value).items()}
        if len(tensors) > start:
            return _Object(value, fields, start, tensors[start:])
    return _Const(value)


def _may_hold_tensors(value):
    """A plain object whose attributes are looked into for tensors: it has a `__dict__` and is no module, class,
    function or Python module."""
    from ..nn.modules.module import Module

    return hasattr(value, "__dict__") and not isinstance(value, (Module, type, types.FunctionType, types.MethodType,
                                                                 types.ModuleType, functools.partial))


def _rebuild(template, tensors):
    if isinstance(template, _Slot):
        return tensors[template.index]
    if isinstance(template, _Const):
        return template.value
    if isinstance(template, _Object):
        return template.rebuild(tensors)
    kind, items, named = template
    if isinstance(items, dict):
        rebuilt = {k: _rebuild(v, tensors) for k, v in items.items()}
        try:
            return kind(**rebuilt) if kind is not dict else rebuilt
        except TypeError:
            return kind(rebuilt)
    rebuilt = [_rebuild(v, tensors) for v in items]
    return kind(*rebuilt) if named else kind(rebuilt)


class _Slot:
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class _Const:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Object:
    """A plain object holding tensors among its attributes: the object itself where the tensors are still its own,
    else a shallow copy holding the new ones."""
    __slots__ = ("value", "fields", "start", "originals")

    def __init__(self, value, fields, start, originals):
        self.value, self.fields, self.start, self.originals = value, fields, start, originals

    def rebuild(self, tensors):
        if all(tensors[self.start + i] is t for i, t in enumerate(self.originals)):
            return self.value
        rebuilt = copy.copy(self.value)
        vars(rebuilt).update({k: _rebuild(v, tensors) for k, v in self.fields.items()})
        return rebuilt


# ---------------------------------------------------------------- the recomputing Function
class _Region:
    """What the backward needs to run the region again: the function, its argument template, and the RNG
    and autocast state the first run saw."""

    def __init__(self, function, template, rng_state, autocast_state, recompute_context, objects):
        self.objects = objects  # (see _flatten)
        self.function = function
        self.template = template
        self.rng_state = rng_state
        self.autocast_state = autocast_state
        self.recompute_context = recompute_context
        self.output_template = None


def _call(function, template, tensors):
    args, kwargs = _rebuild(template, tensors)
    return function(*args, **kwargs)


class _Recompute(Function):
    @staticmethod
    def forward(ctx, region, forward_context, anchor, *inputs):
        ctx.region = region
        ctx.inputs = inputs
        ctx.write_counts = [_memory.write_count(t) if isinstance(t, Tensor) else None for t in inputs]
        # (the region computes as the recomputation under grad mode will: see host_small.as_if_recorded)
        with no_grad(), host_small.as_if_recorded(), forward_context:
            outputs = _call(region.function, region.template, list(inputs))
        produced = []
        region.output_template = _flatten(outputs, produced, region.objects)
        if not produced:
            # the region returned no tensor: hand back the anchor so the Function still has an output
            return _ms.zeros((0,), mindspore.float32)
        # views made inside the region become plain tensors: in-place writes into the outputs stay recordable
        return tuple(t if any(t is i for i in inputs) else plain_tensor(t) for t in produced)

    @staticmethod
    def backward(ctx, *grads):
        region = ctx.region
        _check_not_written(ctx.inputs, ctx.write_counts)
        inputs = [_detached_like(t) for t in ctx.inputs]
        with _replayed_rng(region.rng_state), autocast_mode.restored(region.autocast_state), enable_grad(), \
                region.recompute_context:
            outputs = _call(region.function, region.template, inputs)
        recomputed = []
        _flatten(outputs, recomputed, region.objects)
        pairs = [(out, grad) for out, grad in zip(recomputed, grads)
                 if grad is not None and isinstance(out, Tensor) and (out.requires_grad or out.grad_fn is not None)]
        if pairs:
            from ..autograd import backward as _backward

            _backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None, None) + tuple(_grad_of(t) for t in inputs)


def _check_not_written(inputs, write_counts):
    """torch refuses to recompute from an input written in place after the forward (the recomputation would
    see the new values and give the gradient of another function); so does this, for every write
    `_memory.write_count` counts."""
    for index, (tensor, count) in enumerate(zip(inputs, write_counts)):
        if count is not None and _memory.write_count(tensor) != count:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{tensor.type()} {list(tensor.shape)}], which is input {index} of a checkpointed region, is at "
                f"version {_memory.write_count(tensor)}; expected version {count} instead.")


def _detached_like(tensor):
    if not isinstance(tensor, Tensor):
        return tensor
    detached = tensor.detach()
    if tensor.requires_grad and tensor.dtype in _FLOATING:
        detached.requires_grad_(True)
    return detached


def _grad_of(tensor):
    return tensor.grad if isinstance(tensor, Tensor) and tensor.requires_grad else None


@contextlib.contextmanager
def _replayed_rng(saved_state):
    if saved_state is None:
        yield
        return
    current = _random.get_rng_state()
    _random.set_rng_state(saved_state)
    try:
        yield
    finally:
        _random.set_rng_state(current)


# ---------------------------------------------------------------- public API
def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """Run `function(*args, **kwargs)` and recompute it during backward instead of keeping its activations."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True.", stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not None or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")

    if isinstance(function, functools.partial):
        # tensors bound into the partial (transformers' layer keyword arguments) become inputs too
        args = tuple(function.args) + args
        kwargs = {**function.keywords, **kwargs}
        function = function.func
    if not is_grad_enabled():
        return function(*args, **kwargs)

    forward_context, recompute_context = context_fn() if context_fn is not None else (
        contextlib.nullcontext(), contextlib.nullcontext())
    inputs = []
    objects = None if use_reentrant else ()
    template = _flatten((tuple(args), dict(kwargs)), inputs, objects)
    if use_reentrant and not any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        with no_grad():
            return function(*args, **kwargs)

    region = _Region(function, template, _random.get_rng_state() if preserve_rng_state else None,
                     autocast_mode.snapshot(), recompute_context, objects)
    # a tensor that requires grad, so the region joins the graph even when only closed-over parameters do
    anchor = _ms.zeros((0,), mindspore.float32)
    anchor.requires_grad_(True)
    produced = _Recompute.apply(region, forward_context, anchor, *inputs)
    if not isinstance(produced, tuple):
        produced = (produced,)
    return _rebuild(region.output_template, list(produced))


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Split a Sequential (or list of modules) into `segments` chunks; checkpoint all but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly.", stacklevel=2)
        use_reentrant = True
    if isinstance(functions, collections.abc.Mapping) or hasattr(functions, "children"):
        functions = list(functions.children())
    functions = list(functions)
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(_run_chunk(functions, start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return _run_chunk(functions, end + 1, len(functions) - 1)(input)


def _run_chunk(functions, start, end):
    def forward(input):
        for fn in functions[start:end + 1]:
            input = fn(input)
        return input

    return forward


@contextlib.contextmanager
def _noop_context():
    yield


class CheckpointPolicy(enum.Enum):
    """What a selective-checkpoint policy answers for one op: keep its output or recompute it."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """Selective checkpointing saves some ops' outputs instead of recomputing them; here every op of the
    region is recomputed, which gives the same gradients (it only saves less time)."""
    if not (callable(policy_fn_or_list) or isinstance(policy_fn_or_list, (list, tuple))):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return _noop_context(), _noop_context()


# ---------------------------------------------------------------- device RNG states
def get_device_states(*args):
    """(device indices, RNG states) for the accelerator devices the tensors in `args` live on.

    CPU tensors contribute nothing (their RNG state is `torch.get_rng_state()`, saved separately by callers).
    On a GPU/Ascend target every random op of the shim draws from the one generator, so each device's state
    is that generator's state."""
    from .._device import PROCESS_DEVICE

    tensors = []
    _flatten(args, tensors)
    if PROCESS_DEVICE.type == "cpu" or not tensors:
        return [], []
    return [PROCESS_DEVICE.index or 0], [_random.get_rng_state()]


def set_device_states(devices, states, *, device_type=None):
    """Restore what `get_device_states` returned."""
    for _, state in zip(devices, states):
        _random.set_rng_state(state)
