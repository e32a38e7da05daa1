"""torch.special functions MindSpore has no kernel for on every target (erfcx, ndtri, log_ndtr, Bessel and Airy
functions, Hurwitz zeta, polygamma of any order), computed on the host in float64 by scipy.special (a
dependency of MindSpore itself) and rounded once to the result dtype.

Where torch differentiates a function, the tape records it as one Function whose backward is the derivative,
also computed in float64 (first order: the derivative is not itself recorded). Where torch has no derivative
(the Bessel, Airy and zeta functions), the result does not require grad, so a backward through it raises."""
import numpy as np
import mindspore

from .. import _dtype
from ..autograd.function import Function, first_order_only
from ..autograd.grad_mode import is_grad_enabled
from ._util import Tensor, dtype_category, result_dtype, write_out

_HALF = (mindspore.float16, mindspore.bfloat16)


def result_dtype_of(args):
    """torch's dtype for a floating function of tensors and Python numbers: integers and bools compute in the
    default float dtype; a Python float does not widen a float tensor."""
    tensors = [a.dtype for a in args if isinstance(a, Tensor)]
    dims = [a.dtype for a in args if isinstance(a, Tensor) and a.ndim]
    zero_dim = [a.dtype for a in args if isinstance(a, Tensor) and not a.ndim]
    dt = result_dtype(dims) if dims else result_dtype(zero_dim) if zero_dim else None
    if zero_dim and dims and dtype_category(result_dtype(zero_dim)) > dtype_category(dt):
        dt = result_dtype(zero_dim)
    if dt is None or (not tensors) or dtype_category(dt) < 2:
        dt = _dtype.get_default_dtype()
    if dtype_category(dt) == 3:
        raise NotImplementedError("torch.special functions of complex tensors are not supported by mindnlp-shim")
    return dt


def _host(x):
    if isinstance(x, Tensor):
        if x.dtype == mindspore.bfloat16:
            x = x.astype(mindspore.float32)
        return x.asnumpy().astype(np.float64)
    return np.float64(x)


def to_tensor(values, dt):
    """A float64 array rounded once to dtype `dt` (bfloat16 through float32: NumPy has no bfloat16)."""
    values = np.asarray(values, np.float64)
    if dt == mindspore.bfloat16:
        return Tensor(np.require(values.astype(np.float32), requirements="C")).astype(dt)
    return Tensor(np.require(values.astype(mindspore.dtype_to_nptype(dt)), requirements="C"))


def _sum_to(grad, shape):
    """A broadcast gradient summed back to an operand's shape."""
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead))) if lead else grad
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad


class _HostPointwise(Function):
    @staticmethod
    def forward(ctx, fn, derivatives, dt, *args):
        ctx.fn, ctx.derivatives, ctx.args = fn, derivatives, args
        with np.errstate(all="ignore"):
            return to_tensor(fn(*[_host(a) for a in args]), dt)

    @staticmethod
    @first_order_only  # the backward computes on the host: not recorded
    def backward(ctx, grad):
        host = [_host(a) for a in ctx.args]
        g = _host(grad)
        grads = []
        with np.errstate(all="ignore"):
            for a, derivative, needed in zip(ctx.args, ctx.derivatives, ctx.needs_input_grad[3:]):
                if not needed or not isinstance(a, Tensor) or derivative is None or not a.is_floating_point():
                    grads.append(None)
                    continue
                d = np.broadcast_to(g * derivative(*host), g.shape)
                grads.append(to_tensor(_sum_to(d, tuple(a.shape)), a.dtype))
        return (None, None, None, *grads)


def pointwise(name, fn, derivatives=None, out_refuses_grad=None):
    """torch.special.<name>: `fn` of float64 arrays; `derivatives` (one per argument, None where torch has none)
    makes it differentiable. Returns the op with torch's `out=` (which refuses inputs that require grad where
    torch's does: by default where torch differentiates)."""
    refuses = derivatives is not None if out_refuses_grad is None else out_refuses_grad

    def op(*args, out=None):
        if out is not None:
            value = op(*args)
            return write_out(out, value, name, differentiable=refuses, grad_inputs=args)
        dt = result_dtype_of(args)
        if derivatives is not None and is_grad_enabled() and any(
                isinstance(a, Tensor) and a.requires_grad for a in args):
            return _HostPointwise.apply(fn, derivatives, dt, *args)
        with np.errstate(all="ignore"):
            return to_tensor(fn(*[_host(a) for a in args]), dt)

    op.__name__ = op.__qualname__ = name
    return op


