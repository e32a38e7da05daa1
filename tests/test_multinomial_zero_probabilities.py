"""multinomial without replacement when a row has fewer non-zero probabilities than samples are asked for, against
real torch (transformers' beam sampling in float16, where low accumulated scores underflow to 0, asks for that):
torch does not raise; its draws of the categories with non-zero probability are reproduced exactly, and the rest
are distinct zero-probability categories (their order among themselves is torch's partial sort's)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _draw(T, probs, num_samples, dtype, seed):
    T.manual_seed(seed)
    try:
        return T.multinomial(T.tensor(probs, dtype=getattr(T, dtype)), num_samples).numpy()
    except RuntimeError as exc:
        return str(exc)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), rows=st.integers(1, 3), width=st.integers(2, 12),
       dtype=st.sampled_from(["float32", "float16", "float64"]), data=st.data())
def test_multinomial_with_zero_probabilities_matches_torch(seed, rows, width, dtype, data):
    rng = np.random.default_rng(seed)
    probs = rng.uniform(0.05, 1.0, (rows, width)) * (rng.uniform(size=(rows, width)) < 0.5)
    probs[:, data.draw(st.integers(0, width - 1))] = 0.7  # every row has a non-zero probability
    num_samples = data.draw(st.integers(1, width))
    ours, theirs = _draw(mt, probs, num_samples, dtype, seed), _draw(rt, probs, num_samples, dtype, seed)
    assert not isinstance(theirs, str), theirs
    assert not isinstance(ours, str), ours
    assert ours.shape == theirs.shape
    for p, o, t in zip(probs, ours, theirs):
        nonzero = min(int((p.astype(dtype) > 0).sum()), num_samples)
        np.testing.assert_array_equal(o[:nonzero], t[:nonzero])
        assert len(set(o.tolist())) == num_samples
        assert (p[o[nonzero:]] == 0).all()


@pytest.mark.parametrize("case", ["all zero", "negative", "too many samples"])
def test_multinomial_invalid_distributions_raise_like_torch(case):
    probs, n = {"all zero": ([0.0, 0.0], 1), "negative": ([0.5, -0.1], 1), "too many samples": ([0.5, 0.5], 3)}[case]
    assert isinstance(_draw(mt, probs, n, "float32", 0), str)
    assert isinstance(_draw(rt, probs, n, "float32", 0), str)
