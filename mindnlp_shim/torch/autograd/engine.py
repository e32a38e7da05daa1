"""`Tensor.backward` and `torch.autograd.grad` on MindSpore's tape engine (`run_backward`)."""
import mindspore
from mindspore import ops

from .. import _leaf_grads
from .._out_of_memory import reraise_if_out_of_memory
from .._runtime import ensure_recording
from ... import _mindspore as _ms


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _grad_outputs(outputs, grad_outputs):
    """torch creates an implicit grad of ones only for scalar outputs; None entries mean exactly that."""
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs: got {len(grad_outputs)} "
                           f"grad_outputs for {len(outputs)} outputs")
    filled = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = ops.ones(out.shape, out.dtype)  # (OnesLike has no bfloat16 CPU kernel)
        elif isinstance(g, (int, float)):
            g = ops.fill(out.dtype, out.shape, g)
        filled.append(g)
    return tuple(filled)


def _check_outputs_require_grad(outputs):
    for out in outputs:
        if not out._requires_grad and out._grad_node is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")


_queued_callbacks = []


def queue_callback(callback):
    """Run `callback()` once the backward pass now running has finished and every `.grad` is accumulated
    (torch's `Variable._execution_engine.queue_callback`; DistributedDataParallel averages gradients then)."""
    _queued_callbacks.append(callback)


def _run_queued_callbacks():
    callbacks = list(_queued_callbacks)
    _queued_callbacks.clear()
    for callback in callbacks:
        callback()


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = _as_tuple(tensors)
    _check_outputs_require_grad(tensors)
    grads = _grad_outputs(tensors, grad_tensors)
    keep = create_graph if retain_graph is None else retain_graph
    ensure_recording()
    held = _leaf_grads.take_grads()
    try:
        _ms.run_backward(tensors, grads, bool(keep), bool(create_graph), _as_tuple(inputs))
    except (RuntimeError, MemoryError) as exc:
        _queued_callbacks.clear()
        reraise_if_out_of_memory(exc)
        raise
    finally:
        _leaf_grads.give_back(held)
    _run_queued_callbacks()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if is_grads_batched:
        raise NotImplementedError("torch.autograd.grad(is_grads_batched=True) is not supported on MindSpore: "
                                  "the tape engine has no batched (vmap) backward")
    outputs = _as_tuple(outputs)
    single = not isinstance(inputs, (tuple, list))
    inputs = _as_tuple(inputs)
    _check_outputs_require_grad(outputs)
    grads = _grad_outputs(outputs, grad_outputs)
    keep = create_graph if retain_graph is None else retain_graph
    allow = bool(allow_unused) or materialize_grads
    ensure_recording()
    try:
        result = _ms.run_backward(outputs, grads, bool(keep), bool(create_graph), inputs, allow, accumulate_grad=False)
    except (RuntimeError, MemoryError) as exc:
        reraise_if_out_of_memory(exc)
        raise
    result = tuple(result)
    if materialize_grads:
        result = tuple(ops.zeros_like(i) if g is None else g for g, i in zip(result, inputs))
    return result
