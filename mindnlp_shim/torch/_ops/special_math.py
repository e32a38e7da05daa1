"""Elementwise math whose torch names MindSpore's Tensor also carries (with other promotion or edge rules):
inverse hyperbolics, gamma functions, logaddexp, xlogy, copysign, heaviside, gcd/lcm, complex parts, ...

Integer and bool inputs of the floating-valued functions compute in the default float dtype (torch's rule);
half-precision inputs compute in float32 (few of these have CPU half kernels) and return their own dtype.
Integer-only and non-differentiable functions (gcd, lcm, nextafter, signbit) compute in NumPy."""
import functools
import math

import mindspore
import numpy as np
from mindspore import ops

from .. import _dtype
from ..autograd.function import Function, first_order_only
from . import pointwise as pw
from ._util import dtype_category, no_kernel, result_dtype, Tensor, type_name, write_out
from ... import _mindspore as _ms

_HALF = (mindspore.float16, mindspore.bfloat16)


def _float_dtype(dt):
    return dt if dt in _dtype.FLOATING or dt in _dtype.COMPLEX else _dtype.get_default_dtype()


def _promoted(*args):
    """torch's result dtype of tensor/scalar operands: a Python scalar only raises the kind (int tensor + 1.5)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    dims = [a.dtype for a in tensors if a.ndim]
    zero_dim = [a.dtype for a in tensors if not a.ndim]
    dt = result_dtype(dims) if dims else result_dtype(zero_dim) if zero_dim else None
    if zero_dim and dims and dtype_category(result_dtype(zero_dim)) > dtype_category(dt):
        dt = result_dtype(zero_dim)
    for a in args:
        if not isinstance(a, Tensor):
            kind = 0 if isinstance(a, bool) else 1 if isinstance(a, int) else 2 if isinstance(a, float) else 3
            if dt is None or kind > dtype_category(dt):
                dt = mindspore.int64 if kind == 1 else mindspore.bool_ if kind == 0 else \
                    _dtype.get_default_dtype() if kind == 2 else mindspore.complex64
    return dt


def _as(x, dt):
    if isinstance(x, Tensor):
        return x if x.dtype == dt else ops.cast(x, dt)
    return Tensor(np.asarray(x, dtype=mindspore.dtype_to_nptype(dt)))


def _floating_op(compute):
    """`compute` on float32/float64 operands; int inputs promote to the default float, halves return halves."""

    def op(*args, **kwargs):
        dt = _float_dtype(_promoted(*args))
        work = mindspore.float32 if dt in _HALF else dt
        out = compute(*(_as(a, work) for a in args), **kwargs)
        return out if work == dt else ops.cast(out, dt)

    op.__name__ = compute.__name__
    return op


def _no_integer_kernel(kernel):
    """For an op torch has no integer kernel for: operands whose result dtype is integral or bool raise its
    NotImplementedError (the float computation would answer where torch refuses)."""
    def wrap(op):
        @functools.wraps(op)
        def checked(*args, **kwargs):
            dt = _promoted(*args)
            if dt is not None and dtype_category(dt) < 2:
                raise no_kernel(kernel, dt)
            return op(*args, **kwargs)

        return checked

    return wrap


def _tensor_arguments(op):
    """torch's binding of `op(input, other)` takes tensors only: a Python number is a TypeError."""
    @functools.wraps(op)
    def checked(input, other, *args, **kwargs):
        for position, (arg, value) in enumerate((("input", input), ("other", other)), 1):
            if not isinstance(value, Tensor):
                raise TypeError(f"{op.__name__}(): argument '{arg}' (position {position}) must be Tensor, "
                                f"not {type(value).__name__}")
        return op(input, other, *args, **kwargs)

    return checked


def _numpy_op(compute, result=None):
    """A non-differentiable function computed in NumPy: `result(dtype)` names the output dtype."""

    def op(*args, out=None):
        if out is not None:  # (computed on the host: torch refuses inputs that require grad for a float result)
            value = op(*args)
            return write_out(out, value, compute.__name__, exact=result is not None,
                             differentiable=value.is_floating_point(), grad_inputs=args)
        dt = _promoted(*args)
        arrays = [a.asnumpy() if isinstance(a, Tensor) else a for a in args]
        value = np.asarray(compute(*arrays))
        out_dt = result(dt) if result else dt
        # (np.require keeps a 0-d result 0-d; ascontiguousarray would make it 1-d)
        return Tensor(np.require(value.astype(mindspore.dtype_to_nptype(out_dt)), requirements="C"))

    op.__name__ = compute.__name__
    return op


