"""Elementwise ops: arithmetic, comparisons, logical, math functions, activations used as torch.* functions."""
import functools

import mindspore
import numpy as np
from mindspore import ops
from ... import _mindspore as _ms
from ..._mindspore import TensorPy
from .. import _dtype
from . import _promotion
from ..autograd.function import Function
from ._host_math import accurate_unary
from .ieee_division import quotient
from .erfinv_float64 import erfinv_any
from ._util import no_kernel, Tensor, type_name, write_out
from .broadcast import empty_broadcast, tiled_operands
from . import host_small
from .. import _sparse_coo
from .._sparse_coo import SparseCooTensor as _Sparse
from .._runtime import grad_enabled


# isinstance against TensorPy, the C base class: Tensor's ABC metaclass makes `isinstance(1, Tensor)` about 4x
# slower, and add sees Python scalars often (`x + 1`)
def _tracks_grad(x):
    return isinstance(x, TensorPy) and (x._requires_grad or not x._is_leaf)


def _is_grad_leaf(x):
    return isinstance(x, TensorPy) and x._requires_grad and x._is_leaf


def _grad_goes_to_leaf_and_branch(input, other):
    """MindSpore's Add backward hands the same gradient tensor to both inputs; when one of them is a leaf that
    requires grad, storing it needs a Clone kernel that the CPU backend lacks ("The kernel Clone unregistered").
    The leaf test comes first: it rules out most calls with the fewest attribute reads."""
    return (_is_grad_leaf(input) and _tracks_grad(other)) or (_is_grad_leaf(other) and _tracks_grad(input))


_BOOL = mindspore.bool_
_FLOAT_DTYPES = frozenset({mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64})
# MindSpore's kernels take a Python scalar operand as float32: exact enough below float64 only
_SCALAR_SAFE_FLOATS = frozenset({mindspore.float16, mindspore.bfloat16, mindspore.float32})
_F64 = mindspore.float64


def _promoted(input, other, to_float=False):
    """Both operands in torch's result dtype (see _promotion); `to_float`: integer results become the default
    float dtype (true division, atan2). Equal tensor dtypes pass through untouched."""
    if not to_float and type(input) is Tensor and type(other) is Tensor and input._dtype is other._dtype:
        return input, other
    dt = _promotion.result_type(input, other)
    if to_float and _promotion.kind(dt) < 2:
        dt = _dtype.get_default_dtype()
    input, other = _promotion.cast_operand(input, dt), _promotion.cast_operand(other, dt)
    # MindSpore widens a 0-d tensor combined with a Python scalar (int8 0-d * 2 is int64), and rounds a Python
    # scalar to float32 even beside a float64 tensor: make the scalar a tensor of the result dtype there
    if not isinstance(other, TensorPy) and isinstance(input, TensorPy) and (not input.ndim or dt is _F64):
        other = Tensor(other, dt)
    elif not isinstance(input, TensorPy) and isinstance(other, TensorPy) and (not other.ndim or dt is _F64):
        input = Tensor(input, dt)
    return input, other


_HALF = (mindspore.float16, mindspore.bfloat16)


def _exact_scalar(value, like):
    """A Python number as an operand beside the float64 tensor `like`: a float64 0-d tensor, since MindSpore's
    kernels take a Python scalar as float32 (alpha=0.1 became 0.10000000149011612)."""
    if like._dtype is _F64 and not isinstance(value, (TensorPy, bool)):
        return Tensor(value, _F64)
    return value


def _both_bool(input, other):
    return (not isinstance(input, TensorPy) or input.dtype == mindspore.bool_) and \
        (not isinstance(other, TensorPy) or other.dtype == mindspore.bool_) and \
        (type(input) is bool or type(other) is bool or isinstance(input, TensorPy) and isinstance(other, TensorPy))


