"""torch.diag (of a vector), diagflat and diag_embed against real torch, forward and backward, with infinities
and NaNs among the values and the incoming gradients.

These used to be products with the identity matrix: inf * 0 put NaN off the diagonal, and the backward summed the
gradient's off-diagonal entries times zero into the vector's (a NaN there, as log(0) of an off-diagonal zero
gives, became a NaN gradient: peft's MonteCLoRA trained to NaN). torch's backward takes the gradient's
diagonal."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")

_SPECIAL = [np.inf, -np.inf, np.nan, 0.0, -0.0]
_BUILDERS = {
    "diag": lambda T, v, k: T.diag(v.reshape(-1), k),
    "diagflat": lambda T, v, k: T.diagflat(v, k),
    "diag_embed": lambda T, v, k: T.diag_embed(v, k),
    "diag_embed dims": lambda T, v, k: T.diag_embed(v, k, dim1=0, dim2=-1),
    "log trace of diag": lambda T, v, k: T.log(T.diag(v.reshape(-1).abs() + 1)).trace().reshape(1, 1),
}


def _values(draw_from, shape):
    rng = np.random.default_rng(draw_from)
    values = rng.standard_normal(shape)
    mask = rng.random(shape) < 0.25
    values[mask] = rng.choice(_SPECIAL, size=int(mask.sum()))
    return values


def _run(T, name, values, offset, grad_seed, dtype):
    v = T.tensor(values, dtype=dtype, requires_grad=True)
    out = _BUILDERS[name](T, v, offset)
    grad = _values(grad_seed, tuple(out.shape))
    out.backward(T.tensor(grad, dtype=dtype))
    return out.detach().float().numpy(), v.grad.float().numpy()


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(_BUILDERS)), shape=st.sampled_from([(3,), (2, 3), (1, 4)]),
       offset=st.integers(-2, 2), seed=st.integers(0, 2**16), grad_seed=st.integers(0, 2**16),
       dtype=st.sampled_from(["float32", "float64", "bfloat16"]))
def test_diagonal_builders_match_torch(name, shape, offset, seed, grad_seed, dtype):
    if name == "log trace of diag":
        offset = 0
    values = _values(seed, shape)
    got = _run(mt, name, values, offset, grad_seed, getattr(mt, dtype))
    want = _run(rt, name, values, offset, grad_seed, getattr(rt, dtype))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