# ---------------------------------------------------------------- unary, floating valued
acosh = arccosh = _floating_op(lambda input: ops.acosh(input))
asinh = arcsinh = _floating_op(lambda input: ops.asinh(input))
atanh = arctanh = _floating_op(lambda input: ops.atanh(input))
# ψ(x) ~ ln x - 1/(2x) - sum_k B_2k / (2k x^2k) for x >= 10 (Bernoulli numbers B_2 .. B_14)
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _raised_to_ten(x, term):
    """(reflect, y, shift) for the polygamma recurrences: `reflect` marks x < 0.5, where 1 - x is used
    instead; y is that raised by 1 until it is at least 10, and shift the sum of term(y) over the steps taken."""
    reflect = x < 0.5
    y = np.where(reflect, 1.0 - x, x)
    shift = np.zeros_like(y)
    for _ in range(10):
        small = y < 10.0
        shift += np.where(small, term(y), 0.0)
        y = np.where(small, y + 1.0, y)
    return reflect, y, shift


def _even_series(coefficients, y):
    """sum_k coefficients[k] / y^(2k+2), by Horner's rule in 1/y^2."""
    inv2 = 1.0 / (y * y)
    series = np.zeros_like(y)
    for c in reversed(coefficients):
        series = (series + c) * inv2
    return series


def _digamma_host64(x):
    """ψ(x) of a float64 array, to about 1 ulp: the recurrence ψ(x) = ψ(x + 1) - 1/x up to x >= 10, then the
    asymptotic series; below 0.5 the reflection ψ(x) = ψ(1 - x) - π / tan(πx). torch's values at the poles:
    -inf at +0, +inf at -0, NaN at negative integers and -inf."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        reflect, y, shift = _raised_to_ten(x, lambda y: -1.0 / y)
        out = np.log(y) - 0.5 / y - _even_series(_DIGAMMA_SERIES, y) + shift
        # (tan has period π: reduce x to [-1/2, 1/2] first, exactly, so that a large |x| keeps its fractional
        # part and a tiny one its value: with floor, -1e-92 became 1 - 1e-92 = 1 and ψ came out 2.6e16)
        out = np.where(reflect, out - np.pi / np.tan(np.pi * (x - np.rint(x))), out)
        out = np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), out)
        out = np.where((x < 0) & (x == np.floor(x)), np.nan, out)
    return out


def _trigamma_as_torch(x):
    """ψ'(x) of a float64 array as torch's derivative of digamma computes it, so that the gradient is torch's
    within an ulp: below 0.5 the reflection ψ'(x) = π^2 / sin^2(πx) - ψ'(1 - x) (at a negative integer sin(πx)
    is a rounding residue, so the value is huge and finite, as torch's), then six steps of the recurrence
    ψ'(x) = ψ'(x + 1) + 1/x^2 and the asymptotic series 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7).
    (The series stops there, so the value is within about 1e-10 relative of the exact one, not an ulp; an exact
    value would differ from torch's gradient by that much.)"""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        sine = np.sin(np.pi * x)
        result = np.where(reflect, -(np.pi * np.pi) / (sine * sine), 0.0)
        y = np.where(reflect, 1.0 - x, x)
        for _ in range(6):
            result = result + 1.0 / (y * y)
            y = y + 1.0
        inv2 = 1.0 / (y * y)
        result = result + (1.0 + 1.0 / (2.0 * y) + inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42)))) / y
        return np.where(reflect, -result, result)