def _check_alpha(input, other, alpha):
    """torch's rule for add/sub's alpha: it must fit the result's kind (a float alpha would silently truncate
    into an integer result, a bool one would mean or/xor)."""
    kind = _promotion.kind(_promotion.result_type(input, other))
    if isinstance(alpha, bool):
        if kind != 0:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif kind <= 1 and isinstance(alpha, (float, complex)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    elif kind == 2 and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _alpha_scaled(input, other, alpha):
    """The operands of add/sub with `other` scaled by `alpha`, as torch computes it: in the result dtype of the
    two (float32 + float16 * 1e6 does not overflow float16 first), alpha converted to it with torch's check
    (300 does not fit uint8: an error, not a wrapped 44)."""
    input, other = _promoted(input, other)
    dt = input.dtype if isinstance(input, TensorPy) else other.dtype
    _dtype.check_fits(alpha, dt, narrow_floats=True)
    if not isinstance(other, TensorPy):
        return input, other * alpha
    if type(alpha) is float and dt is mindspore.float32 and _dtype.BFLOAT16_IN_FLOAT32.active:
        alpha = float(Tensor(alpha, mindspore.bfloat16).astype(mindspore.float32).asnumpy())  # (torch rounds it so)
    if dt is _F64 or dt in _dtype.INTEGRAL or not other.ndim:
        alpha = Tensor(alpha, dt)  # (MindSpore takes a Python scalar as float32, or widens a 0-d integer operand)
    return input, ops.mul(other, alpha)


def _half_in_float32(op, input, other, alpha):
    """add/sub with alpha of a float16 result as torch computes it: alpha rounded to float16, the rest in
    float32, rounded once (a - 0.3 * b scaled in float16 first cancelled to 0.0 where torch gives -5.5e-5)."""
    _dtype.check_fits(alpha, mindspore.float16, narrow_floats=True)
    f32 = mindspore.float32
    alpha = float(np.float16(alpha)) if type(alpha) is float else alpha
    return ops.cast(op(_promotion.cast_operand(input, f32), _promotion.cast_operand(other, f32), alpha=alpha),
                    mindspore.float16)


def add(input, other, *, alpha=1, out=None):
    if out is not None:
        return write_out(out, add(input, other, alpha=alpha), "add")
    if type(other) is _Sparse or type(input) is _Sparse:
        return _sparse_coo.add(input, other, alpha=alpha)
    if type(alpha) is not int:
        _check_alpha(input, other, alpha)
    if alpha == 1:
        on_host = host_small.binary(np.add, input, other)
        if on_host is not None:
            return on_host
    if alpha != 1 and _both_bool(input, other):
        alpha = bool(alpha)  # a bool result: other * alpha is other and alpha
        other = other if alpha else ops.logical_and(other, False) if isinstance(other, TensorPy) else False
    elif alpha != 1:
        if _promotion.result_type(input, other) is mindspore.float16:
            return _half_in_float32(add, input, other, alpha)
        input, other = _alpha_scaled(input, other, alpha)
    # The common cases first, inline: a call's cost is mostly the Python run between two kernels.
    if type(input) is Tensor:
        if (type(other) is float or type(other) is int) and input._dtype in _SCALAR_SAFE_FLOATS:
            return ops.add(input, other)  # a scalar is no gradient leaf and never tiled
        if type(other) is Tensor and input._dtype is other._dtype and input._dtype is not _BOOL and \
                not (input._requires_grad or other._requires_grad) and input._shape == other._shape:
            return ops.add(input, other)  # no leaf that requires grad, nothing to tile
    input, other = _promoted(input, other)
    if _both_bool(input, other):
        return ops.logical_or(input, other)  # torch: bool + bool stays bool
    input, other = tiled_operands(input, other)  # (an operand of an empty result: see broadcast._empty_at)
    if _grad_goes_to_leaf_and_branch(input, other):
        return ops.sub(input, ops.neg(other))  # exact same value; Sub's backward gives each input its own tensor
    return ops.add(input, other)


def _is_bool(v):
    return v.dtype == mindspore.bool_ if isinstance(v, TensorPy) else isinstance(v, bool)


def _refuse_bool_subtraction(input, other):
    """torch refuses a bool operand to subtraction (a Python bool too) rather than give an arithmetic answer."""
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def sub(input, other, *, alpha=1, out=None):
    if out is not None:
        return write_out(out, sub(input, other, alpha=alpha), "sub")
    if type(other) is _Sparse or type(input) is _Sparse:
        return _sparse_coo.add(input, other, alpha=-alpha)
    _refuse_bool_subtraction(input, other)
    if type(alpha) is not int:
        _check_alpha(input, other, alpha)
    if alpha == 1:
        on_host = host_small.binary(np.subtract, input, other)
        if on_host is not None:
            return on_host
    if alpha != 1:
        if _promotion.result_type(input, other) is mindspore.float16:
            return _half_in_float32(sub, input, other, alpha)
        input, other = _alpha_scaled(input, other, alpha)
    if type(input) is Tensor and type(other) is Tensor and input._dtype is other._dtype \
            and input._shape == other._shape:
        return ops.sub(input, other)
    return ops.sub(*tiled_operands(*_promoted(input, other)))


def rsub(input, other, *, alpha=1):
    return sub(other, input, alpha=alpha)


def mul(input, other, *, out=None):
    if out is not None:
        return write_out(out, mul(input, other), "mul")
    if type(other) is _Sparse:
        return other.mul(input)  # (a dense 0-d tensor or a number times a sparse tensor)
    if type(input) is _Sparse:
        return input.mul(other)
    on_host = host_small.binary(np.multiply, input, other)
    if on_host is not None:
        return on_host
    if type(input) is Tensor and type(other) is Tensor and input._dtype is other._dtype \
            and input._shape == other._shape:
        return ops.mul(input, other)
    input, other = _promoted(input, other)
    if _both_bool(input, other):
        return ops.logical_and(input, other)
    return ops.mul(*tiled_operands(input, other))


def div(input, other, *, rounding_mode=None, out=None):
    if out is not None:
        return write_out(out, div(input, other, rounding_mode=rounding_mode), "div",
                         differentiable=rounding_mode is None)
    if rounding_mode is None:
        on_host = host_small.binary(np.true_divide, input, other, host_small.FLOATS)  # (IEEE division: torch's bits)
        if on_host is not None:
            return on_host
        if not isinstance(input, Tensor):
            input = ops.scalar_to_tensor(input, other.dtype if other.is_floating_point() else mindspore.float32)
        return quotient(*tiled_operands(input, other))
    if rounding_mode == "floor":
        if not (_tracks_grad(input) or _tracks_grad(other)) or not grad_enabled():
            return floor_divide(input, other)
        # torch differentiates this form (zero gradients) where floor_divide refuses: the values computed off
        # the tape, then joined to the operands by a select that never takes them
        from ..autograd.grad_mode import no_grad

        with no_grad():
            out = floor_divide(input, other)
        for operand in (input, other):
            if _tracks_grad(operand):
                out = ops.where(_ms.zeros(out.shape, mindspore.bool_), operand.astype(out.dtype), out)
        return out
    if rounding_mode == "trunc":
        _check_integer_divisor(input, other)
        if _integral(input) and _integral(other) and not (_is_bool(input) and _is_bool(other)):
            return _integer_division(_truncated_quotient, input, other)
        floating = any(isinstance(v, float) or isinstance(v, TensorPy) and v.is_floating_point()
                       for v in (input, other))
        # (IEEE division for floats: the sign of a zero divisor decides the infinity's, -2.8 / -0.0 is +inf)
        truncated = ops.trunc(quotient(*tiled_operands(input, other)) if floating and isinstance(input, TensorPy)
                              and isinstance(other, TensorPy) else ops.div(input, other))
        integral = [v for v in (input, other) if isinstance(v, Tensor) and not v.is_floating_point()]
        if integral and not any(isinstance(v, float) or (isinstance(v, Tensor) and v.is_floating_point())
                                for v in (input, other)):
            return truncated.astype(integral[0].dtype)  # integer inputs keep an integer result, as in torch
        return truncated
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _integral(x):
    return type(x) is int or type(x) is bool or (isinstance(x, TensorPy) and x._dtype in _dtype.INTEGRAL)


def _check_integer_divisor(input, other):
    """Integer division by zero raises in torch; MindSpore's CPU kernels return INT64_MAX or garbage instead."""
    if _integral(input) and _integral(other):
        if not isinstance(other, TensorPy):
            zero = other == 0
        else:
            zero = other.numel() != 0 and not other.asnumpy().all()  # (zero-copy on the CPU target)
        if zero:
            raise RuntimeError("ZeroDivisionError: integer division or modulo by zero")


def floor_divide(input, other, *, out=None):
    if out is not None:  # (no gradient: torch does not refuse inputs that require grad here)
        return write_out(out, floor_divide(input, other), "floor_divide", differentiable=False)
    _check_integer_divisor(input, other)
    kind = _promotion.kind(_promotion.result_type(input, other))
    if kind == 2:
        return _host_division("floor_divide")(*_scalars_as_tensors(input, other))
    if kind == 1:
        return _integer_division(np.floor_divide, input, other)
    if kind == 0:  # (MindSpore's kernel answers two bools)
        raise no_kernel("div_floor_cpu", mindspore.bool_)
    return ops.floor_divide(input, other)


def remainder(input, other, *, out=None):
    if out is not None:
        return write_out(out, remainder(input, other), "remainder")
    _check_integer_divisor(input, other)
    kind = _promotion.kind(_promotion.result_type(input, other))
    if kind == 2:
        return _host_division("remainder")(*_scalars_as_tensors(input, other))
    if kind == 1:
        return _integer_division(np.remainder, input, other)
    return ops.remainder(*_promoted(input, other))


def fmod(input, other, *, out=None):
    if out is not None:
        return write_out(out, fmod(input, other), "fmod")
    _check_integer_divisor(input, other)
    kind = _promotion.kind(_promotion.result_type(input, other))
    if kind == 2:
        return _host_division("fmod")(*_scalars_as_tensors(input, other))
    if kind == 1:
        return _integer_division(np.fmod, input, other)
    return ops.fmod(*_promoted(input, other))


_HOST_DIVISIONS = {}


def _truncated_quotient(a, b):
    """C's integer division (toward zero) of NumPy integer arrays, exact."""
    q = np.floor_divide(a, b)
    return q + ((q * b != a) & ((a < 0) != (b < 0))).astype(q.dtype)


def _integer_division(np_fn, input, other):
    """floor_divide, remainder or fmod of integers in NumPy, exact in the result dtype: MindSpore's int64
    remainder went through floating point (x % -7 of large int64 values gave numbers past -7)."""
    a, b = (v.asnumpy() for v in _scalars_as_tensors(*_promoted(input, other)))
    with host_small.quiet_numpy():  # (INT_MIN // -1 wraps, as torch's does)
        return Tensor(np.require(np_fn(a, b), requirements="C"))


def _scalars_as_tensors(input, other):
    """A Python number beside a tensor as a 0-d tensor of the result dtype: torch divides by 0.1 rounded to
    float32 beside a float32 tensor, not by the double."""
    dt = _promotion.result_type(input, other)
    return tuple(v if isinstance(v, TensorPy) else Tensor(v, dt) for v in (input, other))


def _host_division(name):
    """fmod, remainder and floor_divide of floating tensors on the host from C's exact fmod, computed in float64
    and rounded once (fmod is exact in every float dtype): MindSpore's kernels divide first (float64
    fmod(-3.0, 0.1) gave 0.0, torch -0.09999999999999984; 2.5 // 0.1 gave 25.0, torch 24.0; float32
    -5.6e29 % 799.7 gave -3.8e22 for 233.6), lose the sign of a zero divisor (-2.8 // -0.0 gave -inf) and
    answer NaN for x % -inf.
    Derivatives as torch's: fmod d/dother = -trunc(a / b), remainder -floor(a / b), floor_divide refused."""
    op = _HOST_DIVISIONS.get(name)
    if op is None:
        import numpy as np
        from .host_special import pointwise

        def torch_remainder(a, b):
            m = np.fmod(a, b)
            return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)

        def ones(a, b):
            return np.ones_like(a * b)

        def refuse(a, b):
            raise RuntimeError("derivative for aten::floor_divide is not implemented")

        fn, derivatives = {
            "fmod": (np.fmod, (ones, lambda a, b: -np.trunc(a / b))),
            "remainder": (torch_remainder, (ones, lambda a, b: -np.floor_divide(a, b))),
            "floor_divide": (np.floor_divide, (refuse, refuse)),
        }[name]
        op = _HOST_DIVISIONS[name] = pointwise(name, fn, derivatives)
    return op


