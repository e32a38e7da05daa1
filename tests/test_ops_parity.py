"""Op-level parity with real PyTorch: values, dtypes, shapes and gradients of the shim's ops.

Every case is one function `fn(T, *tensors)` run twice, with `T` the shim (`mindnlp_shim.torch`) and with real
torch, on tensors built from the same NumPy arrays. Float inputs become leaves that require grad; the
gradients of `sum(output * w)` (fixed random `w`) are compared as well.
"""
import math
import zlib

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

F32_TOL = (1e-5, 1e-6)
# MindSpore's CPU exp/log kernels are approximations (measured: exp ~8e-6 relative error, torch's ~1e-7), which
# ops built on them (log_softmax gradients, softplus, ...) carry through.
EXP_TOL = (1e-5, 1e-5)
LOW_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
_rng = np.random.default_rng(1234)


# ---------------------------------------------------------------- input helpers
def randn(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def pos(*shape):
    """Strictly positive values (log, sqrt, pow with real exponents)."""
    return (_rng.random(shape) * 2 + 0.1).astype(np.float32)


def ints(low, high, *shape, dtype=np.int64):
    return _rng.integers(low, high, size=shape).astype(dtype)


def bools(*shape, p=0.5):
    return _rng.random(shape) < p


class Fixed:
    """A float input that does not require grad and keeps its dtype (masks, weights, targets)."""

    def __init__(self, array):
        self.array = array


class Case:
    def __init__(self, name, fn, *inputs, grad=True, tol=None, dtypes=("float32",), marks=()):
        self.name, self.fn, self.inputs, self.grad = name, fn, inputs, grad
        self.tol, self.dtypes, self.marks = tol, dtypes, marks


def params(cases):
    out = []
    for c in cases:
        for dt in c.dtypes:
            out.append(pytest.param(c, dt, id=c.name if dt == "float32" else f"{c.name}-{dt}", marks=c.marks))
    return out


# ---------------------------------------------------------------- comparison
def _is_tensor(x):
    return isinstance(x, (mt.Tensor, rt.Tensor)) if rt is not None else isinstance(x, mt.Tensor)


def _np(t):
    t = t.detach()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    return np.array(t.numpy())


def _flat(out):
    if _is_tensor(out):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return []


def assert_same(m, r, tol, where="output"):
    if rt is not None and isinstance(r, rt.Tensor):
        assert isinstance(m, mt.Tensor), f"{where}: expected a tensor, got {type(m).__name__}"
        assert tuple(m.shape) == tuple(r.shape), f"{where}: shape {tuple(m.shape)} != torch {tuple(r.shape)}"
        assert str(m.dtype) == str(r.dtype), f"{where}: dtype {m.dtype} != torch {r.dtype}"
        a, b = _np(m), _np(r)
        if r.dtype.is_floating_point:
            np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1], equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(r, (tuple, list)):
        assert isinstance(m, (tuple, list)) and len(m) == len(r), f"{where}: {m!r} vs torch {r!r}"
        for field in ("values", "indices"):
            if hasattr(r, field):
                assert hasattr(m, field), f"{where}: result has no .{field}"
        for i, (a, b) in enumerate(zip(m, r)):
            assert_same(a, b, tol, f"{where}[{i}]")
    elif isinstance(r, float):
        assert isinstance(m, float) and math.isclose(m, r, rel_tol=tol[0], abs_tol=tol[1]), f"{where}: {m} vs {r}"
    else:
        assert type(m) is type(r) and m == r, f"{where}: {m!r} vs torch {r!r}"


def _make(T, spec, dtype, requires_grad):
    if isinstance(spec, Fixed):
        return T.tensor(spec.array)
    t = T.tensor(spec)
    if spec.dtype.kind == "f":
        if dtype != "float32":
            t = t.to(getattr(T, dtype))
        if requires_grad:
            t.requires_grad_()
    return t


def _run(T, case, dtype, weights):
    leaves = []
    tensors = []
    for spec in case.inputs:
        t = _make(T, spec, dtype, case.grad)
        tensors.append(t)
        if case.grad and isinstance(spec, np.ndarray) and spec.dtype.kind == "f":
            leaves.append(t)
    out = case.fn(T, *tensors)
    grads = None
    if leaves:
        diffable = [o for o in _flat(out) if o.requires_grad]
        if diffable:
            if weights is None:
                wrng = np.random.default_rng(zlib.crc32(case.name.encode()))
                weights = [wrng.standard_normal(tuple(o.shape)).astype(np.float32) for o in diffable]
            loss = None
            for o, w in zip(diffable, weights):
                term = (o.float() * T.tensor(w)).sum()
                loss = term if loss is None else loss + term
            loss.backward()
            grads = [t.grad for t in leaves]
    return out, grads, weights


def check(case, dtype):
    # a tuple `tol` is for float32; half-precision runs use LOW_TOL unless `tol` is a per-dtype dict
    if isinstance(case.tol, dict):
        tol = case.tol.get(dtype, LOW_TOL.get(dtype, F32_TOL))
    else:
        tol = LOW_TOL[dtype] if dtype in LOW_TOL else case.tol or F32_TOL
    r_out, r_grads, weights = _run(rt, case, dtype, None)
    m_out, m_grads, _ = _run(mt, case, dtype, weights)
    assert_same(m_out, r_out, tol)
    if r_grads is not None:
        assert m_grads is not None, "shim output does not require grad"
        for i, (gm, gr) in enumerate(zip(m_grads, r_grads)):
            if gr is None or gm is None:
                # an input that gets no gradient: torch may hand back None or zeros, depending on the op
                other = gm if gr is None else gr
                assert other is None or not _np(other).any(), f"grad[{i}]: one side is None, the other nonzero"
            else:
                assert gm is not None, f"grad[{i}] is None in the shim"
                assert_same(gm, gr, tol, f"grad[{i}]")


def F(T):
    return T.nn.functional


LOW = ("float32", "float16", "bfloat16")
HALF = ("float32", "float16")


