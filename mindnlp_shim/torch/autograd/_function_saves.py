"""A custom Function's saved tensors on releases whose tape does not track them (2.7.1:
`_mindspore.FUNCTION_SAVES_TRACKED` is False).

torch (and MindSpore 2.7.2+) gives the backward a saved output as the output itself, on the Function's node, so a
backward made of recorded ops can be differentiated again through it; and a saved tensor written in place after
the forward makes the backward raise. MindSpore 2.7.1 gives the saved output back detached and checks no write.
Here, on that release:
- each saved tensor's write count is taken when `apply` returns and compared when the backward unpacks it;
- under grad mode (a backward with create_graph=True), a saved output is unpacked as the output of a pass-through
  Function (`_SavedOutput`) whose backward is the owning Function's backward for that output, so the second
  derivative flows from it to the owner's inputs, as through torch's node. Its edges to those inputs are
  `_Edge` tensors made at `apply` (a broadcast zero per input: no input is kept alive for it).
"""
import threading

import mindspore
from mindspore import ops

from .. import _memory
from ... import _mindspore as _ms

Tensor = mindspore.Tensor
_STATE = "_saved_tensor_state"  # on a Function's ctx: a _SavedState
_local = threading.local()  # .applying: one entry per `apply` running in the thread: the ctx its forward ran with


class _SavedState:
    __slots__ = ("output_slots", "output_metas", "counts", "edges")

    def __init__(self, output_slots, output_metas):
        self.output_slots = output_slots  # saved tensor index -> output index
        self.output_metas = output_metas  # (shape, dtype) of each output, None for a non-tensor one
        self.counts = ()  # each saved tensor's write count when apply returned (None: not a tensor)
        self.edges = ()  # (forward argument index, _Edge tensor) for each input a second derivative reaches


def _as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def wrap_forward(forward):
    """The forward, noting for `apply` which saved tensors it returned."""

    def noting_forward(ctx, *args, **kwargs):
        result = forward(ctx, *args, **kwargs)
        saved = _ms.saved_tensors_slot.__get__(ctx)
        if not saved:
            return result
        outputs = _as_tuple(result)
        output_slots = {index: position for index, tensor in enumerate(saved) if isinstance(tensor, Tensor)
                        for position, out in enumerate(outputs) if tensor is out}
        metas = [(tuple(out._shape), out._dtype) if isinstance(out, Tensor) else None for out in outputs]
        ctx.__dict__[_STATE] = _SavedState(output_slots, metas)
        applying = getattr(_local, "applying", None)
        if applying:
            applying[-1] = ctx
        return result

    noting_forward.__wrapped__ = forward
    return noting_forward


def apply(apply_base, cls, args, kwargs):
    """`cls.apply(*args, **kwargs)`, taking what the backward will check and need."""
    applying = getattr(_local, "applying", None)
    if applying is None:
        applying = _local.applying = []
    applying.append(None)
    try:
        result = apply_base(*args, **kwargs)
    finally:
        ctx = applying.pop()
    state = None if ctx is None else ctx.__dict__.get(_STATE)
    if state is None:
        return result
    outputs = _as_tuple(result)
    saved = _ms.saved_tensors_slot.__get__(ctx) or ()
    state.counts = tuple(_memory.write_count(t) if isinstance(t, Tensor) else None for t in saved)
    if state.output_slots and _ms.grad_enabled() and any(
            isinstance(out, Tensor) and out._grad_node is not None for out in outputs):
        state.edges = tuple((index, _Edge.apply(arg)) for index, arg in enumerate(args)
                            if isinstance(arg, Tensor) and (arg._requires_grad or not arg._is_leaf)
                            and (arg.is_floating_point() or arg.is_complex()))
    return result


def unpack(ctx):
    """`ctx.saved_tensors` in the backward: torch's error for a tensor written since, and under grad mode the
    saved outputs on a node leading back through the Function."""
    saved = _ms.saved_tensors_slot.__get__(ctx)
    state = ctx.__dict__.get(_STATE)
    if state is None or not state.counts or saved is None:
        return saved
    for index, (tensor, count) in enumerate(zip(saved, state.counts)):
        if count is not None and _memory.write_count(tensor) != count:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{tensor.type()} {list(tensor.shape)}], which is saved tensor {index} of "
                f"{type(ctx).__name__}Backward, is at version {_memory.write_count(tensor)}; expected version "
                f"{count} instead.")
    if not state.edges or not _ms.grad_enabled():
        return saved
    saved = list(saved)
    for index, position in state.output_slots.items():
        saved[index] = _SavedOutput.apply(ctx, position, saved[index], *(edge for _, edge in state.edges))
    return tuple(saved)


class _Edge(_ms.FunctionBase):
    """A broadcast zero of the input's shape whose gradient goes to the input: reaches the input's node without
    keeping its memory."""

    _zeros = {}  # dtype -> a 0-d zero (read only: the edges are views of it that nobody writes)

    @staticmethod
    def forward(ctx, tensor):
        zero = _Edge._zeros.get(tensor._dtype)
        if zero is None:
            zero = _Edge._zeros[tensor._dtype] = _ms.zeros((), tensor._dtype)
        return ops.broadcast_to(zero, tensor._shape)

    @staticmethod
    def backward(ctx, grad):
        return grad


class _SavedOutput(_ms.FunctionBase):
    """Output `position` of the Function whose ctx is `owner` (its saved, detached value): its gradient is the
    owner's backward of it, given to the owner's inputs through their edges."""

    @staticmethod
    def forward(ctx, owner, position, value, *edges):
        ctx.owner, ctx.position = owner, position
        return value

    @staticmethod
    def backward(ctx, grad):
        owner = ctx.owner
        state = owner.__dict__[_STATE]
        materialize = owner.materialize_grads
        grads = [grad if position == ctx.position
                 else (_ms.zeros(meta[0], meta[1]) if materialize and meta is not None else None)
                 for position, meta in enumerate(state.output_metas)]
        results = _as_tuple(type(owner).backward(owner, *grads))
        return (None, None, None) + tuple(results[index] if index < len(results) else None
                                          for index, _ in state.edges)
