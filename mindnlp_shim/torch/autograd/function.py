"""torch.autograd.Function on MindSpore's custom-function support (`forward(ctx, ...)`, `backward(ctx, ...)`)."""
from mindspore.common._grad_function import _Function


class Function(_Function):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call with `.apply(*args)`.

    `ctx.save_for_backward`, `ctx.saved_tensors`, `ctx.needs_input_grad`, `ctx.mark_dirty`,
    `ctx.mark_non_differentiable` and `ctx.set_materialize_grads` are MindSpore's, with torch's meaning.
    """


class FunctionCtx:
    """Placeholder type for annotations (`torch.autograd.function.FunctionCtx`)."""


def once_differentiable(fn):
    return fn