def pow(input, exponent, *, out=None):
    if out is not None:
        return write_out(out, pow(input, exponent), "pow")
    if _promotion.kind(_promotion.result_type(input, exponent)) == 1:
        return _integer_power(input, exponent)
    if _tracks_grad(input) and not _tracks_grad(exponent) and grad_enabled():
        input = _base_without_zero_exponents(input, exponent)
    return ops.pow(input, exponent)


def _integer_power(input, exponent):
    """torch's integer powers: exact, wrapping past the dtype's range as repeated multiplication does (MindSpore's
    kernel goes through floating point: 3**41 came back as the lowest int64). A negative Python exponent is an
    error; a negative element of an exponent tensor gives 1/base^n truncated (1, +-1 for base -1, else 0)."""
    if not isinstance(exponent, TensorPy) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    dt = _promotion.result_type(input, exponent)
    np_dt = _dtype.to_numpy_dtype(dt)
    base = input.asnumpy().astype(np_dt) if isinstance(input, TensorPy) else np.asarray(input, np_dt)
    power = exponent.asnumpy().astype(np_dt) if isinstance(exponent, TensorPy) else np.asarray(exponent, np_dt)
    with host_small.quiet_numpy():  # (overflow wraps, as torch's does, without NumPy's warning)
        out = np.power(base, np.where(power < 0, 0, power).astype(np_dt))
        if (power < 0).any():
            odd = (power % 2) != 0
            negative = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0)).astype(np_dt)
            out = np.where(power < 0, negative, out)
    return Tensor(np.array(out, dtype=np_dt, order="C"))  # (ascontiguousarray would make a 0-d result 1-d)


def _base_without_zero_exponents(base, exponent):
    """The base with 1 where the exponent is 0: the same powers (1), and torch's gradient there, 0 (MindSpore's
    is 0 * x^-1, NaN at x = 0)."""
    if isinstance(exponent, TensorPy):
        return ops.where(ops.equal(exponent, 0), ops.ones_like(base), base)
    if exponent == 0:
        return ops.where(_ms.zeros(base.shape, mindspore.bool_), base, ops.ones_like(base))
    return base


# the exponents torch's CPU kernel computes with multiplications, divisions and square roots (each IEEE-rounded,
# so NumPy's same operations give its bits)
# (each passes `q`, NumPy's error settings, on to its ufuncs: see host_small.quietly)
_HOST_POWERS = {
    2: lambda a, **q: np.multiply(a, a, **q),
    3: lambda a, **q: np.multiply(np.multiply(a, a, **q), a, **q),
    0.5: np.sqrt,
    # (1 in the array's own type: NumPy would widen a Python 1 beside a 0-d float32 array to float64)
    -0.5: lambda a, **q: np.divide(a.dtype.type(1), np.sqrt(a, **q), **q),
    -1: lambda a, **q: np.divide(a.dtype.type(1), a, **q),
    -2: lambda a, **q: np.divide(a.dtype.type(1), np.multiply(a, a, **q), **q),
    1: lambda a, **q: a.copy(),
}


_INTEGRAL_OR_BOOL = _dtype.INTEGRAL | {mindspore.bool_}


def _unary(ms_fn, name, exact=False, host=None, host_dtypes=host_small.FLOATS, host_rounds=False, floating=False):
    """A one-input op; `exact`: its out= takes only the result's own dtype (torch: abs, floor, sign, ...);
    `host`: the NumPy function that gives torch's result for small tensors of `host_dtypes` (host_small);
    `host_rounds`: it may round differently from MindSpore's kernel (see host_small.takes); `floating`: a
    float-valued op, which torch computes for integer and bool tensors in the default float dtype (MindSpore's
    kernels refuse them)."""
    def op(input, *, out=None):
        if out is not None:  # (the value from the module's op: the one adapted per target)
            return write_out(out, globals()[name](input), name, exact=exact)
        if floating and isinstance(input, TensorPy) and input._dtype in _INTEGRAL_OR_BOOL:
            input = input.astype(_dtype.get_default_dtype())
        if host is not None:
            on_host = host_small.unary(host, input, host_dtypes, host_rounds)
            if on_host is not None:
                return on_host
        try:
            return ms_fn(input)
        except TypeError:
            _refuse_sparse(input, name)
            raise

    op.__name__ = op.__qualname__ = name
    return op


def _unary_without_out(ms_fn, name):
    """A one-input op that torch gives no `out=`."""
    def op(input):
        try:
            return ms_fn(input)
        except TypeError:
            _refuse_sparse(input, name)
            raise

    op.__name__ = op.__qualname__ = name
    return op


def _refuse_sparse(input, name):
    """After MindSpore's argument check refused `input`: a sparse tensor gets torch's kind of error, naming the op
    (torch has no sparse kernel for these ops either)."""
    if type(input) is _Sparse:
        raise _sparse_coo.unsupported(f"torch.{name}") from None


neg = negative = _unary(ops.neg, "neg", exact=True, host=np.negative, host_dtypes=host_small.FLOATS_AND_INTEGERS)


