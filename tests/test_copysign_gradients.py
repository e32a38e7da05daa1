"""torch.copysign's values and gradients against real torch over drawn operands (hypothesis): signed zeros, NaN and
infinities in either operand, either or both requiring grad. torch's result joins the graph of `other` with a zero
gradient (other's .grad is zeros, not None), and the gradient with respect to `input` is NaN where `input` is."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

numbers = st.one_of(st.floats(-8, 8), st.sampled_from([0.0, -0.0, float("nan"), float("inf"), float("-inf")]))
cases = st.fixed_dictionaries({
    "input": st.lists(numbers, min_size=1, max_size=5),
    "other_sign": st.lists(numbers, min_size=1, max_size=5),
    "grads": st.sampled_from(["input", "other", "both"]),
    "dtype": st.sampled_from(["float32", "float64"]),
    "other_as_row": st.booleans(),
})


def _run(T, case):
    n = min(len(case["input"]), len(case["other_sign"]))
    dt = getattr(T, case["dtype"])
    a = T.tensor(case["input"][:n], dtype=dt, requires_grad=case["grads"] in ("input", "both"))
    b = T.tensor(case["other_sign"][:n], dtype=dt, requires_grad=case["grads"] in ("other", "both"))
    if case["other_as_row"]:
        b = b.detach().reshape(1, n).requires_grad_(b.requires_grad)
    y = T.copysign(a, b)
    requires_grad = y.requires_grad
    (y * T.arange(1.0, n + 1, dtype=dt)).sum().backward()
    grads = [None if t.grad is None else t.grad.numpy() for t in (a, b)]
    return y.detach().numpy(), requires_grad, grads


def _same(ours, theirs):
    np.testing.assert_array_equal(ours, theirs)  # (NaN equals NaN here)
    np.testing.assert_array_equal(np.signbit(ours[~np.isnan(ours)]), np.signbit(theirs[~np.isnan(theirs)]))


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(case=cases)
def test_copysign_values_and_gradients_match_torch(case):
    values, requires_grad, grads = _run(rt, case)
    our_values, our_requires_grad, our_grads = _run(mt, case)
    _same(our_values, values)
    assert our_requires_grad == requires_grad
    for ours, theirs in zip(our_grads, grads):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            _same(ours, theirs)


@pytest.mark.parametrize("grads", ["other", "input"])
def test_the_measured_cases(grads):
    case = {"input": [1.0, -2.0, float("nan")], "other_sign": [-1.0, 3.0, 1.0], "grads": grads, "dtype": "float32",
            "other_as_row": False}
    _, requires_grad, (a_grad, b_grad) = _run(mt, case)
    assert requires_grad
    if grads == "other":
        assert b_grad.tolist() == [0.0, 0.0, 0.0]  # zeros, not None
    else:
        assert a_grad[:2].tolist() == [-1.0, -2.0] and np.isnan(a_grad[2])
