"""LayerNorm's input gradient uses the LayerNorm's own weight, also in a second model trained in the same process.

Measured on MindSpore 2.10: with the leaf weight passed straight to the LayerNorm primitive, a fresh LayerNorm
whose weight equals an earlier one that an optimizer updated in place while a detached alias (a state_dict
entry) was alive got its input gradient computed from the earlier, updated weight. The Trainer shows it as a
second run in one process getting other gradients than the first (tests/test_trainer_features.py).
"""
import os

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402

X = np.random.RandomState(0).normal(size=(3, 4)).astype(np.float32)
SCALE = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)


def _input_grad(layer_norm):
    x = torch.tensor(X, requires_grad=True)
    (layer_norm(x) * torch.tensor(SCALE)).sum().backward()
    return x.grad.numpy().copy()


def test_fresh_layer_norm_after_an_updated_one_gets_its_own_gradient():
    reference = _input_grad(torch.nn.LayerNorm(4))
    for _ in range(3):
        layer_norm = torch.nn.LayerNorm(4)
        state = layer_norm.state_dict()  # detached aliases of the weights stay alive across the update
        np.testing.assert_array_equal(_input_grad(layer_norm), reference)
        torch.optim.SGD(layer_norm.parameters(), lr=0.5).step()
        assert float(state["weight"].numpy()[0]) != 1.0  # the alias saw the in-place update, as in torch


def test_layer_norm_gradient_matches_the_closed_form_after_updates():
    layer_norm = torch.nn.LayerNorm(4)
    kept = layer_norm.state_dict()
    for step in range(3):
        gamma = layer_norm.weight.detach().numpy().copy()
        got = _input_grad(layer_norm)
        # d/dx of sum(scale * (gamma * xhat + beta)) for xhat = (x - mean) / sqrt(var + eps), per row
        mean = X.mean(-1, keepdims=True)
        rstd = 1.0 / np.sqrt(X.var(-1, keepdims=True) + 1e-5)
        xhat = (X - mean) * rstd
        g = SCALE * gamma
        expected = rstd * (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True))
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
        torch.optim.SGD(layer_norm.parameters(), lr=0.5).step()
        layer_norm.zero_grad()
    assert kept is not None
