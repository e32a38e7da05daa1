"""torch's type promotion for ops with several operands (`torch.result_type`).

Operands fall into three priority classes: tensors with dimensions, zero-dimensional tensors, Python scalars
(whose dtype is int64 for int, the default float dtype for float, bool for bool). Each class is promoted on its
own; then a lower class changes the result only when its kind (bool < integer < floating < complex) is higher
than the result's so far. So `float32 tensor + float64 0-d tensor` is float32, `int32 tensor + int64 0-d
tensor` int32, `int32 tensor + 2.5` float32. MindSpore's own kernels promote by other rules (the wider dtype
wins across classes), so the ops cast their operands to this dtype first.
"""
import mindspore
from ..._mindspore import TensorPy
from .. import _dtype

_KIND = {mindspore.bool_: 0, mindspore.complex64: 3, mindspore.complex128: 3}
for _d in _dtype.INTEGRAL:
    _KIND[_d] = 1
for _d in _dtype.FLOATING:
    _KIND[_d] = 2


def kind(dt):
    return _KIND.get(dt, 2)


def _complex_of(dt):
    if dt == mindspore.float16:  # (torch's answer would be complex32, which MindSpore does not have)
        raise NotImplementedError("torch.complex32 (a float16 operand with a complex one) is not supported on "
                                  "MindSpore: it has no complex type of half precision; cast the float16 operand "
                                  "to float32 first for a complex64 result")
    return mindspore.complex128 if dt == mindspore.float64 else mindspore.complex64


def promote_types(a, b):
    """torch.promote_types: the higher kind wins; within a kind the wider type (float16 with bfloat16 gives
    float32, uint8 with int8 int16); a complex type with a wider float takes that float's width."""
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka == 3 and kb == 2:
        return mindspore.complex128 if mindspore.float64 == b or a == mindspore.complex128 else mindspore.complex64
    if kb == 3 and ka == 2:
        return promote_types(b, a)
    if ka != kb:
        return a if ka > kb else b
    return _dtype.promote_types(a, b)


def _scalar_dtype(v):
    if isinstance(v, bool):
        return mindspore.bool_
    if isinstance(v, int):
        return mindspore.int64
    if isinstance(v, float):
        return _dtype.get_default_dtype()
    if isinstance(v, complex):
        return _complex_of(_dtype.get_default_dtype())
    return None


def _combine_classes(higher, lower):
    """The result of a higher priority class, changed by a lower one only when that is of a higher kind."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    kh, kl = kind(higher), kind(lower)
    if kl <= kh:
        return higher
    if kl == 3 and kh == 2:
        return _complex_of(higher)
    return lower if kh == 0 or kl == 3 else promote_types(higher, lower) if kh == 1 else higher


def result_type(*operands):
    """torch.result_type for any number of operands (tensors and Python scalars)."""
    dim = zero = wrapped = None
    for v in operands:
        if isinstance(v, TensorPy):
            dt = v.dtype
            if v.ndim:
                dim = dt if dim is None else promote_types(dim, dt)
            else:
                zero = dt if zero is None else promote_types(zero, dt)
        else:
            dt = _scalar_dtype(v)
            if dt is not None:
                wrapped = dt if wrapped is None else promote_types(wrapped, dt)
    return _combine_classes(dim, _combine_classes(zero, wrapped))


def cast_operand(v, dt):
    """A tensor operand cast to `dt`; a Python scalar kept as a scalar of `dt`'s kind."""
    if isinstance(v, TensorPy):
        return v if v.dtype == dt else v.astype(dt)
    k = kind(dt)
    if k == 2 and not isinstance(v, float):
        return float(v)
    if k == 1 and isinstance(v, bool):
        return int(v)
    return v


def can_cast(from_, to):
    """torch.can_cast: no cast to a lower kind (float to integer, anything but bool to bool)."""
    return kind(_dtype.resolve(from_)) <= kind(_dtype.resolve(to))