def _magnitude(input):
    if input._dtype is mindspore.bool_:  # (MindSpore's kernel answers the bools)
        raise no_kernel("abs_cpu", mindspore.bool_)
    # torch's abs of a complex tensor is its real magnitude; MindSpore's Abs keeps the complex dtype
    return ops.ComplexAbs()(input) if input.dtype in _dtype.COMPLEX else ops.abs(input)


abs = absolute = _unary(_magnitude, "abs", exact=True)
exp = _unary(accurate_unary(ops.exp, "exp"), "exp", floating=True)
exp2 = _unary(ops.exp2, "exp2")
expm1 = _unary(accurate_unary(ops.expm1, "expm1"), "expm1", floating=True)
log = _unary(accurate_unary(ops.log, "log"), "log", floating=True)
log2 = _unary(accurate_unary(ops.log2, "log2"), "log2", floating=True)
log10 = _unary(accurate_unary(ops.log10, "log10"), "log10", floating=True)
log1p = _unary(accurate_unary(ops.log1p, "log1p"), "log1p", floating=True)
sqrt = _unary(ops.sqrt, "sqrt", host=np.sqrt, host_rounds=True)
rsqrt = _unary(ops.rsqrt, "rsqrt", host=_HOST_POWERS[-0.5], host_rounds=True, floating=True)  # torch's kernel: 1 / sqrt(x), both rounded
# (small tensors in float64 on the host and rounded once: RoPE's cos/sin tables are made every decoding step)
sin = _unary(ops.sin, "sin", host=host_small.in_float64(np.sin), host_rounds=True, floating=True)
cos = _unary(ops.cos, "cos", host=host_small.in_float64(np.cos), host_rounds=True, floating=True)
tan = _unary(ops.tan, "tan", floating=True)
asin = arcsin = _unary(ops.asin, "asin", floating=True)
acos = arccos = _unary(ops.acos, "acos", floating=True)
atan = arctan = _unary(ops.atan, "atan", floating=True)
sinh = _unary(ops.sinh, "sinh", floating=True)
cosh = _unary(ops.cosh, "cosh", floating=True)
tanh = _unary(accurate_unary(ops.tanh, "tanh"), "tanh", floating=True)
sigmoid = _unary(accurate_unary(ops.sigmoid, "sigmoid"), "sigmoid", floating=True)
erf = _unary(ops.erf, "erf", floating=True)
erfc = _unary(ops.erfc, "erfc", floating=True)
erfinv = _unary(erfinv_any, "erfinv", floating=True)
class _Stepwise(Function):
    """A piecewise-constant op with torch's zero gradient: MindSpore's Round, Ceil and Sign record no gradient
    (the input's .grad stayed None where torch's is zeros)."""

    @staticmethod
    def forward(ctx, input, fn):
        return fn(input)

    @staticmethod
    def backward(ctx, grad):
        return ops.zeros_like(grad), None


def _with_zero_gradient(ms_fn):
    def op(input):
        if isinstance(input, TensorPy) and input.requires_grad:
            return _Stepwise.apply(input, ms_fn)
        return ms_fn(input)

    return op


def _integers_unchanged(fn, name):
    """`fn` for floating inputs; an integer input comes back as a copy, as torch's rounding functions give it
    (MindSpore's kernels refuse integers), and a bool one is refused, as torch refuses it."""
    def rounded(input):
        if input._dtype in _dtype.INTEGRAL:
            return input.clone()
        if input._dtype is mindspore.bool_:
            raise no_kernel(f"{name}_vml_cpu", mindspore.bool_)
        return fn(input)

    return rounded


floor = _unary(_integers_unchanged(ops.floor, "floor"), "floor", exact=True)
ceil = _unary(_integers_unchanged(_with_zero_gradient(ops.ceil), "ceil"), "ceil", exact=True)
trunc = fix = _unary(_integers_unchanged(ops.trunc, "trunc"), "trunc", exact=True)
def _frac(x):
    if _promotion.kind(x.dtype) < 2:  # (an integer's fraction would be 0; torch has no kernel for it)
        raise no_kernel("frac_cpu", x.dtype)
    return ops.sub(x, ops.trunc(x))


frac = _unary(_frac, "frac", exact=True)
def _integer_sign(ms_sign):
    """sign with NumPy's for the integer types MindSpore's Sign kernel lacks (int8, uint8, int16: a TypeError)."""
    def op(input):
        if isinstance(input, TensorPy) and input._dtype in (mindspore.int8, mindspore.uint8, mindspore.int16):
            return Tensor(np.require(np.sign(input.asnumpy()), requirements="C"))
        if isinstance(input, TensorPy) and input._dtype is mindspore.bool_:
            return input.clone()  # (the sign of a bool is the bool)
        return ms_sign(input)

    return op


sign = _unary(_integer_sign(_with_zero_gradient(ops.sign)), "sign", exact=True)
sgn = sign
reciprocal = _unary(ops.reciprocal, "reciprocal")
square = _unary(lambda x: x.astype(mindspore.int64) if x._dtype is mindspore.bool_ else ops.square(x),
               "square")  # (torch squares bools as int64, where x * x = x)
logical_not = _unary(ops.logical_not, "logical_not", host=np.logical_not, host_dtypes=host_small.WITH_BOOL)
bitwise_not = _unary(lambda x: ops.logical_not(x) if x.dtype == mindspore.bool_ else ops.invert(x), "bitwise_not",
                     exact=True, host=np.invert, host_dtypes=host_small.EXACT_INTEGERS + (mindspore.bool_,))
def _float_test(ms_fn, integers_answer):
    """A test of float values (isnan, isinf, ...): an integer or bool tensor is never NaN or infinite, and
    MindSpore's kernels refuse those dtypes."""
    def test(x):
        if _promotion.kind(x.dtype) < 2:
            return ops.fill(mindspore.bool_, x.shape, integers_answer)
        return ms_fn(x)

    return test


isnan = _unary_without_out(_float_test(ops.isnan, False), "isnan")
isinf = _unary_without_out(_float_test(ops.isinf, False), "isinf")
isfinite = _unary_without_out(_float_test(ops.isfinite, True), "isfinite")
def _relu(input):
    if input._dtype is mindspore.bool_:  # (MindSpore's kernel answers one)
        raise RuntimeError("Boolean inputs not supported for relu")
    if input._dtype not in _FLOAT_DTYPES:
        return ops.relu(input)
    # x where it is not <= 0: NaN stays NaN with its gradient passing, 0 at 0 (torch's values and gradients;
    # MindSpore's ReLU kernel gives 0 for NaN), in two kernels
    return ops.where(ops.le(input, 0), _ms.zeros((), input.dtype), input)


relu = _unary_without_out(_relu, "relu")
isneginf = _unary(_float_test(lambda x: ops.logical_and(ops.isinf(x), ops.lt(x, 0)), False), "isneginf", exact=True)
isposinf = _unary(_float_test(lambda x: ops.logical_and(ops.isinf(x), ops.gt(x, 0)), False), "isposinf", exact=True)


def _round_half_even(input):
    return _with_zero_gradient(ops.round)(input)