# ---------------------------------------------------------------- arithmetic and promotion
ARITH = [
    Case("add", lambda T, x, y: x + y, randn(3, 4), randn(3, 4), dtypes=LOW),
    Case("add_broadcast", lambda T, x, y: T.add(x, y), randn(2, 3, 4), randn(4)),
    Case("add_alpha", lambda T, x, y: T.add(x, y, alpha=2.5), randn(3, 4), randn(3, 4)),
    Case("add_scalar_right", lambda T, x: x + 2, randn(3, 4), dtypes=LOW),
    Case("add_scalar_left", lambda T, x: 2.5 + x, randn(3, 4)),
    Case("sub", lambda T, x, y: x - y, randn(3, 4), randn(1, 4)),
    Case("sub_alpha", lambda T, x, y: T.sub(x, y, alpha=3), randn(3, 4), randn(3, 4)),
    Case("rsub_scalar", lambda T, x: 3 - x, randn(3, 4)),
    Case("mul", lambda T, x, y: x * y, randn(3, 4), randn(3, 4), dtypes=LOW),
    Case("mul_scalar_both", lambda T, x: 2 * x * 0.5, randn(3, 4)),
    Case("div", lambda T, x, y: x / y, randn(3, 4), pos(3, 4), dtypes=LOW),
    Case("div_scalar_right", lambda T, x: x / 3, randn(3, 4)),
    Case("div_scalar_left", lambda T, x: 2 / x, pos(3, 4)),
    Case("div_floor_float", lambda T, x, y: T.div(x * 3, y, rounding_mode="floor"), randn(3, 4), pos(3, 4)),
    Case("div_trunc_float", lambda T, x, y: T.div(x * 3, y, rounding_mode="trunc"), randn(3, 4), pos(3, 4)),
    Case("floordiv_float_scalar", lambda T, x: (x * 5) // 2, randn(3, 4), grad=False),
    Case("pow_scalar", lambda T, x: x ** 2, randn(3, 4), dtypes=HALF),
    Case("pow_half", lambda T, x: T.pow(x, 0.5), pos(3, 4)),
    Case("pow_tensor", lambda T, x, y: x ** y, pos(3, 4), randn(3, 4)),
    Case("rpow", lambda T, x: 2 ** x, randn(3, 4)),
    Case("neg", lambda T, x: -x, randn(3, 4), dtypes=LOW),
    Case("abs", lambda T, x: x.abs(), randn(3, 4)),
    Case("exp", lambda T, x: T.exp(x), randn(3, 4), dtypes=LOW),
    Case("log", lambda T, x: T.log(x), pos(3, 4), dtypes=LOW),
    Case("log1p", lambda T, x: x.log1p(), pos(3, 4)),
    Case("expm1", lambda T, x: x.expm1(), randn(3, 4)),
    Case("sqrt", lambda T, x: x.sqrt(), pos(3, 4), dtypes=LOW),
    Case("rsqrt", lambda T, x: T.rsqrt(x), pos(3, 4), dtypes=LOW),
    Case("tanh", lambda T, x: T.tanh(x), randn(3, 4), dtypes=LOW),
    Case("sigmoid", lambda T, x: x.sigmoid(), randn(3, 4), dtypes=LOW),
    Case("sin_cos", lambda T, x: x.sin() + x.cos(), randn(3, 4)),
    Case("erf", lambda T, x: T.erf(x), randn(3, 4)),
    Case("square_reciprocal", lambda T, x: x.square() + x.reciprocal(), pos(3, 4)),
    Case("clamp", lambda T, x: x.clamp(-0.5, 0.7), randn(3, 4), dtypes=LOW),
    Case("clamp_min_only", lambda T, x: T.clamp(x, min=0.1), randn(3, 4)),
    Case("clamp_max_only", lambda T, x: x.clamp(max=0.2), randn(3, 4)),
    Case("clamp_tensor_bounds", lambda T, x, lo: T.clamp(x, min=lo), randn(3, 4), Fixed(randn(4))),
    Case("floor_ceil_round", lambda T, x: T.stack([(x * 3).floor(), (x * 3).ceil(), (x * 3).round()]),
         randn(3, 4), grad=False),
    Case("maximum_minimum", lambda T, x, y: T.maximum(x, y) + T.minimum(x, y) * 2, randn(3, 4), randn(3, 4)),
    Case("lerp", lambda T, x, y: T.lerp(x, y, 0.3), randn(3, 4), randn(3, 4)),
    Case("addcmul_addcdiv", lambda T, x, y, z: x.addcmul(y, z, value=0.5) + x.addcdiv(y, z, value=2), randn(3, 4),
         randn(3, 4), pos(3, 4)),
    Case("sign", lambda T, x: x.sign(), randn(3, 4), grad=False),
    Case("rsub_int", lambda T, a: 1 - a, ints(-5, 5, 3, 4)),
    Case("int_and_or", lambda T, a, b: (a & b, a | b, a ^ b, ~a), ints(0, 8, 3, 4), ints(0, 8, 3, 4)),
    # integer tensors
    Case("int_add", lambda T, a, b: a + b, ints(-5, 5, 3, 4), ints(-5, 5, 3, 4)),
    Case("int_add_float_scalar", lambda T, a: a + 1.5, ints(-5, 5, 3, 4)),
    Case("int_mul_int_scalar", lambda T, a: a * 3, ints(-5, 5, 3, 4)),
    Case("int_true_div", lambda T, a, b: a / b, ints(-9, 9, 3, 4), ints(1, 4, 3, 4)),
    Case("int_div_scalar", lambda T, a: a / 2, ints(-9, 9, 3, 4)),
    Case("int_floordiv", lambda T, a, b: a // b, ints(-9, 9, 3, 4), ints(1, 4, 3, 4)),
    Case("int_floordiv_neg_divisor", lambda T, a, b: a // -b, ints(-9, 9, 3, 4), ints(1, 4, 3, 4)),
    Case("int_div_floor", lambda T, a, b: T.div(a, b, rounding_mode="floor"), ints(-9, 9, 3, 4), ints(1, 4, 3, 4)),
    Case("int_div_trunc", lambda T, a, b: T.div(a, b, rounding_mode="trunc"), ints(-9, 9, 3, 4), ints(1, 4, 3, 4)),
    Case("int_remainder", lambda T, a, b: a % b, ints(-9, 9, 3, 4), ints(1, 4, 3, 4)),
    Case("int_remainder_neg_divisor", lambda T, a: T.remainder(a, -3), ints(-9, 9, 3, 4)),
    Case("float_remainder", lambda T, x: x * 5 % 2, randn(3, 4), grad=False),
    Case("int_pow", lambda T, a: a ** 2, ints(-5, 5, 3, 4)),
    Case("int_neg_abs", lambda T, a: -a + a.abs(), ints(-5, 5, 3, 4)),
    Case("int32_plus_int64", lambda T, a, b: a + b, ints(-5, 5, 3, 4, dtype=np.int32), ints(-5, 5, 3, 4)),
    Case("int32_times_python_int", lambda T, a: a * 2, ints(-5, 5, 3, 4, dtype=np.int32)),
    Case("int_plus_float_tensor", lambda T, a, x: a + x, ints(-5, 5, 3, 4), randn(3, 4)),
    Case("float16_plus_float32", lambda T, x, y: x.half() + y, randn(3, 4), randn(3, 4)),
    Case("bool_plus_int", lambda T, m, a: m + a, bools(3, 4), ints(-5, 5, 3, 4)),
    Case("bool_times_float", lambda T, m, x: m * x, bools(3, 4), randn(3, 4)),
    Case("uint8_plus_int", lambda T, a: a + 3, ints(0, 5, 3, 4, dtype=np.uint8)),
    Case("float_tensor_0d_promotion", lambda T, a, s: a * s, ints(-5, 5, 3, 4), Fixed(np.array(1.5, np.float32))),
    Case("int_0d_tensor_keeps_float16", lambda T, x, s: x.half() * s, randn(3, 4), np.array(3)),
    # bfloat16 mixed with other dtypes (computed in float32 on the CPU, the result dtype must still be torch's)
    Case("bf16_plus_float32", lambda T, x, y: x.bfloat16() + y, randn(3, 4), randn(3, 4), tol=(1e-2, 1e-2)),
    Case("bf16_times_int", lambda T, x, a: x.bfloat16() * a, randn(3, 4), ints(-3, 3, 3, 4), tol=(1e-2, 1e-2)),
    Case("bf16_matmul_float32", lambda T, x, w: x.bfloat16().float() @ w, randn(3, 4), randn(4, 2)),
    Case("bf16_softmax_dtype_float32", lambda T, x: T.softmax(x.bfloat16(), -1, dtype=T.float32), randn(3, 4),
         tol=(1e-2, 1e-2)),
    Case("bf16_sum_dtype_float32", lambda T, x: x.bfloat16().sum(-1, dtype=T.float32), randn(3, 4),
         tol=(1e-2, 1e-2)),
    Case("bf16_compare", lambda T, x: (x.bfloat16() > 0, x.bfloat16().argmax(-1)), randn(3, 4)),
]

COMPARE = [
    Case("eq_ne_scalar", lambda T, x: T.stack([x > 0, x == 0, x != 0, x <= 0.5]), randn(3, 4)),
    Case("lt_ge_tensor", lambda T, x, y: T.stack([x < y, x >= y, T.gt(x, y), x.le(y)]), randn(3, 4), randn(3, 4)),
    Case("int_compare_float", lambda T, a: a > 0.5, ints(-3, 3, 3, 4)),
    Case("logical", lambda T, m, n: T.stack([m & n, m | n, m ^ n, ~m, T.logical_not(n), T.logical_and(m, n)]),
         bools(3, 4), bools(3, 4)),
    Case("isnan_isinf_isfinite", lambda T, x: T.stack([T.isnan(x), T.isinf(x), T.isfinite(x)]),
         Fixed(np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32))),
    Case("where", lambda T, c, x, y: T.where(c, x, y), bools(3, 4), randn(3, 4), randn(3, 4)),
    Case("where_scalar_other", lambda T, c, x: T.where(c, x, 0.0), bools(3, 4), randn(3, 4)),
    Case("where_scalar_input", lambda T, c, x: T.where(c, -1.0, x), bools(3, 4), randn(3, 4)),
    Case("where_broadcast", lambda T, c, x, y: T.where(c, x, y), bools(3, 1), randn(1, 4), randn(3, 4)),
    Case("where_two_scalars", lambda T, c: T.where(c, 1.0, 0.0), bools(3, 4)),
    Case("where_method", lambda T, c, x: x.where(c, x * 2), bools(3, 4), randn(3, 4)),
    Case("masked_fill", lambda T, x, m: x.masked_fill(m, -1e4), randn(3, 4), bools(3, 4)),
    Case("masked_fill_inf", lambda T, x, m: T.masked_fill(x, m, float("-inf")).softmax(-1), randn(3, 4),
         bools(3, 4, p=0.3)),
    Case("masked_fill_broadcast_mask", lambda T, x, m: x.masked_fill(m, 0.0), randn(2, 3, 4), bools(3, 1)),
    Case("masked_fill_tensor_value", lambda T, x, m: x.masked_fill(m, T.tensor(2.0)), randn(3, 4), bools(3, 4)),
    Case("masked_fill_int", lambda T, a, m: a.masked_fill(m, 7), ints(-5, 5, 3, 4), bools(3, 4)),
]

# ---------------------------------------------------------------- activations and normalisation
ACTIVATIONS = [
    Case("relu", lambda T, x: F(T).relu(x), randn(3, 4), dtypes=LOW),
    Case("relu_method", lambda T, x: x.relu() + T.relu(x), randn(3, 4)),
    Case("gelu", lambda T, x: F(T).gelu(x), randn(3, 4), dtypes=LOW),
    Case("gelu_tanh", lambda T, x: F(T).gelu(x, approximate="tanh"), randn(3, 4), dtypes=LOW),
    Case("silu", lambda T, x: F(T).silu(x), randn(3, 4), dtypes=LOW),
    Case("leaky_relu", lambda T, x: F(T).leaky_relu(x, 0.2), randn(3, 4)),
    Case("elu", lambda T, x: F(T).elu(x), randn(3, 4)),
    Case("softplus", lambda T, x: F(T).softplus(x * 10, beta=2, threshold=5), randn(3, 4)),
    Case("logsigmoid", lambda T, x: F(T).logsigmoid(x), randn(3, 4)),
    Case("mish_hardswish", lambda T, x: F(T).mish(x) + F(T).hardswish(x), randn(3, 4)),
    Case("tanh_sigmoid_f", lambda T, x: F(T).tanh(x) * F(T).sigmoid(x), randn(3, 4)),
    Case("softmax_last", lambda T, x: F(T).softmax(x, dim=-1), randn(2, 3, 5), dtypes=LOW),
    Case("softmax_dim0", lambda T, x: x.softmax(0), randn(2, 3, 5)),
    # a row of all -inf (torch: nan, the shim: uniform weights) must not disturb the rows after it
    Case("softmax_after_all_neginf_row", lambda T, x, m: x.masked_fill(m, float("-inf")).softmax(-1)[1:],
         randn(4, 6), np.array([[True] * 6] + [[False] * 5 + [True]] * 3)),
    Case("log_softmax_after_all_neginf_row", lambda T, x, m: x.masked_fill(m, float("-inf")).log_softmax(-1)[1:],
         randn(4, 6), np.array([[True] * 6] + [[False] * 5 + [True]] * 3), tol=EXP_TOL),
    Case("softmax_dtype", lambda T, x: T.softmax(x.half(), -1, dtype=T.float32), randn(2, 5)),
    Case("log_softmax", lambda T, x: F(T).log_softmax(x, dim=1), randn(2, 3, 5), dtypes=LOW, tol=EXP_TOL),
    Case("log_softmax_method", lambda T, x: x.log_softmax(-1), randn(4, 5), tol=EXP_TOL),
    Case("layer_norm_affine", lambda T, x, w, b: F(T).layer_norm(x, (8,), w, b), randn(2, 3, 8), randn(8),
         randn(8), tol=(1e-5, 1e-5)),
    Case("layer_norm_no_affine", lambda T, x: F(T).layer_norm(x, [8], eps=1e-12), randn(2, 3, 8), tol=(1e-5, 1e-5)),
    Case("layer_norm_2d_shape", lambda T, x, w, b: F(T).layer_norm(x, (3, 4), w, b), randn(2, 3, 4), randn(3, 4),
         randn(3, 4), tol=(1e-5, 1e-5)),
    Case("layer_norm_low", lambda T, x, w, b: F(T).layer_norm(x, (8,), w, b), randn(2, 3, 8), randn(8), randn(8),
         dtypes=("float16", "bfloat16")),
    Case("layer_norm_bf16_input_f32_params", lambda T, x, w, b: F(T).layer_norm(x.bfloat16(), (8,), w, b),
         randn(2, 3, 8), randn(8), randn(8), tol=(1.6e-2, 1.6e-2)),
    Case("rms_norm", lambda T, x, w: F(T).rms_norm(x, (8,), w, eps=1e-6), randn(2, 3, 8), randn(8)),
    Case("rms_norm_default_eps", lambda T, x: F(T).rms_norm(x, [8]), randn(2, 3, 8)),
    Case("rms_norm_low", lambda T, x, w: F(T).rms_norm(x, (8,), w, eps=1e-6), randn(2, 3, 8), randn(8),
         dtypes=("float16", "bfloat16")),
    Case("normalize", lambda T, x: F(T).normalize(x, dim=-1), randn(3, 4)),
    Case("group_norm", lambda T, x, w, b: F(T).group_norm(x, 2, w, b), randn(2, 4, 5), randn(4), randn(4),
         tol=(1e-5, 1e-5)),
]

# ---------------------------------------------------------------- linear algebra, embedding, attention
MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)),
                 ((2, 3, 4), (2, 4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 6)),
                 ((3, 4), (2, 4, 5))]
