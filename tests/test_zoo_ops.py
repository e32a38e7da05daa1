"""Ops and modules the model zoo needed, each against real PyTorch in-process (the shim is reached as
mindnlp_shim.torch without the import hook): values, gradients, parameter and state_dict layout."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(11)


def _grads_of(T, module, x):
    """Output, input gradient and parameter gradients of sum(out * w) for a fixed w."""
    x = T.tensor(x, requires_grad=True)
    out = module(x)
    w = np.random.default_rng(5).standard_normal(tuple(out.shape)).astype(np.float32)
    (out * T.tensor(w)).sum().backward()
    return (out.detach().numpy(), x.grad.numpy(),
            {name: p.grad.numpy() for name, p in module.named_parameters()})


def _copy_params(source, target, T):
    with T.no_grad():
        for (name, p), (_, q) in zip(source.named_parameters(), target.named_parameters()):
            q.copy_(T.tensor(p.detach().numpy()))


# ModernBERT builds its norms as LayerNorm(hidden, bias=False)
def test_layer_norm_without_bias_matches_torch():
    ours, theirs = mt.nn.LayerNorm(6, eps=1e-5, bias=False), rt.nn.LayerNorm(6, eps=1e-5, bias=False)
    assert ours.bias is None and theirs.bias is None
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    assert [n for n, _ in ours.named_parameters()] == ["weight"]
    theirs.weight.data.uniform_(0.5, 1.5)
    _copy_params(theirs, ours, mt)
    x = _rng.standard_normal((3, 4, 6)).astype(np.float32)
    for a, b in zip(_grads_of(mt, ours, x)[:2], _grads_of(rt, theirs, x)[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_grads_of(mt, ours, x)[2]["weight"], _grads_of(rt, theirs, x)[2]["weight"],
                               rtol=1e-5, atol=1e-5)


# Swin pools its last hidden states with AdaptiveAvgPool1d(1); ConvNeXt-like heads use the 2d one
@pytest.mark.parametrize("name,shape,size", [("AdaptiveAvgPool1d", (2, 5, 7), 1), ("AdaptiveAvgPool1d", (2, 3, 7), 3),
                                              ("AdaptiveAvgPool1d", (3, 8), 3),
                                              ("AdaptiveAvgPool2d", (2, 3, 5, 6), (1, 1)),
                                              ("AdaptiveAvgPool2d", (2, 3, 5, 6), (2, 3))])
def test_adaptive_avg_pool_modules_match_torch(name, shape, size):
    x = _rng.standard_normal(shape).astype(np.float32)
    ours, theirs = getattr(mt.nn, name)(size), getattr(rt.nn, name)(size)
    assert repr(ours) == repr(theirs)
    for a, b in zip(_grads_of(mt, ours, x)[:2], _grads_of(rt, theirs, x)[:2]):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# WhisperFeatureExtractor(..., return_tensors="pt") computes its log-mel features with torch.hann_window,
# torch.stft(return_complex=True) and the magnitude of the complex result
@pytest.mark.parametrize("length,periodic", [(400, True), (7, False), (1, True), (0, True)])
def test_hann_window_matches_torch(length, periodic):
    ours, theirs = mt.hann_window(length, periodic=periodic), rt.hann_window(length, periodic=periodic)
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=1e-7)
    assert str(mt.hann_window(8, dtype=mt.float64).dtype) == "torch.float64"


def test_abs_of_complex_is_its_real_magnitude():
    z = (_rng.standard_normal((3, 4)) + 1j * _rng.standard_normal((3, 4))).astype(np.complex64)
    ours, theirs = mt.tensor(z)[..., :-1].abs(), rt.tensor(z)[..., :-1].abs()
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
    np.testing.assert_allclose((ours ** 2).numpy(), (theirs ** 2).numpy(), rtol=1e-6)


STFT_CASES = [
    dict(n_fft=16, hop_length=4),  # the defaults otherwise: centred, reflect padding, a rectangular window
    dict(n_fft=16, hop_length=5, window="hann", pad_mode="constant"),
    dict(n_fft=16, hop_length=3, win_length=10, window="hann", normalized=True, pad_mode="replicate"),
    dict(n_fft=12, hop_length=6, window="hann", center=False, onesided=False),
    dict(n_fft=16, window="hann", pad_mode="circular"),
]


@pytest.mark.parametrize("case", range(len(STFT_CASES)))
@pytest.mark.parametrize("shape", [(50,), (2, 37)])
def test_stft_matches_torch(case, shape):
    kwargs = dict(STFT_CASES[case])
    x = _rng.standard_normal(shape).astype(np.float32)
    results = []
    for T in (mt, rt):
        kw = dict(kwargs)
        if kw.pop("window", None):
            kw["window"] = T.hann_window(kw.get("win_length", kw["n_fft"]))
        spec = T.stft(T.tensor(x), return_complex=True, **kw)
        results.append((str(spec.dtype), tuple(spec.shape), spec.real.numpy(), spec.imag.numpy(),
                        spec.abs().numpy()))
    ours, theirs = results
    assert ours[:2] == theirs[:2] and theirs[0] == "torch.complex64"
    for a, b in zip(ours[2:], theirs[2:]):
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-5 * np.abs(b).max())


def test_stft_real_output_carries_gradients_like_torch():
    x = _rng.standard_normal((2, 40)).astype(np.float32)
    w = np.random.default_rng(3).standard_normal((2, 9, 11, 2)).astype(np.float32)
    grads = []
    for T in (mt, rt):
        leaf = T.tensor(x, requires_grad=True)
        spec = T.stft(leaf, 16, 4, window=T.hann_window(16), return_complex=False)
        assert tuple(spec.shape) == (2, 9, 11, 2)
        (spec * T.tensor(w)).sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)


def test_stft_refuses_what_it_cannot_answer():
    x = mt.tensor(np.ones(32, np.float32))
    with pytest.raises(RuntimeError, match="return_complex"):
        mt.stft(x, 8)
    with pytest.raises(NotImplementedError, match="complex"):
        mt.stft(mt.tensor(np.ones(32, np.complex64)), 8, return_complex=True)
    with pytest.raises(NotImplementedError, match="gradients"):
        mt.stft(mt.tensor(np.ones(32, np.float32), requires_grad=True), 8, return_complex=True)