def round(input, *, decimals=0, out=None):
    if out is not None:
        return write_out(out, round(input, decimals=decimals), "round", exact=True)
    if _promotion.kind(input.dtype) < 2:  # integers are their own rounding; torch has no kernel for the rest
        if input.dtype == mindspore.bool_ or decimals:
            raise no_kernel("round_cpu", input.dtype)
        return input.clone()
    if decimals:
        # torch: nearbyint(x * 10^d) / 10^d, for d < 0 nearbyint(x / 10^-d) * 10^-d; halves in float32
        work = mindspore.float32 if input.dtype in (mindspore.float16, mindspore.bfloat16) else input.dtype
        x = input.astype(work) if work != input.dtype else input
        scale = Tensor(10.0 ** (decimals if decimals > 0 else -decimals), work)  # (`abs` here is torch.abs)
        if decimals > 0:
            rounded = ops.div(_round_half_even(ops.mul(x, scale)), scale)
        else:
            rounded = ops.mul(_round_half_even(ops.div(x, scale)), scale)
        return rounded.astype(input.dtype) if work != input.dtype else rounded
    return _round_half_even(input)


def _binary(ms_fn, name, host=None):
    """A two-input op; `host`: the NumPy ufunc that gives torch's result for small tensors (host_small)."""
    def op(input, other, *, out=None):
        if out is not None:
            return write_out(out, globals()[name](input, other), name)
        if host is not None:
            on_host = host_small.binary(host, input, other, host_small.WITH_BOOL)
            if on_host is not None:
                return on_host
        return ms_fn(input, other)

    op.__name__ = op.__qualname__ = name
    return op


def _scalar_in_tensor_dtype(compare):
    """`compare` with a Python number beside a tensor first cast to the tensor's dtype, as torch casts it (an int8
    tensor compared with 200 is compared with -56, a uint8 one with 257 with 1, a float16 one with 0.1 with
    0.0999755859375)."""
    def compared(input, other, *, out=None):
        if type(input) is Tensor and (type(other) is int or type(other) is float):
            other = _dtype.wrapped_to(other, input._dtype)
        elif type(other) is Tensor and (type(input) is int or type(input) is float):
            input = _dtype.wrapped_to(input, other._dtype)
        return compare(input, other, out=out)

    compared.__name__ = compared.__qualname__ = compare.__name__
    return compared


# (IEEE comparisons: NumPy's and torch's agree on every value, nan and signed zeros included; the host takes
# int32/int64 tensors with scalars inside their range only, see host_small.scalar; the scalar is cast before
# either path sees it)
eq = _scalar_in_tensor_dtype(_binary(ops.equal, "eq", np.equal))
ne = not_equal = _scalar_in_tensor_dtype(_binary(ops.not_equal, "ne", np.not_equal))
lt = less = _scalar_in_tensor_dtype(_binary(ops.less, "lt", np.less))
le = less_equal = _scalar_in_tensor_dtype(_binary(ops.less_equal, "le", np.less_equal))
gt = greater = _scalar_in_tensor_dtype(_binary(ops.greater, "gt", np.greater))
ge = greater_equal = _scalar_in_tensor_dtype(_binary(ops.greater_equal, "ge", np.greater_equal))
_NAN_GRADIENTS = {  # of x where x is NaN, and 0 elsewhere (x_at_nan: x there, 0 elsewhere)
    "passes": lambda x, x_at_nan: x,  # d/dx = 1
    "zero": lambda x, x_at_nan: ops.stop_gradient(x),
    "nan": lambda x, x_at_nan: ops.mul(x_at_nan, x_at_nan),  # NaN, with the derivative 2x: NaN there, 0 elsewhere
}


def _nan_passing(fn, input, nan_gradient):
    """`fn(input)` (an elementwise function) with NaN where `input` is NaN, and torch's gradient there
    (`nan_gradient`: "passes", "zero" or "nan"). torch's clamps and activations propagate NaN, where MindSpore's
    clamp, relu and minimum kernels answer a number (relu(nan) = 0, clamp(nan, 0, 1) = 0, which would hide a
    diverging run). `fn` itself sees 0 in place of each NaN, so that its backward,
    masked there, does not turn the mask's zeros into NaN (0 times a NaN local derivative)."""
    if type(input) is not Tensor or input._dtype not in _FLOAT_DTYPES:
        return fn(input)
    nan = ops.isnan(input)
    zeros = ops.zeros_like(input)
    out = fn(ops.where(nan, zeros, input))
    return ops.where(nan, _NAN_GRADIENTS[nan_gradient](input, ops.where(nan, input, zeros)), out)


def _nan_propagating(ms_fn):
    """maximum/minimum as torch's: NaN where either operand is (MindSpore's kernels drop a NaN first operand),
    there as their sum, so that both operands take the gradient, as torch gives it."""
    def extreme(input, other):
        out = ms_fn(input, other)
        if type(out) is not Tensor or out._dtype not in _FLOAT_DTYPES:
            return out
        nan = [ops.isnan(t) for t in (input, other) if type(t) is Tensor]
        either = nan[0] if len(nan) == 1 else ops.logical_or(*nan)
        return ops.where(either, ops.add(input, other), out)

    return extreme


def _nan_ignoring(compare):
    """fmax/fmin as torch's: `input` where `compare(input, other)` holds or `other` is NaN, else `other` (NaN only
    where both are); at a tie the gradient goes to `input`, as torch's."""
    def extreme(input, other):
        if type(input) is not Tensor or type(other) is not Tensor:
            input, other = (t if type(t) is Tensor else Tensor(t, (other if type(other) is Tensor else input).dtype)
                            for t in (input, other))
        return ops.where(ops.logical_or(compare(input, other), ops.isnan(other)), input, other)

    return extreme


maximum = _binary(_nan_propagating(ops.maximum), "maximum", np.maximum)
minimum = _binary(_nan_propagating(ops.minimum), "minimum", np.minimum)
fmax = _binary(_nan_ignoring(ops.ge), "fmax", np.fmax)
fmin = _binary(_nan_ignoring(ops.le), "fmin", np.fmin)
logical_and = _binary(ops.logical_and, "logical_and")
logical_or = _binary(ops.logical_or, "logical_or")
logical_xor = _binary(ops.logical_xor, "logical_xor")
# (empty_broadcast: an operand broadcast against an empty tensor gets a zero gradient, not ReduceSum's
# uninitialized empty sum)
class _Atan2(Function):
    """atan2(y, x) recorded with torch's gradient: (x, -y) / (x^2 + y^2), 0 at the origin (where MindSpore's is
    NaN)."""

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(y, x)
        return ops.atan2(y, x)

    @staticmethod
    def backward(ctx, grad):
        y, x = ctx.saved_tensors
        squares = ops.add(ops.mul(x, x), ops.mul(y, y))
        scale = ops.div(grad, ops.where(ops.equal(squares, 0), ops.ones_like(squares), squares))
        grad_y, grad_x = ops.mul(scale, x), ops.neg(ops.mul(scale, y))
        return _summed_to(grad_y, y.shape), _summed_to(grad_x, x.shape)


def _atan2(input, other):
    y, x = empty_broadcast(*_same_dtype(input, other))
    if isinstance(y, TensorPy) and isinstance(x, TensorPy) and grad_enabled() and (_tracks_grad(y) or
                                                                                 _tracks_grad(x)):
        return _Atan2.apply(y, x)
    return ops.atan2(y, x)


