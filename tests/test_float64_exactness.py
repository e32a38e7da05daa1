"""Wrong numbers that raise no error, against real torch: Python scalars rounded to float32 beside float64
tensors (clamp bounds, alpha/value/beta arguments, where's scalar, loss margins), float64 functions computed at
float32 precision (igamma/igammac), parameter gradients in the dtype of a module conversion, and dropout with
p=1 in every dtype (no 0 * inf)."""
import warnings

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

FLOATS = ["float16", "bfloat16", "float32", "float64"]
EPS64 = float(np.finfo(np.float64).eps)


def _np(t):
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.numpy()


def _same(got, want, rtol=0.0, atol=0.0):
    """Same dtype and values (bitwise when rtol and atol are 0, signs of zeros included)."""
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    g, w = _np(got), _np(want)
    if rtol or atol:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


# ---------------------------------------------------------------- clamp and its forms
VALUES = [0.01, 0.5, 1.0, 0.9999999999, -2.0]
BOUNDS = [(0.05, None), (None, 1 - EPS64), (0.05, 1 - EPS64), (0.1, 0.3), (0.7, 0.2)]
CLAMP_FORMS = {
    "torch.clamp": lambda T, x, lo, hi: T.clamp(x, lo, hi),
    "torch.clip": lambda T, x, lo, hi: T.clip(x, lo, hi),
    "Tensor.clamp": lambda T, x, lo, hi: x.clamp(min=lo, max=hi),
    "Tensor.clamp_": lambda T, x, lo, hi: x.clone().clamp_(lo, hi),
    "clamp_min/max": lambda T, x, lo, hi: x.clamp_min(lo) if hi is None else x.clamp_max(hi) if lo is None
    else x.clamp_min(lo).clamp_max(hi),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bounds", BOUNDS, ids=str)
@pytest.mark.parametrize("form", CLAMP_FORMS)
def test_clamp_python_bounds_apply_at_the_tensor_dtype(form, bounds, dtype):
    def run(T):
        return CLAMP_FORMS[form](T, T.tensor(VALUES, dtype=getattr(T, dtype)), *bounds)

    _same(run(mt), run(rt))


BOUND_KINDS = {
    "0-d float64": lambda T, v: T.tensor(v, dtype=T.float64),
    "1-d float64": lambda T, v: T.full((len(VALUES),), v, dtype=T.float64),
    "1-d float32": lambda T, v: T.full((len(VALUES),), v, dtype=T.float32),
    "python int": lambda T, v: 0,
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("kind", BOUND_KINDS)
def test_clamp_tensor_bounds_follow_torch_promotion(kind, dtype):
    def run(T):
        x = T.tensor([0, 1, 2, -3], dtype=getattr(T, dtype)) if dtype == "int64" else \
            T.tensor(VALUES[:4], dtype=getattr(T, dtype))
        make = BOUND_KINDS[kind]
        return T.clamp(x, make(T, 0.05)[:4] if make(T, 0.05).ndim else make(T, 0.05),
                       make(T, 1 - EPS64)[:4] if make(T, 1 - EPS64).ndim else make(T, 1 - EPS64)) \
            if kind != "python int" else T.clamp(x, 0, 1)

    _same(run(mt), run(rt))


def test_clamp_int_tensor_with_float_bound_is_float():
    def run(T):
        return T.clamp(T.tensor([0, 1, 2]), min=0.5)

    _same(run(mt), run(rt))


def test_clamp_gradient_in_float64():
    def run(T):
        x = T.tensor(VALUES, dtype=T.float64, requires_grad=True)
        y = T.clamp(x, 0.05, 1 - EPS64)
        (y * T.arange(5, dtype=T.float64)).sum().backward()
        return y, x.grad

    for got, want in zip(run(mt), run(rt)):
        _same(got, want)


# ---------------------------------------------------------------- scalar arguments beside float64 tensors
def _xy(T):
    x = T.tensor([-3.0, -0.7, -0.01, 0.3, 2.5], dtype=T.float64)
    y = T.tensor([0.2, -1.1, 0.5, 0.3, -2.0], dtype=T.float64)
    return x, y


SCALAR_OPS = {
    "add(alpha=)": lambda T, x, y: T.add(x, y, alpha=0.1),
    "sub(alpha=)": lambda T, x, y: T.sub(x, y, alpha=0.1),
    "add_(alpha=)": lambda T, x, y: x.clone().add_(y, alpha=0.1),
    "addcmul(value=)": lambda T, x, y: T.addcmul(x, y, y.abs() + 1, value=0.1),
    "addcdiv(value=)": lambda T, x, y: T.addcdiv(x, y, y.abs() + 1, value=0.1),
    "where(x, scalar)": lambda T, x, y: T.where(x > 0, x, 0.1),
    "where(scalar, x)": lambda T, x, y: T.where(x > 0, 0.1, x),
    "addmm(beta, alpha)": lambda T, x, y: T.addmm(x.reshape(5, 1), x.reshape(5, 1), y[:1].reshape(1, 1),
                                                  beta=0.1, alpha=0.3),
    "baddbmm(beta, alpha)": lambda T, x, y: T.baddbmm(x.reshape(1, 5, 1), x.reshape(1, 5, 1),
                                                      y[:1].reshape(1, 1, 1), beta=0.1, alpha=0.3),
    "addmv(beta, alpha)": lambda T, x, y: T.addmv(x, x.reshape(5, 1), y[:1], beta=0.1, alpha=0.3),
    "lerp(weight=)": lambda T, x, y: T.lerp(x, y, 0.1),
    "masked_fill": lambda T, x, y: x.masked_fill(x > 0, 0.1),
    "fill_": lambda T, x, y: x.clone().fill_(0.1),
    "full": lambda T, x, y: T.full((2,), 0.1, dtype=T.float64),
    "mul": lambda T, x, y: x * 0.1,
    "rsub": lambda T, x, y: 0.1 - x,
    "div": lambda T, x, y: x / 0.1,
    "pow(float exponent)": lambda T, x, y: T.pow(x.abs(), 0.1),
    "margin_ranking_loss": lambda T, x, y: T.nn.functional.margin_ranking_loss(
        x, y, T.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=T.float64), margin=0.1, reduction="none"),
    "hinge_embedding_loss": lambda T, x, y: T.nn.functional.hinge_embedding_loss(
        x, T.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=T.float64), margin=0.3, reduction="none"),
    "celu": lambda T, x, y: T.nn.functional.celu(x, 0.3),
    "leaky_relu": lambda T, x, y: T.nn.functional.leaky_relu(x, 0.013),
    "hardtanh": lambda T, x, y: T.nn.functional.hardtanh(x, -0.3, 0.7),
    "softplus(beta, threshold)": lambda T, x, y: T.nn.functional.softplus(x, beta=0.3, threshold=3.0),
    "smooth_l1_loss(beta=)": lambda T, x, y: T.nn.functional.smooth_l1_loss(x, y, beta=0.3, reduction="none"),
    "huber_loss(delta=)": lambda T, x, y: T.nn.functional.huber_loss(x, y, delta=0.3, reduction="none"),
}


