"""`nn.Module.register_backward_hook`, torch's deprecated module backward hook.

torch registers such a hook on the autograd node that made the module's output, so it is called with that
one node's gradients: `grad_input` for the node's inputs, `grad_output` for its output, and what it returns
replaces `grad_input`. Which node that is, and how its inputs are laid out, is a detail of torch's graph
(`nn.Linear` of a matrix ends in addmm(bias, input, weight.t()), of a batch in a view of addmm's result). The
shim's graph has other nodes, so the hook is served for the modules whose last torch node is known here:
`nn.Linear`, the one-node activations below, and `nn.Sequential` (whose last node is its last module's).
There the module's forward runs between identity Functions that catch the gradients on their way and give
the hook torch's tuples. Any other module with such a hook raises NotImplementedError at its forward.
"""
import warnings

from mindspore import ops

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

# modules torch computes with one autograd node whose one input is the module's input (inplace=False)
_ONE_NODE = ("ReLU", "Tanh", "Sigmoid", "GELU", "SiLU", "Softmax", "LogSoftmax")

# hooks of enclosing Sequentials waiting for their last module's call:
# id(module) -> ([(owner, hook), ...], [each hooked owner's input])
_OUTER = {}

_NOT_SINGLE = ("Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
               "and will be removed in future versions. This hook will be missing some grad_input. Please use "
               "register_full_backward_hook to get the documented behavior.")


def _unsupported(module, why):
    return NotImplementedError(
        f"torch.nn.Module.register_backward_hook on {type(module).__name__}: {why}; the hook's arguments are "
        f"the gradients of the last autograd node of torch's graph for the module, which mindnlp-shim "
        f"reproduces for nn.Linear, nn.Sequential and the activations {', '.join(_ONE_NODE)} only "
        f"(register a hook on the output tensor with Tensor.register_hook instead)")


def _kind(module):
    from . import activation
    from .container import Sequential
    from .linear import Linear

    cls = type(module)
    if isinstance(module, Linear) and cls.forward is Linear.forward:
        return "linear"
    if isinstance(module, Sequential) and cls.forward is Sequential.forward and len(module):
        return "sequential"
    if cls.__name__ in _ONE_NODE and getattr(activation, cls.__name__) is cls and not getattr(module, "inplace", False):
        return "one_node"
    return None


def _ids(grads):
    return tuple(None if g is None else tuple(g.shape) for g in grads)


def _call_hooks(hooks, grad_input, grad_output):
    """Calls each (module, hook) in turn; a returned tuple replaces grad_input, checked as torch checks it."""
    for owner, hook in hooks:
        out = hook(owner, grad_input, grad_output)
        if out is None:
            continue
        out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        name = getattr(hook, "__name__", type(hook).__name__)
        if len(out) != len(grad_input):
            raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(out)}, but "
                               f"expected {len(grad_input)})")
        for new, old in zip(out, grad_input):
            if new is not None and old is not None and tuple(new.shape) != tuple(old.shape):
                raise RuntimeError(f"hook '{name}' has changed the size of value")
        grad_input = out
    return grad_input


class _State:
    def __init__(self, hooks):
        self.hooks = hooks
        self.grad_output = None


class _CatchOutput(Function):
    """Identity on the module's output; its backward keeps grad_output (layout None) or, for a layout that
    is the output's gradient reshaped to (-1, features), calls the hooks with it and passes on their answer."""

    @staticmethod
    def forward(ctx, state, flat, output):
        ctx.state, ctx.flat = state, flat
        return ops.mul(output, 1)

    @staticmethod
    def backward(ctx, grad):
        state = ctx.state
        state.grad_output = (grad,)
        if not ctx.flat:
            return None, None, grad
        flat = grad.reshape(-1, grad.shape[-1])
        (new,) = _call_hooks(state.hooks, (flat,), (grad,))
        return None, None, new.reshape(grad.shape)