class _Digamma64(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        values = x.asnumpy()
        return Tensor(np.asarray(_digamma_host64(values), values.dtype))

    @staticmethod
    @first_order_only  # the backward computes on the host: not recorded
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        values = x.asnumpy()
        return ops.mul(grad, Tensor(np.asarray(_trigamma_as_torch(values), values.dtype)))


class _Lgamma64(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ops.lgamma(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return ops.mul(grad, _Digamma64.apply(x))


def _empty_or(kernel):
    """`kernel(input)`, or for an empty input an empty result in the graph: MindSpore's Digamma (also inside
    lgamma's gradient) raises "the input must have value" where torch returns an empty tensor."""
    def op(input):
        return pw.mul(input, 0) if 0 in input._shape else kernel(input)

    return op


# MindSpore's float64 digamma (also lgamma's derivative) is computed in float32: float64 goes to the host
lgamma = _floating_op(_empty_or(lambda input: _Lgamma64.apply(input) if input.dtype == mindspore.float64 else
                                ops.lgamma(input)))
# every floating dtype through the float64 host computation, rounded once (MindSpore's float32 kernel was up to
# 1.7e-3 off near its roots and poles)
digamma = _floating_op(_empty_or(lambda input: _Digamma64.apply(input)))
i0 = _floating_op(lambda input: ops.i0(input))
sinc = _floating_op(lambda input: ops.sinc(input))


@_floating_op
def deg2rad(input):
    return pw.mul(input, math.pi / 180)


@_floating_op
def rad2deg(input):
    return pw.mul(input, 180 / math.pi)


@_floating_op
def logit(input, eps=None):
    if eps is not None and eps > 0.5:  # torch bounds below first: x < eps gives eps, then x > 1 - eps gives 1 - eps
        input = pw.where(pw.lt(input, eps), eps, pw.where(pw.gt(input, 1 - eps), 1 - eps, input))
    elif eps is not None:
        input = pw.clamp(input, eps, 1 - eps)  # (outside [eps, 1 - eps] the gradient is 0, as in torch)
    return pw.log(pw.div(input, pw.sub(1, input)))


def mvlgamma(input, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if bool((input <= (p - 1) / 2).any()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    input = input.contiguous()  # (torch's result is contiguous: a sum over a new last dim)
    terms = [lgamma(pw.sub(input, i / 2)) for i in range(p)]
    total = terms[0]
    for t in terms[1:]:
        total = pw.add(total, t)
    return pw.add(total, p * (p - 1) / 4 * math.log(math.pi))


def hardshrink(input, lambd=0.5):
    if input.dtype not in _dtype.FLOATING:
        raise no_kernel("hardshrink_cpu", input.dtype)
    # 0 on [-lambd, lambd], both ends included; NaN is outside and passes (|x| > lambd would zero it)
    inside = pw.logical_and(pw.ge(input, -lambd), pw.le(input, lambd))
    return pw.where(inside, _ms.zeros((), input.dtype), input)


def positive(input):
    if input.dtype == mindspore.bool_:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---------------------------------------------------------------- binary, floating valued
@_floating_op
def xlogy(input, other):
    # +0 wherever input is 0 and other is not NaN: where the log is infinite or NaN (other = 0, inf, negative) it
    # is read as 0, which also gives torch's zero gradients there; adding +0.0 at those positions turns the -0.0
    # of input = -0.0 or of a negative log into torch's +0.0 and leaves the gradient log(other)
    log_other = pw.log(other)
    zero_input = pw.logical_and(pw.eq(input, 0), pw.logical_not(pw.isnan(other)))
    zero = pw.logical_and(zero_input, pw.logical_not(pw.isfinite(log_other)))
    product = pw.mul(input, pw.where(zero, _ms.zeros((), log_other.dtype), log_other))
    return pw.where(zero_input, pw.add(product, 0.0), product)


def _log_add(input, other, exp_fn, log1p_fn):
    big = pw.maximum(input, other)
    gap = pw.neg(pw.abs(pw.sub(input, other)))
    same_inf = pw.logical_and(pw.isinf(big), pw.eq(input, other))  # (inf - inf would be NaN)
    gap = pw.where(same_inf, _ms.zeros((), gap.dtype), gap)
    return pw.where(same_inf, input, pw.add(big, log1p_fn(exp_fn(gap))))


@_no_integer_kernel("logaddexp_cpu")
@_floating_op
def logaddexp(input, other):
    return _log_add(input, other, pw.exp, pw.log1p)


@_no_integer_kernel("logaddexp2_cpu")
@_floating_op
def logaddexp2(input, other):
    return _log_add(input, other, pw.exp2, lambda t: pw.div(pw.log1p(t), math.log(2)))


class _CopySign(Function):
    """|input| with the sign bits of `negative`, computed on the host; torch's gradient, grad * result / input
    (zero where input is zero, NaN where it is NaN or infinite), where abs's derivative would differ."""

    @staticmethod
    def forward(ctx, input, negative):
        a = input.asnumpy()
        out = np.where(negative, -np.abs(a), np.abs(a))
        with np.errstate(invalid="ignore", divide="ignore"):
            ctx.ratio = Tensor(np.where(a == 0, 0, out / np.where(a == 0, 1, a)).astype(a.dtype))
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        return ops.mul(grad, ctx.ratio), None


@_floating_op
def copysign(input, other):
    negative = np.broadcast_to(np.signbit(other.asnumpy()), np.broadcast_shapes(input.shape, other.shape))
    a = input if tuple(input.shape) == negative.shape else pw.mul(input, Tensor(np.ones(negative.shape),
                                                                                  input.dtype))
    out = _CopySign.apply(a, negative) if a.requires_grad and _ms.grad_enabled() else \
        Tensor(np.where(negative, -np.abs(a.asnumpy()), np.abs(a.asnumpy())))
    if isinstance(other, Tensor) and other.requires_grad and _ms.grad_enabled():
        # torch's result is in the graph of `other` too, with a zero gradient (other gets zeros, not None): a
        # `where` on an all-false mask connects it without touching a value (a product by 0 would make NaN)
        never = _ms.zeros(tuple(out.shape), mindspore.bool_)
        out = ops.where(never, ops.cast(other, out.dtype), out)
    return out


@_floating_op
def ldexp(input, other):
    return pw.mul(input, pw.exp2(other))


def float_power(input, exponent):
    dt = mindspore.complex128 if dtype_category(_promoted(input, exponent)) == 3 else mindspore.float64
    return pw.pow(_as(input, dt), _as(exponent, dt) if isinstance(exponent, Tensor) else exponent)


def _no_derivative_in_a(name):
    def refuse(a, x):
        raise RuntimeError(f"the derivative for '{name}: input' is not implemented.")

    return refuse


def _igamma_density(sign):
    """d/dx of the regularized incomplete gamma functions: +-x^(a-1) e^(-x) / Gamma(a)."""
    def derivative(a, x):
        from .host_special import _sp

        return sign * np.exp((a - 1.0) * np.log(x) - x - _sp().gammaln(a))

    return derivative


def _host_igamma(name, complement):
    """float64 on the host (scipy.special): MindSpore's float64 Igamma/Igammac kernels are ~3e-8 off."""
    from .host_special import _sp, pointwise

    return pointwise(name, lambda a, x: _sp().gammaincc(a, x) if complement else _sp().gammainc(a, x),
                     (_no_derivative_in_a(name), _igamma_density(-1.0 if complement else 1.0)))


_igamma_float64 = _host_igamma("igamma", False)
_igammac_float64 = _host_igamma("igammac", True)


@_tensor_arguments
@_floating_op
def igamma(input, other):
    if input.dtype == mindspore.float64:
        return _igamma_float64(input, other)
    return ops.igamma(input, other)


@_tensor_arguments
@_floating_op
def igammac(input, other):
    if input.dtype == mindspore.float64:
        return _igammac_float64(input, other)
    return ops.igammac(input, other)


def heaviside(input, values):
    if isinstance(values, Tensor) and values.dtype != input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    step = ops.cast(pw.gt(input, 0), input.dtype)
    return pw.where(pw.eq(input, 0), values, step)


def _integral_only(fn, name):
    def compute(a, b):
        if not (np.issubdtype(np.asarray(a).dtype, np.integer) and np.issubdtype(np.asarray(b).dtype, np.integer)):
            raise RuntimeError(f'"{name}_cpu" not implemented for floating point or bool dtypes')
        return fn(a, b)

    compute.__name__ = name
    return compute


gcd = _numpy_op(_integral_only(np.gcd, "gcd"))
def _wrapping_lcm(a, b):
    """torch's lcm: |a / gcd * b| computed as C computes it, in int for the narrower types and in the operands'
    type otherwise, wrapping, then cast to the result dtype (NumPy's lcm takes the absolute values first, so its
    signs differ wherever the product wraps)."""
    a, b = np.asarray(a), np.asarray(b)
    dt = np.result_type(a, b)
    dt = np.int32 if dt.itemsize < 4 else dt
    a, b = a.astype(dt), b.astype(dt)
    g = np.gcd(a, b)
    with np.errstate(all="ignore"):
        return np.abs(np.where(g == 0, 0, (a // np.where(g == 0, 1, g)) * b))


lcm = _numpy_op(_integral_only(_wrapping_lcm, "lcm"))
_nextafter_values = _numpy_op(np.nextafter)
@_tensor_arguments
def nextafter(input, other, *, out=None):
    dt = _promoted(input, other)
    if dtype_category(dt) < 2:  # (NumPy's nextafter would answer in float64)
        raise no_kernel("nextafter_cpu", dt)
    if out is not None:
        return _nextafter_values(input, other, out=out)
    value = _nextafter_values(input, other)
    if not (input.requires_grad or other.requires_grad):
        return value
    # torch's derivative: the gradient passes to input unchanged, other gets zeros. `value - x` is exact (the
    # two are neighbours), so `x + (value - x)` is `value` itself with x's gradient.
    x = _as(input, value.dtype)
    out = ops.add(x, ops.stop_gradient(ops.sub(value, x)))
    if other.requires_grad:  # a select on an all-false mask: other joins the graph with a zero gradient
        out = ops.where(_ms.zeros(out.shape, mindspore.bool_), _as(other, value.dtype), out)
    return out
signbit = _numpy_op(np.signbit, result=lambda dt: mindspore.bool_)


def _shift(name, left):
    """torch's integer shifts, computed in NumPy: in the operands' result dtype, a left shift wrapping as C's
    does; a count that is negative or at least the type's width gives 0 (left) or the sign fill (right: -1 for a
    negative value, else 0), where C leaves the result undefined."""
    def op(input, other, *, out=None):
        if out is not None:
            return write_out(out, op(input, other), name, differentiable=False)
        dt = _promoted(input, other)
        if dt not in _dtype.INTEGRAL:
            kernel = "lshift" if left else "rshift"
            raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{type_name(dt)}\'')
        np_dt = mindspore.dtype_to_nptype(dt)
        # (a Python number is cast to the result dtype as C casts it, unchecked, as torch does here)
        values, counts = (np.asarray(a.asnumpy() if isinstance(a, Tensor) else a).astype(np_dt, copy=False)
                          for a in (input, other))
        width = np_dt(0).itemsize * 8
        outside = (counts < 0) | (counts >= width) if np.issubdtype(np_dt, np.signedinteger) else counts >= width
        counts = np.where(outside, 0, counts).astype(np_dt, copy=False)
        if left:
            shifted = np.where(outside, np_dt(0), np.left_shift(values, counts))
        else:
            shifted = np.where(outside, np.where(values < 0, np_dt(-1) if values.dtype.kind == "i" else np_dt(0),
                                                 np_dt(0)), np.right_shift(values, counts))
        return Tensor(np.require(np.asarray(shifted, dtype=np_dt), requirements="C"))

    op.__name__ = op.__qualname__ = name
    return op


bitwise_left_shift = _shift("bitwise_left_shift", left=True)
bitwise_right_shift = _shift("bitwise_right_shift", left=False)


# ---------------------------------------------------------------- complex parts
def real(input):
    return ops.real(input) if input.dtype in _dtype.COMPLEX else input  # (a real tensor is its own real part)


def imag(input):
    if input.dtype not in _dtype.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return ops.imag(input)


def conj(input):
    return ops.conj(input) if input.dtype in _dtype.COMPLEX else input


def angle(input):
    if input.dtype in _dtype.COMPLEX:
        return ops.angle(input)
    x = _as(input, _float_dtype(input.dtype))
    # pi for negatives, 0 otherwise, NaN stays NaN; the gradient is 0 (torch's for real inputs)
    zero = _ms.zeros((), x.dtype)
    return pw.where(pw.isnan(x), x, pw.where(pw.lt(x, 0), zero + math.pi, zero))


def isreal(input):
    if input.dtype in _dtype.COMPLEX:
        return pw.eq(ops.imag(input), 0)
    return ops.ones(tuple(input.shape), mindspore.bool_)


def view_as_real(input):
    if input.dtype not in _dtype.COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ops.stack((ops.real(input), ops.imag(input)), -1)  # (a copy: MindSpore cannot alias the parts)


# torch's layout of elementwise results (see result_layout)
from . import result_layout as _result_layout  # noqa: E402

_result_layout.follow_operands(globals(), (
    "acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh", "lgamma", "digamma", "i0", "sinc", "copysign",
    "float_power", "bitwise_left_shift", "bitwise_right_shift", "signbit", "nextafter", "igamma", "igammac",
), {"float_power": lambda args, kwargs: type(args[0] if args else kwargs.get("input")) is _result_layout.Tensor})
