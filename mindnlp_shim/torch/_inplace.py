"""Writing a value into an existing tensor, the one way every torch in-place op ends.

MindSpore's CPU in-place Tensor methods are silently out of place (`add_`) or have no kernel (`fill_`);
index assignment is the write that really happens and that the tape records. It keeps the receiver's identity,
so the tensor's `.grad`, hooks, and a Parameter's place in its module and optimizer survive.
"""
import mindspore
from mindspore import ops

_ms_setitem = mindspore.Tensor.__setitem__
_ms_copy = mindspore.Tensor.copy_  # MindSpore's own, captured before the torch binding replaces it


def assign(tensor, value):
    """Write `value` (tensor or Python scalar, broadcast and cast to `tensor`) into `tensor`; return `tensor`."""
    if not isinstance(value, mindspore.Tensor):
        fill_dtype = mindspore.float32 if tensor.dtype == mindspore.bfloat16 else tensor.dtype  # no bf16 fill on CPU
        value = ops.fill(fill_dtype, tuple(tensor.shape), value)
    elif value.dtype != tensor.dtype:
        value = value.astype(tensor.dtype)
    if tensor._is_leaf and tensor._requires_grad and _grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    # Index assignment is the write MindSpore performs into the tensor's storage, and for a view taken by
    # indexing (a row of a weight) it also writes into the base, as torch does; `copy_` ignores views.
    # `x[:] = v` is the form MindSpore accepts on leaves; `x[...] = v` the one that reaches a view's base.
    if tensor.ndim == 0:
        _ms_copy(tensor, value)
    elif getattr(tensor, "parent_tensor_", None) is not None:
        _ms_setitem(tensor, Ellipsis, value)
    else:
        _ms_setitem(tensor, slice(None), value)
    return tensor


def _grad_enabled():
    from mindspore.graph.api import _pynative_executor

    return _pynative_executor.enable_grad()


def inplace_of(fn):
    """`Tensor.<op>_` from the out-of-place `<op>`: compute, then write back into the receiver."""

    def method(self, *args, **kwargs):
        return assign(self, fn(self, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    return method
