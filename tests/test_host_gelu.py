"""The exact GELU of float32 CPU tensors runs on the host (_ops/host_gelu, nn/_lean_backward._HostGelu) in every
mode: its values and gradients are real PyTorch's within the error of the erf approximation both use, for inputs
drawn by hypothesis (special values, sizes across the chunk boundary), and the path is the one taken."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindnlp_shim.torch as mt
from mindnlp_shim.torch._ops import host_gelu
from mindnlp_shim.torch.nn import _lean_backward
from conftest import SUBPROCESS_FLAG, real_torch, saved_tensors_of, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# torch's float32 GELU evaluates erf with an approximation of absolute error 1.5e-7 (so does the host), and its
# scalar tail loop with the exact erf: the two differ by up to |x| * 1.5e-7 / 2 plus float32 rounding
ATOL, RTOL = 2e-6, 2e-6
_SPECIAL = [float(np.float32(v)) for v in (0.0, -0.0, 1e-30, -1e-30, 1e-3, -1e-3, 0.5, -0.5, 3.0, -3.0, 5.5, -5.5,
                                           9.0, -9.0, 20.0, -20.0, 3e38, -3e38, float("nan"), float("-inf"))]

_finite = st.floats(-12, 12, width=32)
_values = st.one_of(_finite, _finite, _finite, st.sampled_from(_SPECIAL))


def _gelu_and_grad(T, x0, g0):
    x = T.from_numpy(x0.copy()).requires_grad_(True)
    y = T.nn.functional.gelu(x)
    y.backward(T.from_numpy(g0))
    with T.no_grad():
        plain = T.nn.functional.gelu(T.from_numpy(x0.copy()))
    return y.detach().numpy(), x.grad.numpy(), plain.numpy()


def _assert_close(ours, theirs):
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, equal_nan=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hnp.arrays(np.float32, st.sampled_from([(), (7,), (3, 5), (2, 40, 5)]), elements=_values))
def test_gelu_values_and_gradients_are_torchs(x0):
    g0 = np.linspace(-2, 2, x0.size, dtype=np.float32).reshape(x0.shape)
    for ours, theirs in zip(_gelu_and_grad(mt, x0, g0), _gelu_and_grad(rt, x0, g0)):
        _assert_close(ours, theirs)


@pytest.mark.parametrize("shape", [(), (len(_SPECIAL),)])
def test_gelu_of_every_special_value_is_torchs(shape):
    """Each special value, always (hypothesis draws them only now and then): near the largest float32 the
    product must not overflow (gelu(3e38) is 3e38, not inf)."""
    for values in ([[v] for v in _SPECIAL] if shape == () else [_SPECIAL]):
        x0 = np.array(values[0] if shape == () else values, np.float32).reshape(shape)
        g0 = np.ones(shape, np.float32)
        for ours, theirs in zip(_gelu_and_grad(mt, x0, g0), _gelu_and_grad(rt, x0, g0)):
            _assert_close(ours, theirs)


def test_gelu_across_chunks_and_of_a_strided_view_is_torchs(monkeypatch):
    monkeypatch.setattr(host_gelu, "CHUNK", 64)
    x0 = np.random.default_rng(3).standard_normal((9, 50)).astype(np.float32) * 4
    g0 = np.random.default_rng(4).standard_normal((9, 50)).astype(np.float32)
    for ours, theirs in zip(_gelu_and_grad(mt, x0, g0), _gelu_and_grad(rt, x0, g0)):
        _assert_close(ours, theirs)
    strided = mt.from_numpy(x0).t()[::2]
    _assert_close(mt.nn.functional.gelu(strided).numpy(), rt.nn.functional.gelu(rt.from_numpy(x0).t()[::2]).numpy())


def test_gelu_erf_approximation_is_within_its_bound_of_the_exact_value():
    x = np.linspace(-12, 12, 100001, dtype=np.float32)
    y, derivative = host_gelu.gelu(x, with_derivative=True)
    exact = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64)])
    exact_derivative = np.array([0.5 * math.erfc(-v / math.sqrt(2)) + v * math.exp(-v * v / 2) / math.sqrt(2 * math.pi)
                                 for v in x.astype(np.float64)])
    # erf's 1.5e-7 halves in Phi, float32 evaluation of the formula adds about as much (as in torch's); then
    # float32 rounding of x * Phi(x)
    assert np.all(np.abs(y - exact) <= np.abs(x) * 3e-7 + np.abs(exact) * 1.2e-7 + 1e-30)
    assert np.all(np.abs(derivative - exact_derivative) <= 4e-7)


@pytest.mark.parametrize("grad_mode", [True, False])
def test_float32_gelu_takes_the_host_and_float64_keeps_the_exact_erf(grad_mode, monkeypatch):
    calls = []
    original = host_gelu.gelu
    monkeypatch.setattr(host_gelu, "gelu", lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
    x32 = mt.randn(4, 6, requires_grad=grad_mode)
    mt.nn.functional.gelu(x32)
    assert calls == [1]
    x64 = mt.randn(4, 6, dtype=mt.float64, requires_grad=grad_mode)
    x64_values = x64.detach().numpy().copy()
    y64 = mt.nn.functional.gelu(x64)
    assert calls == [1]
    _assert_close(y64.detach().numpy(), rt.nn.functional.gelu(rt.from_numpy(x64_values)).numpy())


def test_half_gelu_rounds_the_float32_result_as_torch():
    x0 = np.random.default_rng(5).standard_normal(300).astype(np.float32) * 3
    for dtype in ("float16", "bfloat16"):
        ours = mt.nn.functional.gelu(mt.from_numpy(x0).to(getattr(mt, dtype))).float().numpy()
        theirs = rt.nn.functional.gelu(rt.from_numpy(x0).to(getattr(rt, dtype))).float().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-2, atol=1e-3)


def test_checkpointed_gelu_gives_the_plain_gradients():
    # checkpoint runs the region under no_grad and recomputes it under grad mode: both take the host
    from mindnlp_shim.torch.utils.checkpoint import checkpoint

    mt.manual_seed(0)
    linear = mt.nn.Linear(16, 16)
    x = mt.randn(3, 16)

    def run(checkpointed):
        for p in linear.parameters():
            p.grad = None
        region = lambda t: mt.nn.functional.gelu(linear(t))  # noqa: E731
        h = checkpoint(region, x, use_reentrant=False) if checkpointed else region(x)
        (h * h).sum().backward()
        return [p.grad.numpy().copy() for p in linear.parameters()]

    for plain, checkpointed in zip(run(False), run(True)):
        np.testing.assert_array_equal(plain, checkpointed)


def test_gelu_output_written_in_place_leaves_its_gradient_alone():
    x0 = np.random.default_rng(6).standard_normal(10).astype(np.float32)
    results = []
    for T in (mt, rt):
        x = T.from_numpy(x0.copy()).requires_grad_(True)
        y = T.nn.functional.gelu(x)
        z = y * 2  # the output is read, then written: torch's gradient does not depend on it
        y.detach().zero_()
        z.sum().backward()
        results.append(x.grad.numpy())
    _assert_close(*results)


def test_gelu_second_derivative_is_refused_clearly():
    # (it keeps only its derivative, not x: the refusal comes with the create_graph backward)
    x = mt.randn(5, requires_grad=True)
    with pytest.raises(RuntimeError, match="differentiate twice"):
        mt.autograd.grad(mt.nn.functional.gelu(x).sum(), x, create_graph=True)


def test_gelu_keeps_one_saved_tensor():
    x = mt.randn(8, requires_grad=True)
    y = mt.nn.functional.gelu(x)
    assert "HostGelu" in y.grad_fn.name()
    assert len(saved_tensors_of(y.grad_fn)) == 1
    assert _lean_backward._HostGelu is not None
