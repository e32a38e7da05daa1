"""NaN and infinities go through clamps, extremes and activations as in torch, values and gradients: MindSpore's
relu, clamp, maximum/minimum and max/amax kernels answer a number for NaN (relu(nan) = 0, clamp(nan, 0, 1) = 0,
softplus(nan) = 20, logsigmoid(nan) = -20, amax([1, nan]) = 1), which would hide a diverging run. Compared with
real torch on inputs holding NaN, infinities and values on the clamps' limits."""
import warnings

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

NAN, INF = float("nan"), float("inf")
ROW = [NAN, -1.0, 0.5, 2.0, 0.0, 6.0, -INF, INF, 1.0, -3.0]

OPS = {
    "relu": lambda T, x: T.relu(x),
    "F.relu": lambda T, x: T.nn.functional.relu(x),
    "clamp": lambda T, x: T.clamp(x, 0.0, 1.0),
    "clamp_min": lambda T, x: x.clamp_min(0.0),
    "clamp_max": lambda T, x: x.clamp(max=1.0),
    "clamp_tensor_limits": lambda T, x: T.clamp(x, T.zeros(len(ROW), dtype=x.dtype), T.ones(len(ROW), dtype=x.dtype)),
    "clip": lambda T, x: x.clip(-1.0, 1.0),
    "hardtanh": lambda T, x: T.nn.functional.hardtanh(x),
    "relu6": lambda T, x: T.nn.functional.relu6(x),
    "threshold": lambda T, x: T.nn.functional.threshold(x, 0.5, -5.0),
    "hardsigmoid": lambda T, x: T.nn.functional.hardsigmoid(x),
    "hardswish": lambda T, x: T.nn.functional.hardswish(x),
    "softplus": lambda T, x: T.nn.functional.softplus(x),
    "softplus_beta": lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=5.0),
    "logsigmoid": lambda T, x: T.nn.functional.logsigmoid(x),
    "celu": lambda T, x: T.nn.functional.celu(x),
    "softshrink": lambda T, x: T.nn.functional.softshrink(x),
    "maximum": lambda T, x: T.maximum(x, T.flip(x, (0,))),
    "minimum": lambda T, x: T.minimum(x, T.flip(x, (0,))),
    "maximum_broadcast": lambda T, x: T.maximum(x, T.tensor(0.5)),
    "fmax": lambda T, x: T.fmax(x, T.flip(x, (0,))),
    "fmin": lambda T, x: T.fmin(x, T.zeros(len(ROW), dtype=x.dtype)),
    "amax": lambda T, x: x.reshape(2, 5).amax(1),
    "amin": lambda T, x: x.reshape(2, 5).amin(1),
    "amax_all": lambda T, x: x.amax(),
    "max_dim": lambda T, x: x.reshape(2, 5).max(1).values,
    "min_dim": lambda T, x: x.reshape(2, 5).min(1).values,
    "max_all": lambda T, x: x.max(),
    "logsumexp": lambda T, x: T.logsumexp(x.reshape(2, 5), 1),
}

# inputs: the row with NaN, the row without it (then the infinities decide), a row of -inf and finite values
ROWS = {
    "with_nan": ROW,
    "without_nan": [v if v == v else 0.25 for v in ROW],
    "minus_inf_half": [-INF] * 5 + [0.1, 0.2, 0.3, 0.4, 0.5],
}


def _run(T, name, row, dtype="float32"):
    x = T.tensor(row, dtype=getattr(T, dtype), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = OPS[name](T, x)
        out.backward(T.ones_like(out))
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("row", sorted(ROWS))
@pytest.mark.parametrize("name", sorted(OPS))
def test_values_and_gradients_as_torch(name, row, dtype):
    (ours, our_grad), (theirs, their_grad) = _run(mt, name, ROWS[row], dtype), _run(rt, name, ROWS[row], dtype)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7, equal_nan=True, err_msg="value")
    if dtype == "float64":
        # torch's float64 CPU kernels give another gradient at a NaN input than its float32 ones (hardtanh,
        # relu6, celu, softshrink, hardswish: 0 or NaN against 1); the float32 one is matched, so here the
        # elements that are not NaN are compared
        keep = ~np.isnan(np.asarray(ROWS[row]))
        our_grad, their_grad = our_grad[keep], their_grad[keep]
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-6, atol=1e-7, equal_nan=True, err_msg="gradient")


def test_max_over_a_dim_points_at_the_nan():
    x = [[1.0, NAN, 3.0, NAN], [2.0, 0.0, 5.0, 1.0]]
    for T in (mt, rt):
        values, indices = T.tensor(x).max(1)
        assert np.isnan(values.numpy()[0]) and values.numpy()[1] == 5.0
        assert indices.tolist() == [1, 2]


def test_large_tensors_keep_nan():
    """Beyond the small-tensor host path, on MindSpore's kernels."""
    x = mt.full((300, 300), NAN)
    assert np.isnan(mt.relu(x).numpy()).all()
    assert np.isnan(mt.clamp(x, 0, 1).numpy()).all()
    assert np.isnan(x.amax(1).numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_of_logits_holding_nan(dtype):
    """A row of logits holding NaN gives a NaN loss and NaN gradients, as torch's (MindSpore's fused float32
    log-softmax kernel answered inf and finite gradients); the other rows keep their values."""
    logits = [[0.0, NAN, 1.0], [0.5, 0.2, 0.1]]
    results = []
    for T in (mt, rt):
        x = T.tensor(logits, dtype=getattr(T, dtype), requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.tensor([0, 2]), reduction="none")
        loss.sum().backward()
        results.append((loss.detach().numpy(), x.grad.numpy()))
    (ours, our_grad), (theirs, their_grad) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-5, atol=1e-7, equal_nan=True)
    assert np.isnan(ours[0]) and np.isnan(our_grad[0]).all()