LINALG = [
    *[Case(f"matmul_{'x'.join(map(str, a))}@{'x'.join(map(str, b))}", lambda T, x, y: x @ y, randn(*a), randn(*b))
      for a, b in MATMUL_SHAPES],
    Case("matmul_fn_low", lambda T, x, y: T.matmul(x, y), randn(2, 3, 4), randn(4, 5), dtypes=LOW),
    Case("mm", lambda T, x, y: T.mm(x, y), randn(3, 4), randn(4, 5)),
    Case("bmm", lambda T, x, y: T.bmm(x, y), randn(2, 3, 4), randn(2, 4, 5), dtypes=LOW),
    Case("baddbmm", lambda T, c, x, y: T.baddbmm(c, x, y, beta=0.5, alpha=2.0), randn(2, 3, 5), randn(2, 3, 4),
         randn(2, 4, 5)),
    Case("baddbmm_beta0_broadcast", lambda T, c, x, y: T.baddbmm(c, x, y, beta=0.0, alpha=0.3), randn(1, 3, 5),
         randn(2, 3, 4), randn(2, 4, 5)),
    Case("addmm", lambda T, c, x, y: T.addmm(c, x, y, beta=2.0), randn(5), randn(3, 4), randn(4, 5)),
    Case("outer_dot", lambda T, a, b: T.outer(a, b).sum() + T.dot(a, b), randn(4), randn(4)),
    Case("einsum_bmm", lambda T, x, y: T.einsum("bij,bjk->bik", x, y), randn(2, 3, 4), randn(2, 4, 5)),
    Case("einsum_outer", lambda T, x, y: T.einsum("i,j->ij", x, y), randn(3), randn(4)),
    Case("einsum_attention", lambda T, q, k: T.einsum("bhqd,bhkd->bhqk", q, k), randn(2, 3, 4, 5), randn(2, 3, 6, 5)),
    Case("einsum_ellipsis_broadcast", lambda T, x, y: T.einsum("...ij,...jk->...ik", x, y), randn(2, 2, 3, 4),
         randn(4, 5)),
    Case("einsum_three_operands", lambda T, x, w, y: T.einsum("bi,oij,bj->bo", [x, w, y]), randn(2, 3),
         randn(4, 3, 5), randn(2, 5)),
    Case("einsum_implicit_output", lambda T, x, y: T.einsum("ab,cb", x, y), randn(2, 3), randn(4, 3)),
    Case("einsum_sum_out", lambda T, x: T.einsum("ij->", x), randn(3, 4)),
    # Cholesky (no backward on the CPU: MindSpore has no CholeskyGrad kernel there); only the lower (upper=True:
    # upper) triangle is read, so the asymmetric input below factors like its symmetric part
    Case("linalg_cholesky", lambda T, x: T.linalg.cholesky(x @ x.mT + T.eye(4)), randn(2, 4, 4), grad=False),
    Case("linalg_cholesky_upper_reads_upper", lambda T, x: T.linalg.cholesky((x @ x.mT + T.eye(4)).triu(),
                                                                             upper=True), randn(4, 4), grad=False),
    Case("linalg_cholesky_ex_info", lambda T, x: T.linalg.cholesky_ex(
        T.stack([x @ x.mT + T.eye(3), -T.eye(3), T.diag(T.tensor([1.0, -1, 1]))])).info, randn(3, 3), grad=False),
    Case("linear_2d", lambda T, x, w, b: F(T).linear(x, w, b), randn(3, 4), randn(5, 4), randn(5), dtypes=LOW),
    Case("linear_3d", lambda T, x, w, b: F(T).linear(x, w, b), randn(2, 3, 4), randn(5, 4), randn(5), dtypes=LOW),
    Case("linear_2d_no_bias", lambda T, x, w: F(T).linear(x, w), randn(3, 4), randn(5, 4)),
    Case("linear_3d_no_bias", lambda T, x, w: F(T).linear(x, w), randn(2, 3, 4), randn(5, 4)),
    Case("linear_1d_input", lambda T, x, w, b: F(T).linear(x, w, b), randn(4), randn(5, 4), randn(5)),
    Case("embedding", lambda T, i, w: F(T).embedding(i, w), np.array([[0, 2, 2], [4, 1, 0]]), randn(5, 3)),
    Case("embedding_padding_idx", lambda T, i, w: F(T).embedding(i, w, padding_idx=0),
         np.array([[0, 2, 2], [4, 1, 0]]), randn(5, 3)),
    Case("embedding_int32_ids", lambda T, i, w: F(T).embedding(i, w), np.array([3, 1, 3], np.int32), randn(5, 3)),
    Case("embedding_low", lambda T, i, w: F(T).embedding(i, w, padding_idx=1), np.array([[0, 1, 3]]), randn(5, 3),
         dtypes=("float16", "bfloat16")),
    Case("one_hot", lambda T, i: F(T).one_hot(i, 5), np.array([0, 3, 4, 1])),
    # convolutions: ViT's patch embedding (stride = kernel, padding 0, as an int and as a tuple), tuple padding
    # that differs per side, dilation, groups, and conv1d (computed as a conv2d of height 1)
    Case("conv2d_patches", lambda T, x, w, b: F(T).conv2d(x, w, b, stride=4), randn(2, 3, 16, 16),
         randn(8, 3, 4, 4), randn(8), tol=(1e-5, 1e-5)),
    Case("conv2d_patches_tuple_padding", lambda T, x, w, b: F(T).conv2d(x, w, b, stride=(4, 4), padding=(0, 0)),
         randn(2, 3, 16, 16), randn(8, 3, 4, 4), randn(8), tol=(1e-5, 1e-5)),
    Case("conv2d_padding_per_side_dilation", lambda T, x, w: F(T).conv2d(x, w, stride=(2, 3), padding=(1, 2),
                                                                         dilation=(1, 2)),
         randn(2, 3, 9, 11), randn(4, 3, 3, 3), tol=(1e-5, 1e-5)),
    Case("conv2d_same_groups", lambda T, x, w: F(T).conv2d(x, w, padding="same", groups=2), randn(1, 4, 7, 7),
         randn(6, 2, 4, 4), tol=(1e-5, 1e-5)),
    Case("conv1d", lambda T, x, w, b: F(T).conv1d(x, w, b), randn(2, 4, 10), randn(6, 4, 3), randn(6),
         tol=(1e-5, 1e-5)),
    Case("conv1d_padding_stride_groups", lambda T, x, w: F(T).conv1d(x, w, stride=2, padding=2, groups=2),
         randn(2, 4, 10), randn(6, 2, 3), tol=(1e-5, 1e-5)),
]

