"""torch.nn.Parameter and torch.nn.Buffer.

A parameter object is not an instance of a tensor subclass: `Parameter(data)` returns a plain
`mindspore.Tensor` that shares `data`'s storage and carries the mark `_is_param = True`, so every op on it
returns ordinary tensors and MindSpore's tape engine treats it as a leaf. `isinstance(x, Parameter)` tests
that mark. `Buffer` works the same way with the mark `_is_buffer` and a `persistent` attribute, read by
`Module.__setattr__`.

Deep copies and pickles of a parameter stay parameters: the Tensor class's `__deepcopy__`/`__reduce_ex__`
(../_tensor.py) carry the mark and `requires_grad`.
"""
import mindspore
import numpy as np

from .. import _dtype, _leaf_grads, _runtime

Tensor = mindspore.Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


def _empty_float():
    return Tensor.from_numpy(np.empty((0,), dtype=_dtype.to_numpy_dtype(_dtype.get_default_dtype())))


def _share_detached(data):
    """A new tensor object over `data`'s storage, outside any autograd graph (torch's `data.detach()`)."""
    detach = getattr(Tensor, "detach", None)
    if detach is not None:
        return data.detach()
    if _runtime.ON_CPU:
        return Tensor.from_numpy(data.asnumpy())  # zero-copy on the CPU target
    return mindspore.ops.stop_gradient(data)


def _check_can_require_grad(data, requires_grad):
    if requires_grad and data.dtype not in _dtype.FLOATING and data.dtype not in _dtype.COMPLEX:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


class _ParameterMeta(type(Tensor)):
    def __instancecheck__(cls, obj):
        if cls is Parameter:
            return isinstance(obj, Tensor) and getattr(obj, "_is_param", False) is True
        return super().__instancecheck__(obj)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """`Parameter(data=None, requires_grad=True)`: a leaf tensor sharing `data`'s storage, marked as a module
    parameter. The returned object is a `mindspore.Tensor` (= `torch.Tensor`); `isinstance(p, Parameter)` is
    True for it."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty_float()
        elif not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected data to be a Tensor, got {type(data).__name__}")
        requires_grad = bool(requires_grad)
        _check_can_require_grad(data, requires_grad)
        param = _share_detached(data)
        param._is_param = True
        param._requires_grad = requires_grad
        if requires_grad:
            _leaf_grads.mark(param)
        if getattr(data, "_is_meta", False):  # (a parameter made on the meta device stays there)
            param._is_meta = True
        return param


class _BufferMeta(type(Tensor)):
    def __instancecheck__(cls, obj):
        if cls is Buffer:
            return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False) is True
        return super().__instancecheck__(obj)


class Buffer(Tensor, metaclass=_BufferMeta):
    """`Buffer(data=None, *, persistent=True)` (torch 2.5+): a tensor marked to be registered as a module buffer
    when assigned as a module attribute; `persistent=False` keeps it out of `state_dict()`."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty_float()
        elif not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): expected data to be a Tensor, got {type(data).__name__}")
        requires_grad = bool(getattr(data, "_requires_grad", False))
        buf = _share_detached(data)
        buf._requires_grad = requires_grad
        if requires_grad:
            _leaf_grads.mark(buf)
        buf.persistent = persistent
        buf._is_buffer = True
        return buf


def is_lazy(param):
    """torch.nn.parameter.is_lazy: there are no uninitialized (lazy) parameters here."""
    return False