@pytest.mark.parametrize("op", SCALAR_OPS)
def test_python_scalars_stay_float64(op):
    # float32 rounding of 0.1 is 1.5e-9 relative: 1e-14 leaves room only for a few ulps of kernel rounding
    _same(SCALAR_OPS[op](mt, *_xy(mt)), SCALAR_OPS[op](rt, *_xy(rt)), rtol=1e-14)


# ---------------------------------------------------------------- regularized incomplete gamma functions
IGAMMA = {"igamma": lambda T: T.igamma, "igammac": lambda T: T.igammac,
          "special.gammainc": lambda T: T.special.gammainc, "special.gammaincc": lambda T: T.special.gammaincc}


@pytest.mark.parametrize("name", IGAMMA)
def test_igamma_float64_values_and_gradient(name):
    def run(T):
        a = T.tensor([0.5, 1.0, 2.5, 7.0, 0.1, 12.0], dtype=T.float64)
        x = T.tensor([0.3, 1.7, 2.0, 5.0, 3.0, 9.0], dtype=T.float64, requires_grad=True)
        y = IGAMMA[name](T)(a, x)
        y.sum().backward()
        return y, x.grad

    (gy, gg), (wy, wg) = run(mt), run(rt)
    _same(gy, wy, rtol=1e-13)
    _same(gg, wg, rtol=1e-13)


