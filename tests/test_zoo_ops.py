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
