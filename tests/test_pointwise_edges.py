"""Elementwise ops at the edges where MindSpore's kernels gave other numbers than torch, against real torch:
remainder/fmod/floor division of floats (exact fmod, signed zero divisors, infinite divisors), truncating division
by -0.0, isclose with infinities, float16 hypot, xlogy at zero (values, signs and gradients), add/sub with alpha
in float16 and bfloat16 (alpha rounded to the dtype, the rest in float32), and float division's zero gradients
with rounding_mode='floor'. Values compare bit for bit (signed zeros included), as repr of the lists."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

INF, NAN = float("inf"), float("nan")
A = [-5.6008294e+29, 3.2418142e+28, -2.5, 2.5, -3.0, 0.0, -0.0, 7.0, INF, -INF, NAN, 1e-30]
B = [799.7129, 2.6345007, -0.0, 0.0, 0.1, 3.0, -2.0, -INF, 2.0, 5.0, 1.0, INF]


def _pair(T, dtype="float32"):
    d = getattr(T, dtype)
    return T.tensor(A, dtype=d), T.tensor(B, dtype=d)


def _grads(T, fn):
    x = T.tensor([0.0, -0.0, -2.0, 0.0, 0.0, 1.0, 5.0], requires_grad=True)
    y = T.tensor([2.0, 2.0, 1.0, 0.0, -1.0, NAN, 3.0], requires_grad=True)
    out = fn(T, x, y)
    out.sum().backward()
    return out.tolist(), x.grad.tolist(), y.grad.tolist()


CALLS = {
    **{f"{name} {dtype}": (lambda name, dtype: lambda T: getattr(T, name)(*_pair(T, dtype)))(name, dtype)
       for name in ("remainder", "fmod", "floor_divide") for dtype in ("float32", "float64", "float16")},
    "div floor float32": lambda T: T.div(*_pair(T), rounding_mode="floor"),
    "div trunc float32": lambda T: T.div(*_pair(T), rounding_mode="trunc"),
    "div trunc float16": lambda T: T.div(*_pair(T, "float16"), rounding_mode="trunc"),
    "% scalar": lambda T: T.tensor([-2.5, 2.5, -3.0, 7.0, 1e-30, 123.456]) % 0.1,
    "% -inf": lambda T: T.tensor(A) % -INF,
    "int % float": lambda T: T.tensor([5, -7, 9]) % 2.5,
    "isclose inf": lambda T: T.isclose(T.tensor([-3.7, INF, -INF, INF, 1.0]), T.tensor([-INF, INF, -INF, -INF, 1.0])),
    "isclose inf float16": lambda T: T.isclose(T.tensor([2.756, INF], dtype=T.float16),
                                               T.tensor([INF, INF], dtype=T.float16)),
    "hypot float16": lambda T: T.hypot(T.tensor([3.0, 1e4, -0.0], dtype=T.float16),
                                       T.tensor([4.0, 1e4, 0.0], dtype=T.float16)),
    "xlogy values and gradients": lambda T: _grads(T, lambda T, x, y: T.xlogy(x, y)),
    "div floor gradients": lambda T: _grads(T, lambda T, x, y: T.div(x, y + 10, rounding_mode="floor")),
    # (64 elements: torch's vectorised loop, which scales in float32; its scalar loop for a tail of fewer than a
    # vector's elements rounds each step to the half type and can differ by an ulp)
    "sub alpha float16": lambda T: T.tensor([-0.8633, 1.3148] * 32, dtype=T.float16).sub(
        T.tensor([-2.877, 4.389] * 32, dtype=T.float16), alpha=0.3),
    "add alpha bfloat16": lambda T: T.tensor([-3.068, 1.5] * 32, dtype=T.bfloat16).add(
        T.tensor([1.244, 2.7] * 32, dtype=T.bfloat16), alpha=2.5),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_pointwise_edge_matches_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 9999), name=st.sampled_from(["remainder", "fmod", "floor_divide"]),
       dtype=st.sampled_from(["float32", "float64"]))
def test_float_division_family_is_exact(seed, name, dtype):
    """Dividends up to 1e6 times the divisor (where torch's own kernels are exact too), any signs."""
    rng = np.random.default_rng(seed)
    b = (rng.uniform(0.01, 10, 64) * rng.choice([-1, 1], 64)).astype(dtype)
    a = (b * rng.uniform(-1e6, 1e6, 64)).astype(dtype)
    results = [repr(getattr(T, name)(T.from_numpy(a.copy()), T.from_numpy(b.copy())).tolist()) for T in (rt, mt)]
    assert results[1] == results[0]