atan2 = arctan2 = _binary(_atan2, "atan2")
def _summed_to(grad, shape):
    """`grad` summed over the dimensions that broadcasting expanded from `shape`."""
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
    return ops.reshape(ops.sum(grad, axes), shape) if axes else grad


class _Hypot64(Function):
    """hypot of float64 tensors with its derivative (input / result, other / result) computed in float64:
    MindSpore's HypotGrad rounds through float32."""

    @staticmethod
    def forward(ctx, input, other):
        result = ops.hypot(input, other)
        ctx.save_for_backward(input, other, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        input, other, result = ctx.saved_tensors
        scaled = ops.div(grad, result)
        return (_summed_to(ops.mul(scaled, input), tuple(input.shape)),
                _summed_to(ops.mul(scaled, other), tuple(other.shape)))


def _same_dtype(input, other):
    """Tensor operands of different dtypes cast to torch's result type: MindSpore's atan2/hypot compute a
    float32 and a float64 operand (and their gradients) in float32."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.dtype != other.dtype:
        dt = _promotion.result_type(input, other)
        return _promotion.cast_operand(input, dt), _promotion.cast_operand(other, dt)
    return input, other


def _hypot(input, other):
    input, other = _same_dtype(input, other)
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.dtype == other.dtype == mindspore.float64:
        return _Hypot64.apply(input, other)
    if isinstance(input, Tensor) and input.dtype == mindspore.float16:  # (no float16 kernel: in float32, rounded)
        return ops.hypot(input.astype(mindspore.float32), _promotion.cast_operand(other, mindspore.float32)) \
            .astype(mindspore.float16)
    return ops.hypot(input, other)


hypot = _binary(_hypot, "hypot")


def _bitwise(ms_fn, bool_fn, name, host):
    def op(input, other, *, out=None):
        if out is not None:
            return write_out(out, op(input, other), name)
        on_host = host_small.binary(host, input, other, _HOST_BITWISE)  # (logical on bools, bitwise on integers)
        if on_host is not None:
            return on_host
        dt = input.dtype if isinstance(input, Tensor) else other.dtype
        if dt == mindspore.bool_:
            return bool_fn(input, other)
        return ms_fn(input, other)

    op.__name__ = op.__qualname__ = name
    return op


_HOST_BITWISE = host_small.EXACT_INTEGERS + (mindspore.bool_,)
bitwise_and = _bitwise(ops.bitwise_and, ops.logical_and, "bitwise_and", np.bitwise_and)
bitwise_or = _bitwise(ops.bitwise_or, ops.logical_or, "bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise(ops.bitwise_xor, ops.logical_xor, "bitwise_xor", np.bitwise_xor)


def equal(input, other):
    """True if both tensors have the same size and elements."""
    return tuple(input.shape) == tuple(other.shape) and bool(ops.equal(input, other).all())


def clamp(input, min=None, max=None, *, out=None):
    if out is not None:
        return write_out(out, clamp(input, min, max), "clamp", exact=True)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input._dtype in _FLOAT_DTYPES and (type(min) is bool or type(max) is bool or type(min) is complex
                                          or type(max) is complex):
        min, max = (_real_bound(b) for b in (min, max))
    for bound in (min, max):  # torch converts a scalar bound to the result dtype, checked (300 into uint8, 1e39)
        if type(bound) is int or type(bound) is float:
            dt = input._dtype if input._dtype in _FLOAT_DTYPES else _promotion.result_type(input, bound)
            _dtype.check_fits(bound, dt, narrow_floats=True)
    if input._dtype in _SCALAR_SAFE_FLOATS and not isinstance(min, TensorPy) and not isinstance(max, TensorPy):
        # the common case: float32-exact bounds, no promotion (torch: NaN stays NaN, with a zero gradient)
        rounding = input._dtype if input._dtype in _HALF else \
            mindspore.bfloat16 if _dtype.BFLOAT16_IN_FLOAT32.active else None  # (bf16 computes in float32)
        if rounding is not None:
            min, max = _bound_in(min, rounding), _bound_in(max, rounding)
        out = _nan_passing(lambda x: ops.clamp(x, min, max), input, "zero")
        zero = _ROUNDS_TO_ZERO[input._dtype]
        return _zeros_kept(out, input) if min is not None and -zero <= min <= zero or \
            max is not None and -zero <= max <= zero else out
    input, low, high = _clamp_operands(input, min, max)
    out = _nan_passing(lambda x: ops.clamp(x, low, high), input, "zero")
    return _zeros_kept(out, input) if input._dtype in _FLOAT_DTYPES else out


# the largest magnitude that rounds to zero in each dtype (half its smallest subnormal)
_ROUNDS_TO_ZERO = {mindspore.float16: 2.0 ** -25, mindspore.bfloat16: 2.0 ** -134, mindspore.float32: 2.0 ** -150}


def _zeros_kept(clamped, input):
    """torch's clamp keeps an input equal to a bound, MindSpore's answers the bound: they differ only where both
    are zeros of opposite signs (-0.0 clamped at min=0.0 stays -0.0 in torch)."""
    return ops.where(ops.logical_and(ops.equal(clamped, 0), ops.equal(input, 0)), input, clamped)


def _bound_in(bound, dtype):
    """A Python bound rounded to the half dtype of the input, as torch compares it: the gradient passes where the
    input equals the rounded bound (bf16 -0.30078125 clamped at min=-0.3 keeps its gradient)."""
    if bound is None or bound != bound:  # (None, or NaN: nothing to round)
        return bound
    return _rounded(bound, dtype)


@functools.lru_cache(maxsize=256)
def _rounded(number, dtype):
    """`number` rounded to `dtype` on the host (a model's clamp bounds repeat: no tensor is made per call)."""
    return float(np.asarray(number, _dtype.to_numpy_dtype(dtype)))


def _real_bound(bound):
    """A bound of a floating input: a bool as the number it is, a complex number as its real part where it has
    no imaginary part (torch refuses one that has)."""
    if type(bound) is bool:
        return int(bound)
    if type(bound) is complex:
        _dtype.check_fits(bound, mindspore.float64)
        return bound.real
    return bound


def _clamp_operands(input, low, high):
    """Input and bounds in torch's result dtype, the bounds as tensors of it: MindSpore takes a Python bound as
    float32 (a float64 tensor clamped at 0.05 got 0.05000000074505806, and 1 - eps became 1)."""
    dt = _promotion.result_type(input, *(b for b in (low, high) if b is not None))
    input = _promotion.cast_operand(input, dt)
    return (input,) + tuple(None if b is None else b.astype(dt) if isinstance(b, TensorPy) and b.dtype != dt
                            else b if isinstance(b, TensorPy) else Tensor(b, dt) for b in (low, high))


clip = clamp


def clamp_min(input, min, *, out=None):
    if out is not None:
        return write_out(out, clamp(input, min=min), "clamp_min", exact=True)
    return clamp(input, min=min)


def clamp_max(input, max, *, out=None):
    if out is not None:
        return write_out(out, clamp(input, max=max), "clamp_max", exact=True)
    return clamp(input, max=max)


def where(condition, input=None, other=None, *, out=None):
    if out is not None:
        return write_out(out, where(condition, input, other), "where", exact=True)
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    condition = _where_condition(condition)
    if isinstance(input, TensorPy) and isinstance(other, TensorPy):
        if input._dtype is not other._dtype:  # torch's result type (a 0-d operand does not widen the other)
            dt = _promotion.result_type(input, other)
            input, other = _promotion.cast_operand(input, dt), _promotion.cast_operand(other, dt)
    elif isinstance(input, TensorPy) or isinstance(other, TensorPy):
        input, other = _where_scalar(input, other)
    return ops.where(*empty_broadcast(condition, input, other))


def _where_condition(condition):
    """torch takes a bool condition, and a uint8 one as its nonzero elements; other dtypes are an error."""
    if not isinstance(condition, TensorPy) or condition._dtype is mindspore.bool_:
        return condition
    if condition._dtype is mindspore.uint8:
        return ops.ne(condition, 0)
    raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                       f"{type_name(condition._dtype)}")


def _where_scalar(input, other):
    """A tensor and a Python number: the number in torch's result dtype, converted with torch's check (300
    beside a uint8 tensor is an error, not a wrapped 44)."""
    tensor, scalar = (input, other) if isinstance(input, TensorPy) else (other, input)
    dt = _promotion.result_type(tensor, scalar)
    if isinstance(scalar, (int, float, complex)):
        _dtype.check_fits(scalar, dt)
        scalar = Tensor(scalar, dt)  # (MindSpore would take a float as float32 and a complex not at all)
    tensor = _promotion.cast_operand(tensor, dt)
    return (tensor, scalar) if isinstance(input, TensorPy) else (scalar, tensor)


def _check_opmath_scalar(value, dtype):
    """torch's check of a scalar that an op computes with in its internal type: float32 for float16 and bfloat16
    (lerp's weight, addcmul's value: 1e39 is an error, 1e6 beside float16 is not), the dtype itself otherwise."""
    if type(value) is not bool and isinstance(value, (int, float, complex)):
        _dtype.check_fits(value, mindspore.float32 if dtype in _dtype.HALF_FLOATS else dtype)




def lerp(input, end, weight, *, out=None):
    if out is not None:
        return write_out(out, lerp(input, end, weight), "lerp")
    narrow = input._dtype if input._dtype in _dtype.HALF_FLOATS else None
    if narrow is not None:  # torch computes half precision in float32 and rounds once
        f32 = mindspore.float32
        return lerp(input.astype(f32), end.astype(f32),
                    weight.astype(f32) if isinstance(weight, TensorPy) else weight).astype(narrow)
    diff = ops.sub(*tiled_operands(end, input))
    if not isinstance(weight, TensorPy):
        _check_opmath_scalar(weight, diff._dtype)
        # torch's two forms, whichever is nearer the weight's end (its rounding: start + w * diff below 0.5,
        # end - diff * (1 - w) from there)
        if -0.5 < weight < 0.5:
            return ops.add(input, ops.mul(diff, Tensor(float(weight), diff.dtype)))
        return ops.sub(*tiled_operands(end, ops.mul(diff, Tensor(1.0 - float(weight), diff.dtype))))
    near_start = ops.lt(ops.abs(weight), 0.5)
    from_start = ops.add(*tiled_operands(input, ops.mul(*tiled_operands(diff, weight))))
    from_end = ops.sub(*tiled_operands(end, ops.mul(*tiled_operands(diff, ops.sub(1, weight)))))
    return ops.where(*empty_broadcast(near_start, from_start, from_end))


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    if out is not None:
        return write_out(out, addcmul(input, tensor1, tensor2, value=value), "addcmul")
    # (tiled: on MindSpore 2.7 the broadcast gradient of an empty product was uninitialized memory)
    product = ops.mul(*tiled_operands(tensor1, tensor2))
    _check_opmath_scalar(value, product._dtype)
    # (the shim's add: ops.add's backward into a leaf `input` needs a Clone kernel the CPU lacks)
    return add(input, _scaled(product, value))


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    if out is not None:
        return write_out(out, addcdiv(input, tensor1, tensor2, value=value), "addcdiv")
    ratio = quotient(*tiled_operands(tensor1, tensor2))
    _check_opmath_scalar(value, ratio._dtype)
    return add(input, _scaled(ratio, value))


def _scaled(tensor, value):
    """`tensor * value` for addcmul/addcdiv: a half-precision tensor is scaled in float32, as torch's opmath does
    (MindSpore 2.7 casts the scalar to float16 first: 0 * 1e6 became 0 * inf = nan)."""
    if tensor._dtype in _HALF and not isinstance(value, (TensorPy, bool)):
        return ops.mul(tensor.astype(mindspore.float32), value).astype(tensor._dtype)
    return ops.mul(tensor, _exact_scalar(value, tensor))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    if out is not None:
        return write_out(out, nan_to_num(input, nan, posinf, neginf), "nan_to_num", exact=True)
    from .. import _dtype

    info = _dtype.finfo(input.dtype) if input.is_floating_point() else None
    if info is None:
        return input
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    if input.dtype == mindspore.bfloat16:  # no bfloat16 select kernel: float32 with bfloat16's limits
        return nan_to_num(input.astype(mindspore.float32), nan, posinf, neginf).astype(input.dtype)
    out = ops.where(ops.isnan(input), ops.full_like(input, nan), input)
    out = ops.where(ops.logical_and(ops.isinf(out), ops.gt(out, 0)), ops.full_like(input, posinf), out)
    return ops.where(ops.logical_and(ops.isinf(out), ops.lt(out, 0)), ops.full_like(input, neginf), out)


nan_to_num.__wrapped_for_bf16__ = True  # the default limits are bfloat16's, so it computes bfloat16 itself


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if isinstance(input, TensorPy) and isinstance(other, TensorPy) and input._dtype is not other._dtype:
        raise RuntimeError(f"{type_name(input._dtype)} did not match {type_name(other._dtype)}")
    if isinstance(input, TensorPy) and input._dtype is mindspore.bool_:  # (bools are close when equal)
        return ops.equal(input, other)
    if isinstance(input, TensorPy) and input._dtype is mindspore.bfloat16:  # (no CPU kernels: exact in float32)
        input = input.astype(mindspore.float32)
        other = other.astype(mindspore.float32) if isinstance(other, TensorPy) else other
    diff = ops.abs(ops.sub(input, other))
    tol = ops.add(ops.mul(ops.abs(other), rtol), atol)
    within = ops.less_equal(diff, tol)
    if diff.is_floating_point():  # an infinity is close only to itself (its tolerance is infinite too)
        within = ops.logical_and(within, ops.isfinite(diff))
    close = ops.logical_or(within, ops.equal(input, other))
    if equal_nan:
        close = ops.logical_or(close, ops.logical_and(ops.isnan(input), ops.isnan(other)))
    return close


isclose.__wrapped_for_bf16__ = True  # (it compares the operands' dtypes before computing bfloat16 in float32)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


allclose.__wrapped_for_bf16__ = True


_MASKED_FILL_FLOATS = frozenset({mindspore.float16, mindspore.float32})


def masked_fill(input, mask, value):
    if isinstance(mask, TensorPy) and mask._dtype is not mindspore.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    if isinstance(mask, TensorPy) and mask._shape != input._shape and \
            (len(mask._shape) > len(input._shape) or 1 in input._shape):
        # a mask larger than the input: torch broadcasts the input (and masked_fill_ then refuses the larger
        # result with its own error); some of MindSpore's MaskedFill kernels raise a ValueError here instead
        shape = np.broadcast_shapes(tuple(input._shape), tuple(mask._shape))
        if shape != tuple(input._shape):
            input = ops.broadcast_to(input, shape)
    if type(value) is float and input._dtype in _MASKED_FILL_FLOATS:
        if not -65504.0 <= value <= 65504.0:  # (large, infinite or NaN: torch refuses a finite value past the range)
            _dtype.check_fits(value, input._dtype, narrow_floats=True)
        if _ms.MASKED_FILL_BACKWARD_MULTIPLIES and _tracks_grad(input) and grad_enabled():
            return ops.where(mask, Tensor(value, input.dtype), input)  # (Select's backward zeroes exactly)
        return ops.masked_fill(input, mask, value)  # the usual call, answered before the conversions below
    if isinstance(value, TensorPy):
        if value.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        # torch converts the value to the input's dtype as it converts a Python number: checked, then cast
        _dtype.check_fits(value.item(), input._dtype, narrow_floats=True)
        if input._dtype is mindspore.bfloat16:  # no bfloat16 kernel takes a tensor value
            return ops.masked_fill(input.astype(mindspore.float32), mask,
                                   value.astype(mindspore.float32)).astype(input.dtype)
        return ops.masked_fill(input, mask, value.astype(input.dtype))
    _dtype.check_fits(value, input._dtype, narrow_floats=True)
    value = _dtype.real_scalar(value, input._dtype)
    if input._dtype is mindspore.float64:
        # MindSpore's MaskedFill rounds float64 through float32 (even where the mask is False): select instead
        return ops.where(mask, Tensor(float(value), input.dtype), input)
    if input._dtype is mindspore.bfloat16:
        # float32 holds every bfloat16 exactly
        return ops.masked_fill(input.astype(mindspore.float32), mask, float(value)).astype(input.dtype)
    if input.is_floating_point():
        return ops.masked_fill(input, mask, float(value))  # (the kernel wants a float for a float input)
    # integers, bools and complex numbers: the value as a 0-d tensor of the input's dtype (MindSpore's kernel
    # takes a Python int as int64 and has no uint8 or int8 kernel for it); an int cast as C casts it, a float
    # truncated toward zero, as torch converts them
    kind = bool if input._dtype is mindspore.bool_ else complex if input._dtype in _dtype.COMPLEX else int
    number = np.array(kind(value)).astype(_dtype.to_numpy_dtype(input._dtype))
    return ops.masked_fill(input, mask, Tensor(number))


masked_fill.__wrapped_for_bf16__ = True  # computes bfloat16 itself: the value's dtype never changes the result's


def _promoting(fn, to_float=False):
    """`fn` with its two operands first brought to torch's result dtype (MindSpore promotes by other rules)."""
    def op(input, other, *args, **kwargs):
        return fn(*_promoted(input, other, to_float), *args, **kwargs)

    op.__name__ = op.__qualname__ = fn.__name__
    op.__wrapped__ = fn
    return op


def _promoting_pow(fn):
    """pow with operands in torch's result dtype; a small float tensor to one of the exponents torch computes
    with IEEE operations goes to the host first (before promotion makes the exponent a tensor)."""
    def op(input, exponent, *, out=None):
        if out is None and type(exponent) in (int, float) and exponent in _HOST_POWERS:
            on_host = host_small.unary(_HOST_POWERS[exponent], input, rounding=exponent != 1)
            if on_host is not None:
                return on_host
        return fn(*_promoted(input, exponent), out=out)

    op.__name__ = op.__qualname__ = fn.__name__
    op.__wrapped__ = fn
    return op


def _promoting_div(fn):
    def op(input, other, *, rounding_mode=None, out=None):
        return fn(*_promoted(input, other, to_float=rounding_mode is None), rounding_mode=rounding_mode, out=out)

    op.__name__ = op.__qualname__ = fn.__name__
    op.__wrapped__ = fn
    return op


def _with_bool_kernel(fn, on_bools):
    """MindSpore has no bool maximum/minimum kernels; on bools they are logical or/and."""
    def op(input, other, *args, **kwargs):
        if _both_bool(input, other):
            return on_bools(input, other)
        return fn(input, other, *args, **kwargs)

    op.__name__ = op.__qualname__ = fn.__name__
    return op


def _wrap_promoting():
    wrapped = {div: _promoting_div(div), pow: _promoting_pow(pow)}
    for fn in (remainder, fmod, floor_divide, fmax, fmin, eq, ne, lt, le, gt, ge,
               bitwise_and, bitwise_or, bitwise_xor):
        wrapped[fn] = _promoting(fn)
    for fn, on_bools in ((maximum, ops.logical_or), (minimum, ops.logical_and)):
        wrapped[fn] = _promoting(_with_bool_kernel(fn, on_bools))
    for fn in (atan2, hypot):
        wrapped[fn] = _promoting(fn, to_float=True)
    namespace = globals()
    for name, value in list(namespace.items()):
        if not name.startswith("_") and callable(value) and value in wrapped:
            namespace[name] = wrapped[value]


_wrap_promoting()

from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)

