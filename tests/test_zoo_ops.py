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
    """(the modules call nn.functional's adaptive_avg_pool1d/2d: this also checks those)"""
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
    with mt.no_grad():  # no graph, nothing to refuse
        assert tuple(mt.stft(mt.tensor(np.ones(32, np.float32), requires_grad=True), 8,
                             return_complex=True).shape) == (5, 17)


# Wav2Vec2's positional convolution: parametrizations.weight_norm(conv, name="weight", dim=2)
def _weight_norm_conv(T, form):
    T.manual_seed(0)
    conv = T.nn.Conv1d(4, 4, 3, padding=1, groups=2)
    with T.no_grad():
        conv.weight.copy_(T.tensor(np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32)))
        conv.bias.copy_(T.tensor(np.linspace(-1, 1, 4).astype(np.float32)))
    if form == "parametrization":
        return T.nn.utils.parametrizations.weight_norm(conv, name="weight", dim=2)
    return T.nn.utils.weight_norm(conv, name="weight", dim=2)


@pytest.mark.parametrize("form", ["parametrization", "hook"])
def test_weight_norm_matches_torch(form):
    ours, theirs = _weight_norm_conv(mt, form), _weight_norm_conv(rt, form)
    assert type(ours).__name__ == type(theirs).__name__
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), rtol=1e-6, atol=1e-7, err_msg=key)
    x = _rng.standard_normal((2, 4, 5)).astype(np.float32)
    a, b = _grads_of(mt, ours, x), _grads_of(rt, theirs, x)
    for u, v in zip(a[:2], b[:2]):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    assert sorted(a[2]) == sorted(b[2])
    for name in b[2]:
        np.testing.assert_allclose(a[2][name], b[2][name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_parametrized_weight_is_recomputed_and_assignable():
    ours, theirs = _weight_norm_conv(mt, "parametrization"), _weight_norm_conv(rt, "parametrization")
    for T, conv in ((mt, ours), (rt, theirs)):
        with T.no_grad():
            conv.parametrizations.weight.original1.mul_(2.0)  # v doubled: the weight is unchanged (g / |v|)
            conv.weight = conv.weight * 3.0  # the setter goes through right_inverse: g and v from the value
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.parametrizations.weight.original0.detach().numpy(),
                               theirs.parametrizations.weight.original0.detach().numpy(), rtol=1e-5)
    assert mt.nn.utils.parametrize.is_parametrized(ours, "weight")
    mt.nn.utils.parametrize.remove_parametrizations(ours, "weight")
    rt.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    assert type(ours).__name__ == "Conv1d" and list(ours.state_dict()) == list(theirs.state_dict())
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-5)


# Wav2Vec2ForCTC: log_softmax over the vocabulary, transposed to (T, N, C), targets concatenated in 1-D
CTC_T, CTC_N, CTC_C = 12, 3, 6


def _ctc(T, reduction, targets_layout, zero_infinity=False, input_lengths=(12, 9, 3)):
    rng = np.random.default_rng(4)
    logits = T.tensor(rng.standard_normal((CTC_T, CTC_N, CTC_C)).astype(np.float32), requires_grad=True)
    padded = rng.integers(1, CTC_C, (CTC_N, 5)).astype(np.int64)
    target_lengths = [5, 3, 4]  # the third cannot fit in 3 steps: an infinite loss unless zero_infinity
    targets = padded if targets_layout == "padded" else np.concatenate([padded[i, :n] for i, n in
                                                                        enumerate(target_lengths)])
    loss = T.nn.functional.ctc_loss(logits.log_softmax(-1), T.tensor(targets), T.tensor(list(input_lengths)),
                                    T.tensor(target_lengths), blank=0, reduction=reduction,
                                    zero_infinity=zero_infinity)
    finite = loss if reduction == "none" else loss.reshape(1)
    if np.isfinite(finite.detach().numpy()).all():
        loss.sum().backward()
        return loss.detach().numpy(), logits.grad.numpy()
    return loss.detach().numpy(), None


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_ctc_loss_matches_torch(reduction, layout):
    for zero_infinity in (True, False):
        (ours, ours_grad), (theirs, theirs_grad) = (_ctc(T, reduction, layout, zero_infinity) for T in (mt, rt))
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
        assert (ours_grad is None) == (theirs_grad is None)
        if theirs_grad is not None:
            np.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-5, atol=1e-6)
    assert np.isinf(_ctc(mt, "none", layout)[0][2])  # an impossible alignment is infinite, as in torch


