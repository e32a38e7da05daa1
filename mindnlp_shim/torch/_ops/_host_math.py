"""Correctly rounded float32/float16 transcendental functions on the CPU target, computed in float64 by NumPy.

MindSpore 2.10's CPU float32 kernels for log, log2, log10, log1p, exp, expm1, tanh and sigmoid are measured
several ulps to thousands of ulps away from real torch (whose kernels are within 1 ulp of the exact result):
`log(2)` is 0.69314700 instead of 0.69314718 from seven elements up, `log1p` and `expm1` return 0 for
|x| < 6e-8, `tanh(4.97)` exceeds 1. Table and script: docs/numerics.md, tests/scripts/ulp_sweep.py. Here such
an op reads the tensor's host memory (a zero-copy view on the CPU), computes in float64 through a small
float64 scratch buffer that stays in cache, and rounds once to the input's dtype: within 1 ulp, at about the
speed of the float32 kernel for large tensors (NumPy's float64 loops are vectorised). The autograd tape
records the op as one Function whose backward is its derivative in recorded MindSpore ops.
"""
import threading

import numpy as np
import mindspore
from mindspore import ops

from .._runtime import ON_CPU
from ..autograd.function import Function
from . import host_small
from .ieee_division import quotient
from ... import _mindspore as _ms

Tensor = mindspore.Tensor
_HOST_DTYPES = (mindspore.float32, mindspore.float16)
_CHUNK = 8192  # float64 elements per pass: 64 KiB, within L2
_scratch = threading.local()


def _buffer():
    buf = getattr(_scratch, "buf", None)
    if buf is None:
        buf = _scratch.buf = np.empty(_CHUNK, np.float64)
    return buf


def _sigmoid64(b, out):
    # 1 / (1 + exp(-x)); exp(-x) overflows to inf for x < -709 and gives exactly 0 then, as it should
    np.negative(b, out=out)
    np.exp(out, out=out)
    out += 1.0
    np.reciprocal(out, out=out)
    return out


_NUMPY = {"log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "exp": np.exp,
          "expm1": np.expm1, "tanh": np.tanh, "sigmoid": _sigmoid64}


_FLOAT64_ON_HOST = frozenset({"log1p", "expm1"})  # MindSpore's float64 kernels: log(1 + x), exp(x) - 1 (1e-22 -> 0)


def host_compute(name, x):
    """The float64 NumPy function `name` of tensor `x`, rounded to x's dtype, as a new tensor."""
    fn = _NUMPY[name]
    if host_small.takes((x,), _HOST_DTYPES):  # small and outside autograd: any layout, no synchronising read
        src = host_small.array(x)
        with host_small.quiet_numpy():
            b = src.astype(np.float64)
            return host_small.result(fn(b, out=b).astype(src.dtype))
    if not x.is_contiguous():
        x = x.contiguous()
    src = x.asnumpy()  # zero-copy for a dense CPU tensor
    flat_src = src.reshape(-1)
    out = np.empty(src.shape, src.dtype)
    flat_out = out.reshape(-1)
    n = flat_src.size
    with host_small.quiet_numpy():  # log(0) = -inf, log(-1) = nan, overflow to inf: torch's values, no warnings
        if n <= _CHUNK:
            b = flat_src.astype(np.float64)
            flat_out[...] = fn(b, out=b)
        else:
            buf = _buffer()
            for start in range(0, n, _CHUNK):
                stop = min(n, start + _CHUNK)
                b = buf[:stop - start]
                b[...] = flat_src[start:stop]
                flat_out[start:stop] = fn(b, out=b)
    return Tensor.from_numpy(out)


# derivative of each op from its input x and its result y, in recorded MindSpore ops (double backward works)
_LN2, _LN10 = float(np.log(2.0)), float(np.log(10.0))
_DERIVATIVES = {
    # (quotient: at x = -0.0 the derivative is -inf, as torch's; MindSpore's Div gives +inf)
    "log": lambda g, x, y: quotient(g, x),
    "log2": lambda g, x, y: quotient(g, ops.mul(x, _LN2)),
    "log10": lambda g, x, y: quotient(g, ops.mul(x, _LN10)),
    "log1p": lambda g, x, y: quotient(g, ops.add(x, 1.0)),
    "exp": lambda g, x, y: ops.mul(g, y),
    "expm1": lambda g, x, y: ops.mul(g, ops.add(y, 1.0)),
    "tanh": lambda g, x, y: ops.mul(g, ops.sub(1.0, ops.square(y))),
    "sigmoid": lambda g, x, y: ops.mul(g, ops.mul(y, ops.sub(1.0, y))),
}
_NEEDS_INPUT = frozenset({"log", "log2", "log10", "log1p"})


class _HostUnary(Function):
    @staticmethod
    def forward(ctx, x, name):
        y = host_compute(name, x)
        ctx.op_name = name  # (not ctx.name: that is the node's name() method)
        ctx.save_for_backward(x if name in _NEEDS_INPUT else y)
        return y

    @staticmethod
    def backward(ctx, grad):
        saved, = ctx.saved_tensors
        name = ctx.op_name
        if name in _NEEDS_INPUT:
            return _DERIVATIVES[name](grad, saved, None), None
        return _DERIVATIVES[name](grad, None, saved), None


def accurate_unary(ms_fn, name):
    """`ms_fn` (MindSpore's kernel for `name`) where it is accurate; the float64 host computation for float32
    and float16 tensors on the CPU target, and for float64 ones of log1p and expm1 (whose float64 kernels lose
    small arguments: log1p(1e-22) was 0, log1p(1e-10) 8e-8 off)."""
    if not ON_CPU:
        return ms_fn

    def fn(x):
        if type(x) is not Tensor or x._dtype not in _HOST_DTYPES and \
                not (x._dtype is mindspore.float64 and name in _FLOAT64_ON_HOST):
            return ms_fn(x)
        if x._requires_grad and _ms.grad_enabled() and x.requires_grad:
            return _HostUnary.apply(x, name)
        return host_compute(name, x)

    fn.__name__ = fn.__qualname__ = name
    return fn