_Q, _K, _V = randn(2, 3, 5, 8), randn(2, 3, 5, 8), randn(2, 3, 5, 8)
_SDPA_TOL = {"float32": (1e-5, 2e-6), "float16": (5e-3, 5e-3)}  # (float16: MindSpore accumulates in float16)
ATTENTION = [
    Case("sdpa_plain", lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v), _Q, _K, _V, tol=_SDPA_TOL,
         dtypes=LOW),
    Case("sdpa_bool_mask", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
         _Q, _K, _V, np.tril(np.ones((5, 5), bool)) | np.eye(5, k=2, dtype=bool), tol=_SDPA_TOL),
    Case("sdpa_bool_mask_broadcast", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
         _Q, _K, _V, np.array([True, True, True, False, False]).reshape(1, 1, 1, 5).repeat(2, 0), tol=_SDPA_TOL),
    Case("sdpa_fully_masked_row", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
         _Q, _K, _V, np.tril(np.ones((5, 5), bool)) & (np.arange(5) != 2)[:, None], tol=_SDPA_TOL),
    Case("sdpa_float_mask_fully_masked_row",
         lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m), _Q, _K, _V,
         Fixed(np.where(np.arange(5)[:, None] == 3, -np.inf, 0.0).repeat(5, 1).astype(np.float32)), tol=_SDPA_TOL),
    Case("sdpa_float_mask", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
         _Q, _K, _V, Fixed(np.where(bools(2, 1, 5, 5, p=0.3), -1e9, 0.0).astype(np.float32)), tol=_SDPA_TOL),
    Case("sdpa_float_mask_grad", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
         _Q, _K, _V, randn(1, 3, 5, 5), tol=_SDPA_TOL),
    Case("sdpa_causal", lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, is_causal=True),
         _Q, _K, _V, tol=_SDPA_TOL, dtypes=LOW),
    Case("sdpa_causal_rectangular", lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, is_causal=True),
         randn(2, 3, 4, 8), randn(2, 3, 6, 8), randn(2, 3, 6, 8), tol=_SDPA_TOL),
    Case("sdpa_scale", lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, scale=0.3), _Q, _K, _V,
         tol=_SDPA_TOL),
    Case("sdpa_gqa", lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
         randn(2, 4, 5, 8), randn(2, 2, 5, 8), randn(2, 2, 5, 8), tol=_SDPA_TOL),
    Case("sdpa_3d", lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v), randn(3, 5, 8), randn(3, 6, 8),
         randn(3, 6, 4), tol=_SDPA_TOL),
]