def test_ctc_loss_module_and_unbatched_input_match_torch():
    rng = np.random.default_rng(8)
    log_probs = rng.standard_normal((7, 5)).astype(np.float32)
    values = []
    for T in (mt, rt):
        criterion = T.nn.CTCLoss(blank=4, reduction="sum")
        values.append(criterion(T.tensor(log_probs).log_softmax(-1), T.tensor(np.array([1, 2, 2, 0])), (7,),
                                (4,)).item())
    assert values[0] == pytest.approx(values[1], rel=1e-5)


def test_cudnn_flags_set_and_restore_like_torch():
    for T in (mt, rt):
        before = (T.backends.cudnn.enabled, T.backends.cudnn.deterministic)
        with T.backends.cudnn.flags(enabled=False, deterministic=True):
            assert T.backends.cudnn.enabled is False and T.backends.cudnn.deterministic is True
        assert (T.backends.cudnn.enabled, T.backends.cudnn.deterministic) == before


# Wav2Vec2 with an attention mask zeroes padded frames in place on a linear layer's output
def test_in_place_write_into_a_linear_output_gives_torch_gradients():
    x_np = _rng.standard_normal((2, 5, 8)).astype(np.float32)
    w_np, b_np = _rng.standard_normal((8, 8)).astype(np.float32), _rng.standard_normal(8).astype(np.float32)
    mask_np = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], bool)
    results = []
    for T in (mt, rt):
        x = T.tensor(x_np, requires_grad=True)
        linear = T.nn.Linear(8, 8)
        with T.no_grad():
            linear.weight.copy_(T.tensor(w_np))
            linear.bias.copy_(T.tensor(b_np))
        hidden = linear(x)
        hidden[~T.tensor(mask_np)] = 0
        (hidden * hidden).sum().backward()
        results.append([t.detach().numpy() for t in (hidden, x.grad, linear.weight.grad, linear.bias.grad)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.all(results[0][1][1, 3:] == 0) and np.all(results[0][1][0] != 0)


class _Doubled:
    """A parametrization (as an nn.Module of either side): the attribute is twice its original."""

    @staticmethod
    def make(T):
        class Doubled(T.nn.Module):
            def forward(self, x):
                return x * 2

            def right_inverse(self, x):
                return x / 2

        return Doubled()


def test_parametrized_buffer_keeps_a_buffer_original_like_torch():
    layouts = []
    for T in (mt, rt):
        module = T.nn.Module()
        module.register_buffer("scale", T.tensor(np.array([1.0, 3.0], np.float32)))
        T.nn.utils.parametrize.register_parametrization(module, "scale", _Doubled.make(T))
        layouts.append((sorted(dict(module.named_buffers())), sorted(dict(module.named_parameters())),
                        module.scale.numpy().tolist(), module.parametrizations.scale.original.numpy().tolist()))
    assert layouts[0] == layouts[1]


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.nn.AdaptiveAvgPool1d", "torch.nn.AdaptiveAvgPool2d"): "test_adaptive_avg_pool_modules_match_torch",
    "torch.nn.LayerNorm": "test_layer_norm_without_bias_matches_torch",
    "torch.hann_window": "test_hann_window_matches_torch",
    "torch.stft": ["test_stft_matches_torch", "test_stft_real_output_carries_gradients_like_torch"],
    "torch.nn.functional.ctc_loss": "test_ctc_loss_matches_torch",
    "torch.nn.CTCLoss": "test_ctc_loss_module_and_unbatched_input_match_torch",
}
