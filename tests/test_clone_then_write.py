"""A clone of a tensor in the autograd graph, written in place, then differentiated: torch's values and gradients.
(The clone's node once needed a Clone kernel in its backward that MindSpore's CPU lacks.)"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")

_WRITES = {
    "iadd": lambda T, out, v: out.__iadd__(v),
    "add_ alpha": lambda T, out, v: out.add_(v, alpha=0.5),
    "mul_": lambda T, out, v: out.mul_(v),
    "sub_": lambda T, out, v: out.sub_(v),
    "copy_": lambda T, out, v: out.copy_(v),
    "slice assignment": lambda T, out, v: out.__setitem__(slice(1, 3), v[1:3]),
    "masked_fill_": lambda T, out, v: out.masked_fill_(v > 0, 2.0),
}


def _outcome(T, write, operand, dtype, w0, v0):
    dtype = getattr(T, dtype)
    w = T.tensor(w0, dtype=dtype, requires_grad=True)
    v = T.tensor(v0, dtype=dtype, requires_grad=True)
    out = w.clone()
    _WRITES[write](T, out, v if operand == "leaf" else v * 1.5)
    (out * T.arange(1.0, 5.0, dtype=dtype)).sum().backward()
    return [t.detach().numpy().copy() if t is not None else None for t in (out, w.grad, v.grad)]


@settings(max_examples=30, deadline=None)
@given(write=st.sampled_from(sorted(_WRITES)), operand=st.sampled_from(["leaf", "computed"]),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2**16))
def test_written_clone_matches_torch(write, operand, dtype, seed):
    rng = np.random.default_rng(seed)
    w0, v0 = rng.standard_normal(4), rng.standard_normal(4)
    for got, want in zip(_outcome(mt, write, operand, dtype, w0, v0), _outcome(rt, write, operand, dtype, w0, v0)):
        # (a write that does not read the old value: torch gives the clone's source a zero gradient, the shim none)
        got = np.zeros_like(want) if got is None and want is not None and not want.any() else got
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_clone_keeps_negative_zero():
    x = mt.tensor([-0.0, 1.0], requires_grad=True)
    assert np.signbit(x.clone().detach().numpy()[0])
