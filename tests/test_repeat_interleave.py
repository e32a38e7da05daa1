"""repeat_interleave against real torch over generated shapes, including empty ones (generate() from
inputs_embeds alone expands an input_ids of shape (batch, 0) for beams; MindSpore's Tile fails on it with
"fast stride can not be equal to 0"), zero and per-slice repeat counts, every dim, and bool/int/float dtypes;
plus the gradient through a float repeat."""
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


def _call(shape, dtype, repeats, dim, as_tensor):
    def call(T):
        x = T.tensor(np.arange(int(np.prod(shape))).reshape(shape) % 3).to(getattr(T, dtype))
        r = T.tensor(repeats) if as_tensor else repeats
        return x.repeat_interleave(r, dim=dim) if dim is not None else T.repeat_interleave(x, r)

    return call


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(0, 3), min_size=1, max_size=3), dtype=st.sampled_from(["bool", "int64", "float32"]),
       data=st.data())
def test_repeat_interleave_matches_torch(shape, dtype, data):
    dim = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    length = int(np.prod(shape)) if dim is None else shape[dim]
    kind = data.draw(st.sampled_from(["int", "one-element tensor", "per-slice tensor"]))
    if kind == "int":
        repeats, as_tensor = data.draw(st.integers(0, 3)), False
    elif kind == "one-element tensor":
        repeats, as_tensor = [data.draw(st.integers(0, 3))], True
    else:
        repeats, as_tensor = data.draw(st.lists(st.integers(0, 3), min_size=length, max_size=length)), True
    call = _call(shape, dtype, repeats, dim, as_tensor)
    assert outcome(call, mt) == outcome(call, rt)


@pytest.mark.parametrize("case", ["negative int", "negative in tensor", "wrong count", "dim out of range",
                                  "2-d repeats"])
def test_repeat_interleave_errors_match_torch(case):
    call = {"negative int": _call([2, 2], "float32", -1, 0, False),
            "negative in tensor": _call([2, 2], "float32", [1, -1], 0, True),
            "wrong count": _call([2, 2], "float32", [1, 2, 3], 0, True),
            "dim out of range": _call([2, 2], "float32", 2, 2, False),
            "2-d repeats": _call([2, 2], "float32", [[1, 2]], 0, True)}[case]
    assert outcome(call, mt) == ("error",) == outcome(call, rt)


@pytest.mark.parametrize("shape", [(2, 3), (2, 0)])
def test_repeat_interleave_gradient_matches_torch(shape):
    grads = []
    for T in (mt, rt):
        x = T.ones(*shape).requires_grad_()
        y = x.repeat_interleave(T.tensor([2, 1]), dim=0)
        (y * T.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