# torch's layout of elementwise results (outermost: the bf16 and autocast wrappers cast operands that are already
# in memory order); masked_fill's result is contiguous in torch, allclose/equal answer a bool, and rsub is sub of
# its operands swapped (its first operand in torch's order is `other`)
_LAID_OUT_LIKE_OPERANDS = (
    "add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "neg", "negative", "abs",
    "absolute", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
    "arcsin", "acos", "arccos", "atan", "arctan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "erfinv", "floor",
    "ceil", "trunc", "fix", "frac", "round", "sign", "sgn", "reciprocal", "square", "relu", "logical_not",
    "bitwise_not", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "eq", "ne", "not_equal", "lt", "less", "le",
    "less_equal", "gt", "greater", "ge", "greater_equal", "maximum", "minimum", "fmax", "fmin", "logical_and",
    "logical_or", "logical_xor", "atan2", "arctan2", "hypot", "bitwise_and", "bitwise_or", "bitwise_xor", "clamp",
    "clip", "clamp_min", "clamp_max", "where", "lerp", "addcmul", "addcdiv", "nan_to_num", "isclose",
)


def _first_operand_is_tensor(args, kwargs):
    """pow(number, tensor) gives a contiguous result in torch."""
    return type(args[0] if args else kwargs.get("input")) is Tensor


def _three_operands(args, kwargs):
    """where(condition) is nonzero's tuple, no elementwise result."""
    return len(args) + sum(k != "out" for k in kwargs) >= 3


from . import result_layout as _result_layout  # noqa: E402

_result_layout.follow_operands(globals(), _LAID_OUT_LIKE_OPERANDS,
                               {"pow": _first_operand_is_tensor, "where": _three_operands})
