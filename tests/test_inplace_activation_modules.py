"""Activation modules built with inplace=True write into their input and return it, as torch's do (code that
keeps using its input after `self.act(x)` sees the activated values); values and gradients are torch's."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

MODULES = ["ReLU", "ReLU6", "SELU", "SiLU", "Mish", "Hardsigmoid", "Hardswish", "ELU", "CELU", "LeakyReLU",
           "Hardtanh", "Threshold"]
_ARGS = {"Threshold": (0.1, -2.0)}
X0 = np.array([[-7.0, -1.5, -0.2, 0.0], [0.3, 1.0, 2.5, 8.0]], np.float32)


def _apply(T, name):
    module = getattr(T.nn, name)(*_ARGS.get(name, ()), inplace=True)
    leaf = T.from_numpy(X0.copy()).requires_grad_(True)
    x = leaf * 1.0  # (a non-leaf: torch refuses in-place writes into a leaf that requires grad)
    y = module(x)
    returned_input = y is x
    (y * T.arange(8.0).reshape(2, 4)).sum().backward()
    plain = T.from_numpy(X0.copy())
    module(plain)
    return returned_input, x.detach().numpy(), leaf.grad.numpy(), plain.numpy()


@pytest.mark.parametrize("name", MODULES)
def test_inplace_activation_module_writes_its_input(name):
    ours, theirs = _apply(mt, name), _apply(rt, name)
    assert ours[0] and theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert not np.allclose(ours[3], X0)  # the plain input itself holds the activated values
