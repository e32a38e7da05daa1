"""torch.autograd.Function on MindSpore's custom-function support (`forward(ctx, ...)`, `backward(ctx, ...)`)."""
import functools

import mindspore
from mindspore import ops

from . import _function_saves
from .grad_mode import is_grad_enabled, no_grad
from ... import _mindspore as _ms


class Function(_ms.FunctionBase):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call with `.apply(*args)`.

    `ctx.save_for_backward`, `ctx.saved_tensors`, `ctx.needs_input_grad`, `ctx.mark_dirty`,
    `ctx.mark_non_differentiable` and `ctx.set_materialize_grads` are MindSpore's, with torch's meaning.
    """

    if not _ms.FUNCTION_SAVES_TRACKED:
        # a release whose tape does not track saved tensors: the shim does (_function_saves)
        saved_tensors = property(_function_saves.unpack, _ms.saved_tensors_slot.__set__)

        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__(**kwargs)
            forward = cls.__dict__.get("forward")
            if forward is not None:
                function = forward.__func__ if isinstance(forward, staticmethod) else forward
                cls.forward = staticmethod(_function_saves.wrap_forward(function))

        @classmethod
        def apply(cls, *args, **kwargs):
            return _function_saves.apply(super().apply, cls, args, kwargs)


class FunctionCtx:
    """Placeholder type for annotations (`torch.autograd.function.FunctionCtx`)."""


TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _RefuseSecondDerivative(Function):
    """Passes a first-order gradient through unchanged; differentiating it raises. Its extra inputs are the
    tensors the gradient was computed from, so the tape reaches this node from them."""

    @staticmethod
    def forward(ctx, what, grad, *sources):
        ctx.what = what
        return ops.mul(grad, 1)  # a new tensor: the node's own output

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"{TWICE} ({ctx.what}): its backward is not made of recorded operations, so it "
                           f"has no second derivative here")


def _tensors_kept(ctx):
    """The tensors that require grad among what `ctx` keeps (saved tensors, tensors or tuples of them in its
    attributes): a second derivative would flow back through them to the Function's inputs."""
    found = {}
    candidates = list(getattr(ctx, "saved_tensors", None) or ())
    for value in vars(ctx).values():
        candidates.extend(value if isinstance(value, (tuple, list)) else (value,))
    for t in candidates:
        if isinstance(t, mindspore.Tensor) and t.requires_grad:
            found[id(t)] = t
    return list(found.values())


def _refusing(results, what, sources):
    def wrap(r):
        if isinstance(r, mindspore.Tensor) and (r.is_floating_point() or r.is_complex()):
            return _RefuseSecondDerivative.apply(what, r, *sources)
        return r

    return tuple(wrap(r) for r in results) if isinstance(results, tuple) else wrap(results)


def _first_order(backward, strict):
    @functools.wraps(backward)
    def first_order_backward(ctx, *grads):
        if not is_grad_enabled():  # a plain backward: nothing to record
            return backward(ctx, *grads)
        with no_grad():
            results = backward(ctx, *grads)
        # torch's once_differentiable refuses only where the incoming gradients require grad; the shim's own
        # first-order Functions (strict) also where what the Function kept does, since torch differentiates
        # those ops twice and a silent zero would be wrong
        if not strict:
            sources = [g for g in grads if isinstance(g, mindspore.Tensor) and g.requires_grad]
            return _refusing(results, _name(backward), sources) if sources else results
        sources = _tensors_kept(ctx)
        if not sources:  # nothing to hang the refusing node on: refuse now, at the create_graph backward
            raise RuntimeError(f"{TWICE} ({_name(backward)}): backward(create_graph=True) through it is not "
                               f"supported by mindnlp-shim, its backward is not made of recorded operations")
        grads_recorded = [g for g in grads if isinstance(g, mindspore.Tensor) and g.requires_grad]
        return _refusing(results, _name(backward), sources + grads_recorded)

    return first_order_backward


def _name(backward):
    return getattr(backward, "__qualname__", "backward")


def once_differentiable(backward):
    """torch.autograd.function.once_differentiable: the backward runs without recording; a second derivative
    through its results raises torch's error instead of silently being zero."""
    return _first_order(backward, strict=False)


def first_order_only(backward):
    """For the shim's Functions whose backward computes on the host (NumPy, LAPACK) or otherwise unrecorded:
    under create_graph=True their gradients carry a node that raises if differentiated again."""
    return _first_order(backward, strict=True)
