"""Dtype conversions of small CPU tensors, done on the host where NumPy computes exactly what torch computes.

MindSpore 2.10's CPU Cast kernel costs about 360-400 µs per call even on a handful of elements (measured: int64
-> float32 of 9 elements 360 µs, bool -> int64 400 µs, float32 -> float16 390 µs, against 37 µs for a float32
multiply), while NumPy converts a small array in under 10 µs. Decoding makes such casts every token (position
ids to float for RoPE, finished-row flags to int). The host path serves conversions whose results agree
bit for bit: from bool or integer dtypes to any real dtype (integer -> float rounds to nearest even in both,
integer -> integer wraps in both, -> bool tests for non-zero) and between float16/32/64 (round to nearest even,
overflow to infinity, NaN kept). Float -> integer or bool (NaN and infinity are implementation-defined),
bfloat16 and complex keep MindSpore's kernel, as does anything autograd records or larger than MAX_ELEMENTS.
"""
import numpy as np
import mindspore
from mindspore import ops

from .. import _float8
from .._runtime import ON_CPU
from ... import _mindspore as _ms

Tensor = mindspore.Tensor
MAX_ELEMENTS = 4096

_INTEGRAL = {mindspore.bool_: np.bool_, mindspore.int8: np.int8, mindspore.uint8: np.uint8,
             mindspore.int16: np.int16, mindspore.int32: np.int32, mindspore.int64: np.int64}
_FLOATING = {mindspore.float16: np.float16, mindspore.float32: np.float32, mindspore.float64: np.float64}
_NUMPY = {**_INTEGRAL, **_FLOATING}


def _on_host(x, dtype):
    source = x._dtype
    if not ON_CPU or source not in _NUMPY or dtype not in _NUMPY:
        return False
    if source in _FLOATING:
        if dtype not in _FLOATING or (_ms.grad_enabled() and x._requires_grad):
            return False
    size = 1
    for d in x._shape:
        size *= d
    return size <= MAX_ELEMENTS


def cast(x, dtype):
    """`x` converted to the MindSpore `dtype` (a new tensor; the caller handles dtype == x's dtype)."""
    if _on_host(x, dtype):
        with np.errstate(all="ignore"):  # overflow to infinity is the result, as in torch: no warning
            return Tensor.from_numpy(np.array(x.asnumpy(), dtype=_NUMPY[dtype]))
    if dtype in _float8.FLOAT8 or x._dtype in _float8.FLOAT8:  # (no CPU kernel converts float8)
        return _float8.cast(x, dtype, cast)
    return ops.cast(x, dtype)