# ---------------------------------------------------------------- losses
_LOGITS = randn(6, 5)
_TARGET = np.array([0, 4, 2, 2, 1, 3])
_TARGET_IGN = np.array([0, -100, 2, 2, -100, 3])
_CLASS_W = Fixed(pos(5))
_E = np.exp(randn(6, 5))
_PROBS = Fixed((_E / _E.sum(-1, keepdims=True)).astype(np.float32))
_LOSS_TOL = (1e-5, 2e-6)
LOSSES = [
    *[Case(f"cross_entropy_{red}", lambda T, x, t, red=red: F(T).cross_entropy(x, t, reduction=red), _LOGITS,
           _TARGET, tol=_LOSS_TOL) for red in ("mean", "sum", "none")],
    Case("cross_entropy_ignore_index", lambda T, x, t: F(T).cross_entropy(x, t), _LOGITS, _TARGET_IGN,
         tol=_LOSS_TOL),
    Case("cross_entropy_custom_ignore", lambda T, x, t: F(T).cross_entropy(x, t, ignore_index=2), _LOGITS, _TARGET,
         tol=_LOSS_TOL),
    Case("cross_entropy_smoothing", lambda T, x, t: F(T).cross_entropy(x, t, label_smoothing=0.1), _LOGITS,
         _TARGET_IGN, tol=_LOSS_TOL),
    *[Case(f"cross_entropy_weight_{red}", lambda T, x, t, w, red=red: F(T).cross_entropy(x, t, w, reduction=red),
           _LOGITS, _TARGET_IGN, _CLASS_W, tol=_LOSS_TOL) for red in ("mean", "sum", "none")],
    *[Case(f"cross_entropy_weight_smoothing_{red}",
           lambda T, x, t, w, red=red: F(T).cross_entropy(x, t, w, label_smoothing=0.2, reduction=red),
           _LOGITS, _TARGET_IGN, _CLASS_W, tol=_LOSS_TOL) for red in ("mean", "sum", "none")],
    *[Case(f"cross_entropy_probs_{red}", lambda T, x, p, red=red: F(T).cross_entropy(x, p, reduction=red),
           _LOGITS, _PROBS, tol=_LOSS_TOL) for red in ("mean", "sum", "none")],
    Case("cross_entropy_probs_smoothing_weight",
         lambda T, x, p, w: F(T).cross_entropy(x, p, w, label_smoothing=0.1), _LOGITS, _PROBS, _CLASS_W,
         tol=_LOSS_TOL),
    *[Case(f"cross_entropy_3d_{red}", lambda T, x, t, red=red: F(T).cross_entropy(x, t, reduction=red),
           randn(2, 5, 3), np.array([[0, 4, -100], [2, 2, 1]]), tol=_LOSS_TOL) for red in ("mean", "sum", "none")],
    Case("cross_entropy_3d_weight_smoothing",
         lambda T, x, t, w: F(T).cross_entropy(x, t, w, label_smoothing=0.1), randn(2, 5, 3),
         np.array([[0, 4, -100], [2, 2, 1]]), _CLASS_W, tol=_LOSS_TOL),
    Case("cross_entropy_3d_probs", lambda T, x, p: F(T).cross_entropy(x, p), randn(2, 5, 3),
         Fixed(np.full((2, 5, 3), 0.2, np.float32)), tol=_LOSS_TOL),
    Case("cross_entropy_unbatched", lambda T, x, t: F(T).cross_entropy(x, t), randn(5), np.array(3), tol=_LOSS_TOL),
    Case("cross_entropy_all_ignored", lambda T, x, t: F(T).cross_entropy(x, t), randn(2, 5), np.array([-100, -100])),
    Case("cross_entropy_low", lambda T, x, t: F(T).cross_entropy(x, t), _LOGITS, _TARGET_IGN,
         dtypes=("float16", "bfloat16")),
    Case("cross_entropy_module", lambda T, x, t, w: T.nn.CrossEntropyLoss(weight=w, ignore_index=2)(x, t), _LOGITS,
         _TARGET, _CLASS_W, tol=_LOSS_TOL),
    *[Case(f"nll_loss_{red}", lambda T, x, t, w, red=red: F(T).nll_loss(x.log_softmax(-1), t, w, reduction=red),
           _LOGITS, _TARGET_IGN, _CLASS_W, tol=_LOSS_TOL) for red in ("mean", "sum", "none")],
    Case("nll_loss_3d", lambda T, x, t: F(T).nll_loss(x, t), randn(2, 5, 3), np.array([[0, 4, 1], [2, 2, 1]]),
         tol=_LOSS_TOL),
    *[Case(f"mse_loss_{red}", lambda T, x, y, red=red: F(T).mse_loss(x, y, reduction=red), randn(3, 4), randn(3, 4))
      for red in ("mean", "sum", "none")],
    Case("l1_smooth_l1_huber", lambda T, x, y: F(T).l1_loss(x, y) + F(T).smooth_l1_loss(x, y, beta=0.5)
         + F(T).huber_loss(x, y, delta=0.7), randn(3, 4), randn(3, 4)),
    *[Case(f"bce_with_logits_{red}", lambda T, x, y, red=red: F(T).binary_cross_entropy_with_logits(
        x, y, reduction=red), randn(3, 4) * 3, Fixed(_rng.random((3, 4)).astype(np.float32)))
      for red in ("mean", "sum", "none")],
    Case("bce_with_logits_weights", lambda T, x, y, w, pw: F(T).binary_cross_entropy_with_logits(
        x, y, weight=w, pos_weight=pw), randn(3, 4) * 3, Fixed(bools(3, 4).astype(np.float32)), Fixed(pos(3, 4)),
        Fixed(pos(4))),
    Case("bce", lambda T, x, y: F(T).binary_cross_entropy(x.sigmoid(), y), randn(3, 4),
         Fixed(_rng.random((3, 4)).astype(np.float32))),
    Case("kl_div_batchmean", lambda T, x, y: F(T).kl_div(x.log_softmax(-1), y, reduction="batchmean"), randn(3, 4),
         Fixed(np.full((3, 4), 0.25, np.float32))),
]

