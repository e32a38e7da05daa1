"""`nn.Module.register_full_backward_hook` / `register_full_backward_pre_hook` (and their global forms).

As torch documents them: the module's positional tensor inputs and its tensor outputs (a tensor or the tensors
of a tuple) each pass through an identity autograd Function. When the gradients of the outputs reach the
outputs' Function, the pre-hooks see `grad_output` and may replace it; when the gradients of the inputs reach
the inputs' Function, the hooks see `grad_input` (None for inputs that are not tensors or do not require grad)
and `grad_output` and may replace `grad_input`. Both Functions are made per call, so each call's backward
fires the hooks once. Tensors the Functions return are marked so that an in-place write into them raises
torch's error (torch's identity Function returns its inputs as views, which it refuses to modify in place).
"""
import warnings

from mindspore import Tensor, ops

from .... import _mindspore as _ms
from ..._autograd_views import HOOK_FUNCTION_OUTPUT
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

_NO_INPUT_GRAD = ("Full backward hook is firing when gradients are computed with respect to module outputs since no "
                  "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                  "#torch.nn.Module.register_full_backward_hook for more details.")


class _Call:
    """One call of a hooked module: what its two Functions share."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_index = None  # positions of the inputs passed through the Function, None if none was
        self.still_inputs = ()  # (position, shape, dtype) of the other tensor inputs, when some were passed
        self.n_outputs = 0
        self.output_index = None


def _pack(index, values, size):
    packed = [None] * size
    for i, value in zip(index, values):
        packed[i] = value
    return tuple(packed)


def _check_shapes(grads, shapes):
    # torch checks what its node hook (named `hook`) returns against the gradients it was given
    for g, shape in zip(grads, shapes):
        if g is not None and tuple(g.shape) != tuple(shape):
            raise RuntimeError("hook 'hook' has changed the size of value")


class _HookInputs(Function):
    @staticmethod
    def forward(ctx, call, *tensors):
        # (torch's hook sees what this Function returns: zeros for an input the module did not use)
        ctx.call, ctx.shapes = call, [t.shape for t in tensors]
        return tuple(ops.mul(t, 1) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        call = ctx.call
        if call.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return (None,) + grads
        grad_input = _pack(call.input_index, grads, call.n_inputs)
        if call.still_inputs:  # torch's hook sees zeros for the tensor inputs that do not require grad
            grad_input = list(grad_input)
            for i, shape, dtype in call.still_inputs:
                grad_input[i] = _ms.zeros(shape, dtype)
            grad_input = tuple(grad_input)
        for hook in call.hooks:
            out = hook(call.module, grad_input, call.grad_outputs)
            if out is None:
                continue
            if len(out) != len(grad_input):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(grad_input)}")
            grad_input = out
        call.grad_outputs = None
        new = tuple(grad_input[i] for i in call.input_index)
        _check_shapes(new, ctx.shapes)
        return (None,) + new


class _HookOutputs(Function):
    @staticmethod
    def forward(ctx, call, *tensors):
        ctx.set_materialize_grads(False)  # (torch's pre-hook sees None for an output the loss did not use)
        ctx.call, ctx.shapes = call, [t.shape for t in tensors]
        return tuple(ops.mul(t, 1) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        call = ctx.call
        call.grad_outputs = _pack(call.output_index, grads, call.n_outputs)
        for hook in call.pre_hooks:
            out = hook(call.module, call.grad_outputs)
            if out is None:
                continue
            if len(out) != len(call.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(out)}, but expected {len(call.grad_outputs)}")
            call.grad_outputs = out
        grad_outputs = call.grad_outputs
        if call.input_index is None:  # no input requires grad: the hooks are called here, with grad_input None
            warnings.warn(_NO_INPUT_GRAD, stacklevel=2)
            grad_input = (None,) * call.n_inputs
            for hook in call.hooks:
                out = hook(call.module, grad_input, grad_outputs)
                if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            call.grad_outputs = None
        new = tuple(grad_outputs[i] for i in call.output_index)
        _check_shapes(new, ctx.shapes)
        return (None,) + new


def _through(function, call, values):
    """Passes the tensors among `values` (when one requires grad) through `function`; returns the new values
    and the tensors' positions (None when nothing was passed)."""
    index = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
    if not (index and is_grad_enabled()):
        return values, None
    out = function.apply(call, *(values[i] for i in index))
    if isinstance(out, Tensor):
        out = (out,)
    # torch's identity Function takes every tensor: its error names the output's place among them
    places = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    values = list(values)
    for i, t in zip(index, out):
        setattr(t, HOOK_FUNCTION_OUTPUT, places.index(i))
        values[i] = t
    return values, index


def setup_inputs(call, args):
    call.n_inputs = len(args)
    values, call.input_index = _through(_HookInputs, call, args)
    if call.input_index is not None and len(call.input_index) < len(args):
        call.still_inputs = [(i, a.shape, a.dtype) for i, a in enumerate(args)
                             if isinstance(a, Tensor) and i not in call.input_index]
    return tuple(values)


def setup_outputs(call, result):
    if not isinstance(result, (Tensor, tuple)):
        warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors "
                      f"but received {type(result)}", stacklevel=4)
    single = not isinstance(result, tuple)
    values = (result,) if single else result
    call.n_outputs = len(values)
    new, call.output_index = _through(_HookOutputs, call, values)
    if call.output_index is None:
        return result
    return new[0] if single else type(result)(new) if type(result) is tuple else type(result)(*new)