def test_igamma_refuses_the_derivative_in_a_like_torch():
    a = mt.tensor([0.5, 2.5], dtype=mt.float64, requires_grad=True)
    y = mt.igamma(a, mt.tensor([0.3, 2.0], dtype=mt.float64))
    with pytest.raises(RuntimeError, match="derivative for 'igamma: input' is not implemented"):
        y.sum().backward()


# ---------------------------------------------------------------- dropout with p = 1
DROPOUTS = {
    "dropout": lambda T, x: T.nn.functional.dropout(x, 1.0),
    "dropout(inplace)": lambda T, x: T.nn.functional.dropout(x.clone(), 1.0, inplace=True),
    "nn.Dropout": lambda T, x: T.nn.Dropout(1.0)(x),
    "dropout1d": lambda T, x: T.nn.functional.dropout1d(x.reshape(1, 2, 2), 1.0),
    "dropout1d(inplace)": lambda T, x: T.nn.functional.dropout1d(x.reshape(1, 2, 2).clone(), 1.0, inplace=True),
    "dropout2d": lambda T, x: T.nn.functional.dropout2d(x.reshape(1, 1, 2, 2), 1.0),
    "dropout3d": lambda T, x: T.nn.functional.dropout3d(x.reshape(1, 1, 1, 2, 2), 1.0),
    "nn.Dropout2d": lambda T, x: T.nn.Dropout2d(1.0)(x.reshape(1, 1, 2, 2)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("variant", DROPOUTS)
def test_dropout_with_p_one_gives_signed_zeros(variant, dtype):
    def run(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return DROPOUTS[variant](T, T.tensor([1.0, -2.0, 3.0, 0.5], dtype=getattr(T, dtype))).reshape(-1)

    _same(run(mt), run(rt))


def test_channel_dropout_inplace_writes_the_input():
    x = mt.ones(1, 2, 2)
    out = mt.nn.functional.dropout1d(x, 1.0, inplace=True)
    assert out is x and float(x.abs().sum()) == 0.0


# ---------------------------------------------------------------- gradients after module conversions
MODULES = {
    "Linear": (lambda T: T.nn.Linear(3, 2), lambda T, dt: T.tensor([(i - 6) / 4.0 for i in range(12)], dtype=dt).reshape(4, 3)),
    "Linear(3-D input)": (lambda T: T.nn.Linear(3, 2),
                          lambda T, dt: T.tensor([(i - 12) / 8.0 for i in range(24)], dtype=dt).reshape(2, 4, 3)),
    "LayerNorm": (lambda T: T.nn.LayerNorm(3), lambda T, dt: T.tensor([(i - 6) / 4.0 for i in range(12)], dtype=dt).reshape(4, 3)),
    "Embedding": (lambda T: T.nn.Embedding(5, 3), lambda T, dt: T.tensor([[1, 2], [4, 1]])),
}
CONVERSIONS = {
    "double()": (lambda T, m: m.double(), "float64"),
    "to(float64)": (lambda T, m: m.to(T.float64), "float64"),
    "to(dtype=float64)": (lambda T, m: m.to(dtype=T.float64), "float64"),
    "half()": (lambda T, m: m.half(), "float16"),
    "bfloat16()": (lambda T, m: m.bfloat16(), "bfloat16"),
    "double().float()": (lambda T, m: m.double().float(), "float32"),
    "bfloat16().float()": (lambda T, m: m.bfloat16().float(), "float32"),
    "half().double()": (lambda T, m: m.half().double(), "float64"),
}


def _state(T, module):
    # identical weights in both frameworks, exactly representable in every float dtype
    with T.no_grad():
        for i, p in enumerate(module.parameters()):
            values = (np.arange(p.numel()) - p.numel() // 2) / 8.0 * (0.5 + 0.25 * i)
            p.copy_(T.tensor(values.tolist()).reshape(p.shape))


@pytest.mark.parametrize("conversion", CONVERSIONS)
@pytest.mark.parametrize("module", MODULES)
def test_parameter_gradients_after_conversion(module, conversion):
    build, make_input = MODULES[module]
    convert, dtype = CONVERSIONS[conversion]

    def run(T):
        T.manual_seed(0)
        m = build(T)
        _state(T, m)
        params = list(m.parameters())
        m = convert(T, m)
        assert [p for p in m.parameters()] == params or all(a is b for a, b in zip(m.parameters(), params))
        out = m(make_input(T, getattr(T, dtype)))
        (out.float() * out.float()).sum().backward()
        return out, [p.grad for p in m.parameters()], [p.dtype for p in m.parameters()]

    (g_out, g_grads, g_dtypes), (w_out, w_grads, w_dtypes) = run(mt), run(rt)
    assert [str(d).split(".")[-1] for d in g_dtypes] == [str(d).split(".")[-1] for d in w_dtypes]
    rtol = {"float64": 1e-12, "float32": 1e-5}.get(dtype, 2e-2)
    for got, want in zip([g_out] + g_grads, [w_out] + w_grads):
        _same(got, want, rtol=rtol, atol=0.0 if dtype == "float64" else rtol * float(np.abs(_np(want)).max()))


# ---------------------------------------------------------------- fmod, remainder, floor_divide in float64
DIVIDENDS = [-3.0, -0.7, -0.01, 0.3, 2.5, -3.0, 3.0, 0.0, -0.0, 1.0]
DIVISORS = [0.1, 0.1, 0.1, 0.1, 0.1, 3.0, -3.0, 0.1, 0.1, 0.0]
DIVISIONS = {
    "fmod": lambda T, a, b: T.fmod(a, b),
    "remainder": lambda T, a, b: T.remainder(a, b),
    "floor_divide": lambda T, a, b: T.floor_divide(a, b),
    "div(floor)": lambda T, a, b: T.div(a, b, rounding_mode="floor"),
    "a % b": lambda T, a, b: a % b,
    "a // b": lambda T, a, b: a // b,
}


@pytest.mark.parametrize("divisor", ["tensor", "python float"])
@pytest.mark.parametrize("op", DIVISIONS)
def test_float64_division_family_is_exact(op, divisor):
    def run(T):
        a = T.tensor(DIVIDENDS, dtype=T.float64)
        b = T.tensor(DIVISORS, dtype=T.float64) if divisor == "tensor" else 0.1
        return DIVISIONS[op](T, a, b)

    _same(run(mt), run(rt))


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_float64_fmod_remainder_gradients(op):
    def run(T):
        a = T.tensor(DIVIDENDS[:9], dtype=T.float64, requires_grad=True)
        b = T.tensor(DIVISORS[:9], dtype=T.float64, requires_grad=True)
        (getattr(T, op)(a, b) * T.arange(9, dtype=T.float64)).sum().backward()
        return a.grad, b.grad

    for got, want in zip(run(mt), run(rt)):
        _same(got, want)


def test_float64_floor_divide_refuses_its_derivative_like_torch():
    a = mt.tensor([2.5, -3.0], dtype=mt.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        mt.floor_divide(a, 0.1).sum().backward()