# ---------------------------------------------------------------- reductions, scans, sorting
_X = randn(3, 4, 5)
REDUCTIONS = [
    Case("sum_all", lambda T, x: x.sum(), _X, dtypes=LOW, tol={"float16": (2e-3, 2e-2), "bfloat16": (2e-2, 2e-1)}),
    Case("sum_dim", lambda T, x: T.sum(x, 1), _X),
    Case("sum_dims_keepdim", lambda T, x: x.sum((0, 2), keepdim=True), _X),
    Case("sum_neg_dim_list", lambda T, x: x.sum(dim=[-1, 0]), _X),
    Case("sum_dtype_f64", lambda T, x: x.sum(-1, dtype=T.float64), _X),
    Case("sum_int", lambda T, a: a.sum(), ints(-5, 5, 3, 4, dtype=np.int32)),
    Case("sum_bool", lambda T, m: m.sum(1), bools(3, 4)),
    Case("mean_all", lambda T, x: x.mean(), _X, dtypes=LOW, tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}),
    Case("mean_dim_keepdim", lambda T, x: T.mean(x, -1, keepdim=True), _X),
    Case("mean_dims", lambda T, x: x.mean((0, 1)), _X),
    Case("mean_dtype", lambda T, x: x.half().mean(dtype=T.float32), _X),
    Case("max_all", lambda T, x: x.max(), _X),
    Case("max_dim", lambda T, x: x.max(1), _X),
    Case("max_dim_keepdim", lambda T, x: T.max(x, dim=-1, keepdim=True), _X),
    Case("min_dim", lambda T, x: x.min(0), _X),
    Case("max_elementwise", lambda T, x, y: T.max(x, y), randn(3, 4), randn(3, 4)),
    Case("max_int", lambda T, a: a.max(1), ints(-9, 9, 3, 4)),
    Case("amax_amin", lambda T, x: x.amax((0, 2)).sum() + T.amin(x, 1).sum(), _X),
    Case("argmax_argmin", lambda T, x: T.stack([x.argmax(1), x.argmin(1)]), _X),
    Case("argmax_all_keepdim", lambda T, x: (x.argmax(), x.argmin(dim=-1, keepdim=True)), _X),
    Case("all_any", lambda T, m: (m.all(), m.any(), m.all(1), T.any(m, 0, keepdim=True)), bools(3, 4, p=0.8)),
    Case("all_any_numeric", lambda T, x: (x.all(), (x > 5).any()), randn(3, 4)),
    Case("var_default", lambda T, x: x.var(), _X),
    Case("var_dim", lambda T, x: T.var(x, 1), _X),
    Case("var_correction0_keepdim", lambda T, x: x.var(-1, correction=0, keepdim=True), _X),
    Case("var_unbiased_false", lambda T, x: x.var(dim=(0, 2), unbiased=False), _X),
    Case("std", lambda T, x: x.std(-1) + T.std(x, 0).sum(), _X),
    Case("std_all_unbiased_kw", lambda T, x: x.std(unbiased=True), _X),
    Case("var_mean", lambda T, x: T.var_mean(x, 1), _X),
    Case("logsumexp", lambda T, x: T.logsumexp(x, -1), _X),
    Case("logsumexp_dims_keepdim", lambda T, x: x.logsumexp((0, 2), keepdim=True), _X),
    Case("cumsum", lambda T, x: x.cumsum(1), _X),
    Case("cumsum_neg_dim", lambda T, x: T.cumsum(x, dim=-1), _X),
    Case("cumsum_int", lambda T, a: a.cumsum(0), ints(-5, 5, 3, 4, dtype=np.int32)),
    Case("cumsum_dtype", lambda T, a: a.cumsum(1, dtype=T.float32), ints(-5, 5, 3, 4)),
    Case("cumprod", lambda T, x: x.cumprod(1), pos(3, 4)),
    Case("prod", lambda T, x: x.prod(-1), pos(3, 4)),
    Case("topk", lambda T, x: x.topk(2), _X),
    Case("topk_dim_smallest", lambda T, x: T.topk(x, 2, dim=1, largest=False), _X),
    Case("sort", lambda T, x: x.sort(), _X),
    Case("sort_desc_dim", lambda T, x: T.sort(x, dim=0, descending=True), _X),
    Case("argsort", lambda T, x: x.argsort(dim=1, descending=True), _X),
    Case("norm_default", lambda T, x: x.norm(), _X),
    Case("norm_p1_dim", lambda T, x: T.norm(x, p=1, dim=-1), _X),
    Case("norm_dim_keepdim", lambda T, x: x.norm(2, dim=(1, 2), keepdim=True), _X),
    Case("norm_inf", lambda T, x: x.norm(float("inf")), _X),
    Case("linalg_vector_norm", lambda T, x: T.linalg.vector_norm(x, 3, dim=1), _X),
    Case("vector_norm_dtype", lambda T, x: T.linalg.vector_norm(x.half(), dim=-1, dtype=T.float32), _X,
         tol=(1e-3, 1e-3)),
    Case("norm_dtype", lambda T, x: T.norm(x, dim=1, dtype=T.float64), _X),
    Case("count_nonzero", lambda T, a: T.count_nonzero(a, 1), ints(0, 3, 3, 4)),
]

