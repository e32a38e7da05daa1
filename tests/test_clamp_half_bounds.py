"""clamp of a float16/bfloat16 tensor with Python-number bounds gives torch's values and gradients: torch compares
with the bound rounded to the tensor's dtype, so an input equal to the rounded bound keeps its gradient (bf16
-0.30078125 clamped at min=-0.3). Drawn cases (hypothesis) against real torch: inputs on and near the rounded
bounds, for torch.clamp, Tensor.clamp, clamp_min and clamp_max."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

CALLS = {
    "torch.clamp": lambda T, x, lo, hi: T.clamp(x, min=lo, max=hi),
    "Tensor.clamp": lambda T, x, lo, hi: x.clamp(lo, hi),
    "clamp_min": lambda T, x, lo, hi: T.clamp_min(x, lo),
    "clamp_max": lambda T, x, lo, hi: T.clamp_max(x, hi),
}
bounds = st.floats(-4, 4, allow_nan=False).filter(lambda b: b != 0)
cases = st.tuples(st.sampled_from(["bfloat16", "float16"]), bounds, bounds,
                  st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=6))


def _run(T, call, dtype, lo, hi, extra):
    dt = getattr(T, dtype)
    rounded = [T.tensor(b, dtype=dt).item() for b in (lo, hi)]  # values equal to the rounded bounds
    x = T.tensor(rounded + extra, dtype=dt, requires_grad=True)
    y = CALLS[call](T, x, lo, hi)
    (y * T.arange(1, y.numel() + 1, dtype=dt)).sum().backward()
    return y.detach().float().numpy(), x.grad.float().numpy()


@pytest.mark.parametrize("call", sorted(CALLS))
@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(case=cases)
def test_clamp_of_half_tensors_with_number_bounds_matches_torch(call, case):
    dtype, lo, hi, extra = case
    lo, hi = min(lo, hi), max(lo, hi)
    expected = _run(rt, call, dtype, lo, hi, extra)
    ours = _run(mt, call, dtype, lo, hi, extra)
    np.testing.assert_array_equal(ours[0], expected[0])
    np.testing.assert_array_equal(ours[1], expected[1])


def test_the_measured_case():
    values, grads = _run(mt, "torch.clamp", "bfloat16", -0.3, 0.7, [0.9])
    assert values.tolist() == [-0.30078125, 0.69921875, 0.69921875]
    assert grads.tolist() == [1.0, 2.0, 0.0]  # the inputs equal to the rounded bounds keep their gradient