class _CatchLinearInputs(Function):
    """Identity on (input, weight, bias) of a matrix nn.Linear; its backward gives the hooks torch's addmm
    (or mm) node's gradients: (bias, input, weight.t()) or (input, weight.t())."""

    @staticmethod
    def forward(ctx, state, x, weight, bias):
        ctx.state, ctx.has_bias = state, bias is not None
        ctx.needs = (x.requires_grad, weight.requires_grad, bias is not None and bias.requires_grad)
        outs = (ops.mul(x, 1), ops.mul(weight, 1))
        return outs + ((ops.mul(bias, 1),) if bias is not None else ())

    @staticmethod
    def backward(ctx, gx, gw, gb=None):
        need_x, need_w, need_b = ctx.needs
        gx, gw, gb = (gx if need_x else None), (gw if need_w else None), (gb if need_b else None)
        gwt = None if gw is None else gw.t()
        grads = (gb, gx, gwt) if ctx.has_bias else (gx, gwt)
        grads = _call_hooks(ctx.state.hooks, grads, ctx.state.grad_output)
        if ctx.has_bias:
            gb, gx, gwt = grads
        else:
            gx, gwt = grads
        gw = None if gwt is None else gwt.t()
        return None, gx, gw, (gb if ctx.has_bias else None)


class _CatchInput(Function):
    """Identity on the input of a one-node module; its backward calls the hooks with (grad of input,)."""

    @staticmethod
    def forward(ctx, state, x):
        ctx.state = state
        return ops.mul(x, 1)

    @staticmethod
    def backward(ctx, grad):
        (new,) = _call_hooks(ctx.state.hooks, (grad,), ctx.state.grad_output)
        return None, new


def _requires_grad(*tensors):
    return any(t is not None and t.requires_grad for t in tensors)


def _warn_if_not_single(owner_inputs, x, one_node):
    # torch warns for each hooked module unless the hooked node's inputs are that module's inputs' nodes: a
    # one-node module called (directly or as a Sequential's only step) on a tensor that is not a leaf
    for owner_input in owner_inputs:
        if not (one_node and owner_input is x and not x.is_leaf):
            warnings.warn(_NOT_SINGLE, FutureWarning, stacklevel=5)


def forward_with_hooks(module, forward_call, args, kwargs):
    """Runs `module`'s forward with its legacy backward hooks (and those its enclosing Sequentials passed
    down) attached as torch would attach them."""
    outer_hooks, outer_inputs = _OUTER.pop(id(module), ([], []))
    hooks = [(module, hook) for hook in module._backward_hooks.values()] + outer_hooks
    owner_inputs = ([args[0] if args else None] if module._backward_hooks else []) + outer_inputs
    kind = _kind(module)
    if kind is None:
        raise _unsupported(module, "its forward is not one whose last autograd node mindnlp-shim knows")
    if kwargs or len(args) != 1:
        raise _unsupported(module, "it is called with other than one positional tensor")
    (x,) = args
    if kind == "sequential":
        children = list(module)
        for child in children[:-1]:
            x = child(x)
        _OUTER[id(children[-1])] = (hooks, owner_inputs)
        try:
            return children[-1](x)
        finally:
            _OUTER.pop(id(children[-1]), None)
    if kind == "linear":
        weight, bias = module.weight, module.bias
        if not (is_grad_enabled() and _requires_grad(x, weight, bias)):
            return forward_call(x)  # no node, so torch registers nothing
        state = _State(hooks)
        _warn_if_not_single(owner_inputs, x, one_node=False)
        if x.ndim == 2:
            from .. import functional as F

            caught = _CatchLinearInputs.apply(state, x, weight, bias)
            out = F.linear(caught[0], caught[1], caught[2] if bias is not None else None)
            return _CatchOutput.apply(state, False, out)
        if x.ndim == 1 and bias is None:
            raise _unsupported(module, "a vector input without bias ends in torch's matrix-vector node")
        return _CatchOutput.apply(state, True, forward_call(x))  # torch ends in a view of addmm's result
    if not (is_grad_enabled() and _requires_grad(x)):
        return forward_call(x)
    state = _State(hooks)
    _warn_if_not_single(owner_inputs, x, one_node=True)
    return _CatchOutput.apply(state, False, forward_call(_CatchInput.apply(state, x)))