# ---------------------------------------------------------------- shapes and views
SHAPES = [
    Case("view_infer", lambda T, x: x.view(-1), _X),
    Case("view_shape", lambda T, x: x.view(4, -1, 3), _X),
    Case("view_tuple", lambda T, x: x.view((12, 5)), _X),
    Case("reshape", lambda T, x: T.reshape(x, (5, -1)), _X),
    Case("reshape_after_transpose", lambda T, x: x.transpose(0, 2).reshape(-1, 3), _X),
    Case("transpose", lambda T, x: x.transpose(0, 1), _X),
    Case("transpose_neg", lambda T, x: T.transpose(x, -1, -2), _X),
    Case("t_and_T", lambda T, x: x.t() + x.T, randn(4, 4)),
    Case("mT", lambda T, x: x.mT, _X),
    Case("permute", lambda T, x: x.permute(2, 0, 1), _X),
    Case("permute_tuple_neg", lambda T, x: T.permute(x, (-1, 1, 0)), _X),
    Case("unsqueeze", lambda T, x: x.unsqueeze(1).unsqueeze(-1), _X),
    Case("squeeze_all", lambda T, x: x.squeeze(), randn(1, 3, 1, 4)),
    Case("squeeze_dim", lambda T, x: x.squeeze(2), randn(1, 3, 1, 4)),
    Case("squeeze_non1_dim", lambda T, x: x.squeeze(1), randn(1, 3, 1, 4)),
    Case("squeeze_dims", lambda T, x: T.squeeze(x, (0, 2)), randn(1, 3, 1, 4)),
    Case("flatten", lambda T, x: x.flatten(), _X),
    Case("flatten_range", lambda T, x: T.flatten(x, 1), _X),
    Case("flatten_0d", lambda T, x: x.sum().flatten(), _X),
    Case("unflatten", lambda T, x: x.unflatten(1, (2, 2)), _X),
    Case("unflatten_infer", lambda T, x: x.unflatten(-1, (-1, 1)), _X),
    Case("expand", lambda T, x: x.expand(2, 3, 4), randn(3, 1)),
    Case("expand_keep", lambda T, x: x.expand(-1, 4), randn(3, 1)),
    Case("expand_as", lambda T, x, y: x.expand_as(y) * y, randn(1, 4), randn(3, 4)),
    Case("broadcast_to", lambda T, x: T.broadcast_to(x, (2, 3, 4)), randn(4)),
    Case("repeat", lambda T, x: x.repeat(2, 1, 3), randn(3, 4)),
    Case("repeat_tuple", lambda T, x: x.repeat((2, 2)), randn(3, 4)),
    Case("repeat_int", lambda T, a: a.repeat(2, 2), ints(0, 9, 3)),
    Case("repeat_interleave_dim", lambda T, x: x.repeat_interleave(2, dim=0), randn(3, 4)),
    Case("repeat_interleave_flat", lambda T, x: T.repeat_interleave(x, 3), randn(3, 4)),
    Case("repeat_interleave_tensor", lambda T, x, r: x.repeat_interleave(r, dim=1), randn(3, 4),
         np.array([1, 0, 2, 3])),
    Case("split_int", lambda T, x: x.split(2, dim=1), _X),
    Case("split_sizes", lambda T, x: T.split(x, [1, 3], 1), _X),
    Case("chunk", lambda T, x: x.chunk(3, -1), _X),
    Case("chunk_uneven", lambda T, x: T.chunk(x, 3, 1), _X),
    Case("unbind", lambda T, x: x.unbind(1), _X),
    Case("narrow", lambda T, x: x.narrow(1, 1, 2), _X),
    Case("narrow_neg_start", lambda T, x: T.narrow(x, -1, -3, 2), _X),
    Case("select", lambda T, x: x.select(1, -1), _X),
    Case("cat", lambda T, x, y: T.cat([x, y], 1), randn(2, 3), randn(2, 4)),
    Case("cat_neg_dim", lambda T, x, y: T.cat((x, y), dim=-1), randn(2, 3), randn(2, 4)),
    Case("cat_promote_int_float", lambda T, a, x: T.cat([a, x]), ints(0, 5, 2, 3), randn(2, 3)),
    Case("cat_promote_half_float", lambda T, x, y: T.cat([x.half(), y]), randn(2, 3), randn(2, 3)),
    Case("cat_empty_1d", lambda T, x, e: T.cat([x, e]), randn(3), Fixed(np.zeros((0,), np.float32))),
    Case("cat_low", lambda T, x, y: T.cat([x, y], 0), randn(2, 3), randn(1, 3), dtypes=LOW),
    Case("stack", lambda T, x, y: T.stack([x, y]), randn(2, 3), randn(2, 3)),
    Case("stack_dim", lambda T, x, y: T.stack((x, y), dim=-1), randn(2, 3), randn(2, 3)),
    Case("stack_promote", lambda T, a, x: T.stack([a, x], 1), ints(0, 5, 2, 3, dtype=np.int32), randn(2, 3)),
    Case("flip", lambda T, x: x.flip(0), _X),
    Case("flip_dims", lambda T, x: T.flip(x, (0, -1)), _X),
    Case("roll", lambda T, x: x.roll(1, 1), _X),
    Case("roll_multi", lambda T, x: T.roll(x, (2, -1), (0, 2)), _X),
    Case("roll_flat", lambda T, x: x.roll(3), _X),
    Case("tril_triu", lambda T, x: x.tril() + T.triu(x, 1) * 2, randn(4, 5)),
    Case("tril_neg_diag_batched", lambda T, x: T.tril(x, -1), randn(2, 4, 4)),
    Case("triu_bool", lambda T, m: m.triu(1), np.ones((4, 4), bool)),
    Case("contiguous", lambda T, x: x.transpose(0, 1).contiguous(), _X),
    Case("movedim", lambda T, x: T.movedim(x, 0, -1), _X),
    Case("diagonal", lambda T, x: x.diagonal(), randn(4, 4)),
    Case("meshgrid", lambda T, a, b: T.meshgrid(a, b, indexing="ij"), randn(3), randn(4)),
    Case("tensor_split", lambda T, x: x.tensor_split(3, dim=1), _X),
    Case("view_as_int32_bits", lambda T, x: x.view(T.int32), randn(3, 4), grad=False),
    Case("view_as_uint8", lambda T, x: x.view(T.uint8), randn(3, 4), grad=False),
    Case("expand_bool", lambda T, m: m[:, None, :].expand(3, 2, 4), bools(3, 4)),
    Case("pad_constant", lambda T, x: F(T).pad(x, (1, 2)), randn(2, 3, 4)),
    Case("pad_two_dims_value", lambda T, x: F(T).pad(x, (1, 0, 0, 2), value=-1.5), randn(2, 3, 4)),
    Case("pad_negative_crops", lambda T, x: F(T).pad(x, (-1, 2, 1, -1)), randn(2, 3, 4)),
    Case("pad_int", lambda T, a: F(T).pad(a, (0, 3), value=7), ints(0, 9, 2, 3)),
    Case("pad_bool", lambda T, m: F(T).pad(m, (2, 0), value=False), bools(2, 3)),
    Case("pad_reflect", lambda T, x: F(T).pad(x, (2, 1), mode="reflect"), randn(2, 3, 4)),
    Case("pad_replicate", lambda T, x: F(T).pad(x, (1, 1, 2, 0), mode="replicate"), randn(1, 2, 3, 4)),
]

# ---------------------------------------------------------------- gather/scatter and selection
INDEXING_OPS = [
    Case("gather", lambda T, x, i: x.gather(1, i), randn(3, 4), ints(0, 4, 3, 2)),
    Case("gather_dim0", lambda T, x, i: T.gather(x, 0, i), randn(3, 4), ints(0, 3, 2, 4)),
    Case("take_along_dim", lambda T, x, i: T.take_along_dim(x, i, 1), randn(3, 4), ints(0, 4, 3, 2)),
    Case("scatter", lambda T, x, i, s: x.scatter(1, i, s), randn(3, 4), np.array([[0, 1], [2, 3], [3, 0]]),
         randn(3, 2)),
    Case("scatter_value", lambda T, x, i: T.scatter(x, 1, i, 5.0), randn(3, 4), np.array([[0, 1], [2, 3], [3, 0]])),
    Case("scatter_add", lambda T, x, i, s: x.scatter_add(1, i, s), randn(3, 4), np.array([[0, 0], [2, 3], [3, 3]]),
         randn(3, 2)),
    Case("scatter_add_dim0", lambda T, x, i, s: T.scatter_add(x, 0, i, s), randn(3, 4), ints(0, 3, 2, 4),
         randn(2, 4)),
    Case("index_select", lambda T, x, i: x.index_select(1, i), randn(3, 4), np.array([3, 0, 0])),
    Case("index_select_dim0", lambda T, x, i: T.index_select(x, 0, i), randn(3, 4), np.array([2, 1])),
    Case("index_add", lambda T, x, i, s: x.index_add(0, i, s, alpha=2), randn(4, 3), np.array([0, 2, 0]),
         randn(3, 3)),
    Case("index_fill", lambda T, x, i: x.index_fill(1, i, -1.0), randn(3, 4), np.array([0, 2])),
    Case("masked_select", lambda T, x, m: x.masked_select(m), randn(3, 4), bools(3, 4)),
    Case("masked_select_broadcast", lambda T, x, m: T.masked_select(x, m), randn(3, 4), bools(4)),
    Case("masked_scatter", lambda T, x, m, s: x.masked_scatter(m, s), randn(3, 4), bools(3, 4), randn(12)),
    Case("nonzero", lambda T, x: T.nonzero(x > 0), randn(3, 4)),
    Case("nonzero_as_tuple", lambda T, x: x.gt(0).nonzero(as_tuple=True), randn(3, 4)),
    Case("where_one_arg", lambda T, x: T.where(x > 0), randn(3, 4)),
    Case("argwhere", lambda T, x: T.argwhere(x > 0), randn(3, 4)),
    Case("searchsorted", lambda T, s, v: T.searchsorted(s, v), Fixed(np.array([0.0, 1.0, 2.0, 3.0], np.float32)),
         Fixed(np.array([-1.0, 0.5, 2.0, 9.0], np.float32))),
    Case("unique", lambda T, a: T.unique(a, return_inverse=True, return_counts=True), ints(0, 5, 10)),
]