def _sp():
    import scipy.special

    return scipy.special


_SQRT_2PI = np.sqrt(2 * np.pi)


def _xlog1py(x, y):
    return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y))


def _entr(x):
    # NaN passes through; +-inf give -inf, as torch's (0 * x, the earlier NaN carrier, made them NaN)
    return np.where(np.isnan(x), x, np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)),
                                             np.where(x == 0, 0.0, -np.inf)))


def _i1_derivative(x):
    safe = np.where(x == 0, 1.0, x)
    return np.where(x == 0, 0.5, _sp().i0(x) - _sp().i1(x) / safe)


def _i1e_derivative(x):
    safe = np.where(x == 0, 1.0, x)
    return np.where(x == 0, 0.5, _sp().i0e(x) - _sp().i1e(x) * (np.sign(x) + 1.0 / safe))


entr = pointwise("entr", _entr, (lambda x: -(np.log(x) + 1.0),))
ndtr = pointwise("ndtr", lambda x: _sp().ndtr(x), (lambda x: np.exp(-0.5 * x * x) / _SQRT_2PI,),
                 out_refuses_grad=False)  # (a composite in torch)
log_ndtr = pointwise("log_ndtr", lambda x: _sp().log_ndtr(x),
                     (lambda x: np.exp(-0.5 * x * x - _sp().log_ndtr(x)) / _SQRT_2PI,))
ndtri = pointwise("ndtri", lambda x: _sp().ndtri(x),
                  (lambda x: _SQRT_2PI * np.exp(0.5 * _sp().ndtri(x) ** 2),))
erfcx = pointwise("erfcx", lambda x: _sp().erfcx(x),
                  (lambda x: 2.0 * x * _sp().erfcx(x) - 2.0 / np.sqrt(np.pi),))
i0e = pointwise("i0e", lambda x: _sp().i0e(x), (lambda x: _sp().i1e(x) - np.sign(x) * _sp().i0e(x),))
i1 = pointwise("i1", lambda x: _sp().i1(x), (_i1_derivative,))
i1e = pointwise("i1e", lambda x: _sp().i1e(x), (_i1e_derivative,))
xlog1py = pointwise("xlog1py", _xlog1py, (lambda x, y: np.log1p(y),  # (torch's, also where x is 0)
                                          lambda x, y: x / (1.0 + y)))

# no derivative in torch
bessel_j0 = pointwise("bessel_j0", lambda x: _sp().j0(x))
bessel_j1 = pointwise("bessel_j1", lambda x: _sp().j1(x))
bessel_y0 = pointwise("bessel_y0", lambda x: _sp().y0(x))
bessel_y1 = pointwise("bessel_y1", lambda x: _sp().y1(x))
modified_bessel_i0 = pointwise("modified_bessel_i0", lambda x: _sp().i0(x))
modified_bessel_i1 = pointwise("modified_bessel_i1", lambda x: _sp().i1(x))
modified_bessel_k0 = pointwise("modified_bessel_k0", lambda x: _sp().k0(x))
modified_bessel_k1 = pointwise("modified_bessel_k1", lambda x: _sp().k1(x))
scaled_modified_bessel_k0 = pointwise("scaled_modified_bessel_k0", lambda x: _sp().k0e(x))
scaled_modified_bessel_k1 = pointwise("scaled_modified_bessel_k1", lambda x: _sp().k1e(x))
spherical_bessel_j0 = pointwise("spherical_bessel_j0", lambda x: np.where(x == 0, 1.0, np.sin(x) / np.where(
    x == 0, 1.0, x)))
airy_ai = pointwise("airy_ai", lambda x: _sp().airy(x)[0])
zeta = pointwise("zeta", lambda x, q: _sp().zeta(x, q), out_refuses_grad=True)


def _polygamma_of(n):
    if n == 1:  # torch computes trigamma by its own series (special_math), not from the zeta function
        from .special_math import _trigamma_as_torch

        return pointwise("polygamma", _trigamma_as_torch, (lambda x: _sp().polygamma(2, x),))
    return pointwise("polygamma", lambda x: _sp().polygamma(n, x) if n else _sp().digamma(x),
                     (lambda x: _sp().polygamma(n + 1, x),))


def polygamma(n, input, *, out=None):
    """ψ⁽ⁿ⁾(input), the n-th derivative of the digamma function (n >= 0)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _polygamma_of(n)(input, out=out)