# ---------------------------------------------------------------- indexing with []
_IDX = randn(4, 5, 6)
GETITEM = [
    Case("int", lambda T, x: x[1], _IDX),
    Case("neg_int", lambda T, x: x[-1, 2], _IDX),
    Case("slice", lambda T, x: x[:, 1:3], _IDX),
    Case("slice_step", lambda T, x: x[1:, ::2, 1::3], _IDX),
    Case("slice_neg_bounds", lambda T, x: x[-3:-1, :-2], _IDX),
    Case("none_ellipsis", lambda T, x: x[None, ..., None, 0], _IDX),
    Case("ellipsis_last", lambda T, x: x[..., 1], _IDX),
    Case("long_tensor", lambda T, x, i: x[i], _IDX, np.array([3, 0, 0])),
    Case("long_tensor_2d", lambda T, x, i: x[i], _IDX, np.array([[1, 2], [0, 3]])),
    Case("list", lambda T, x: x[[0, 2]], _IDX),
    Case("second_dim_tensor", lambda T, x, i: x[:, i], _IDX, np.array([4, 1])),
    Case("two_tensors", lambda T, x, i, j: x[i, j], _IDX, np.array([0, 3, 1]), np.array([4, 4, 0])),
    Case("tensors_apart", lambda T, x, i, j: x[i, :, j], _IDX, np.array([0, 3]), np.array([5, 1])),
    Case("bool_mask_full", lambda T, x, m: x[m], _IDX, bools(4, 5, 6)),
    Case("bool_mask_leading", lambda T, x, m: x[m], _IDX, bools(4)),
    Case("bool_mask_second_dim", lambda T, x, m: x[:, m], _IDX, bools(5)),
    Case("bool_from_compare", lambda T, x: x[x > 0.5], _IDX),
    Case("scalar_tensor_index", lambda T, x, i: x[i], _IDX, np.array(2)),
    Case("int_tensor_and_slice", lambda T, x, i: x[i, 1:4], _IDX, np.array([1, 1])),
    Case("1d_tensor_of_int32", lambda T, x, i: x[i], _IDX, np.array([1, 3], np.int32)),
]

# Results large enough that broadcasting operands are tiled first (mindnlp_shim/torch/_ops/broadcast.py), and
# strided views copied by NumPy (mindnlp_shim/torch/_ops/dense.py): the same values and gradients as torch.
LARGE = [
    Case("large_add_mask_broadcast", lambda T, x, m: x + m, randn(4, 6, 32, 48), randn(4, 1, 32, 48)),
    Case("large_sub_row_broadcast", lambda T, x, r: T.sub(x, r, alpha=0.5), randn(4, 6, 32, 48), randn(4, 6, 32, 1)),
    Case("large_mul_vector_broadcast", lambda T, x, w: w * x, randn(16, 64, 48), randn(48)),
    Case("large_div_both_broadcast", lambda T, x, y: x / y, randn(64, 1, 48), pos(1, 32, 48),
         tol=(1e-5, 2e-5)),  # gradients sum 32-64 terms over the broadcast axes, in another order than torch
    Case("large_add_inplace_broadcast", lambda T, x, b: (x * 1).add_(b), randn(32, 32, 48), randn(32, 1, 48)),
    Case("large_mul_int_broadcast", lambda T, x, y: x * y, ints(-5, 5, 64, 32, 32), ints(-5, 5, 32), grad=False),
    Case("contiguous_of_head_transpose", lambda T, x: x.view(4, 32, 6, 8).transpose(1, 2).contiguous(),
         randn(4, 32, 48)),
    Case("reshape_of_head_transpose", lambda T, x: x.transpose(1, 2).reshape(4, 32, 48) * 2, randn(4, 6, 32, 8)),
    Case("contiguous_of_strided_slice", lambda T, x: x[:, ::2].t().contiguous(), randn(6, 8)),
    Case("sdpa_on_transposed_views",
         lambda T, x, m: F(T).scaled_dot_product_attention(*(x.view(2, 16, 3, 3, 8)[:, :, :, i].transpose(1, 2)
                                                              for i in range(3)), attn_mask=m),
         randn(2, 16, 72), Fixed(np.where(bools(2, 1, 1, 16, p=0.3), -1e9, 0.0).astype(np.float32)), tol=_SDPA_TOL),
]

ALL_CASES = (ARITH + COMPARE + ACTIVATIONS + LINALG + ATTENTION + LOSSES + REDUCTIONS + SHAPES + INDEXING_OPS
             + LARGE)
for _c in GETITEM:
    _c.name = "getitem_" + _c.name
    _c.dtypes = LOW  # half precision too: advanced indexing has no bf16 CPU kernel and must go through float32
ALL_CASES += GETITEM


@pytest.mark.parametrize("case,dtype", params(ALL_CASES))
def test_op_matches_torch(case, dtype):
    check(case, dtype)


def test_case_names_are_unique():
    names = [c.name for c in ALL_CASES]
    assert len(names) == len(set(names))


# ---------------------------------------------------------------- errors raised the same way
ERRORS = {
    "negative_step": (lambda T, x: x[::-1], ValueError),
    "view_bad_shape": (lambda T, x: x.view(5, -1), RuntimeError),
    "view_two_infer": (lambda T, x: x.view(-1, -1), RuntimeError),
    "index_out_of_range": (lambda T, x: x[7], IndexError),
    "cat_rank_mismatch": (lambda T, x: T.cat([x, x[0]]), RuntimeError),
    "matmul_shape_mismatch": (lambda T, x: x @ x, RuntimeError),
    "requires_grad_int": (lambda T, x: x.long().requires_grad_(), RuntimeError),
    "mean_of_int": (lambda T, x: x.long().mean(), RuntimeError),
    "bool_of_multi": (lambda T, x: bool(x), RuntimeError),
    "item_of_multi": (lambda T, x: x.item(), RuntimeError),
    "expand_fewer_dims": (lambda T, x: x.expand(4), RuntimeError),
    "split_bad_sizes": (lambda T, x: x.split([1, 1], 0), RuntimeError),
    "clamp_no_bounds": (lambda T, x: x.clamp(), RuntimeError),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name):
    fn, exc = ERRORS[name]
    arr = randn(3, 4)
    with pytest.raises(exc):
        fn(rt, rt.tensor(arr))
    with pytest.raises(exc):
        fn(mt, mt.tensor(arr))


# ---------------------------------------------------------------- honest gaps: a clear error, never a wrong answer
GAPS = {
    "embedding_scale_grad_by_freq": lambda: mt.nn.functional.embedding(mt.tensor([0]), mt.ones(2, 2),
                                                                      scale_grad_by_freq=True),
    "norm_nuclear": lambda: mt.norm(mt.ones(2, 2), p="nuc"),
}


@pytest.mark.parametrize("name", sorted(GAPS))
def test_unsupported_usage_raises_not_implemented(name):
    with pytest.raises(NotImplementedError, match="torch|Tensor"):  # names the torch API
        GAPS[name]()
