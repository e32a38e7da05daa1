"""Conv1d/Conv2d with padding_mode 'reflect', 'replicate' and 'circular' (padding as an int, a tuple or 'same'):
outputs and gradients are real torch's, from the same weights; an unknown mode is refused with torch's error."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

CASES = [
    ("Conv1d", (2, 3, 9), dict(kernel_size=3, padding=2)),
    ("Conv1d", (2, 3, 9), dict(kernel_size=4, padding="same", dilation=2)),
    ("Conv1d", (2, 4, 7), dict(kernel_size=3, padding=1, stride=2, groups=2)),
    ("Conv2d", (2, 3, 6, 7), dict(kernel_size=3, padding=1)),
    ("Conv2d", (1, 3, 6, 7), dict(kernel_size=(2, 3), padding=(1, 2), dilation=(1, 2))),
    ("Conv2d", (1, 2, 5, 6), dict(kernel_size=(2, 4), padding="same")),
    ("Conv2d", (1, 2, 5, 6), dict(kernel_size=3, padding="valid")),
]


def _run(T, name, shape, kwargs, mode, x0, weight, bias):
    conv = getattr(T.nn, name)(shape[1], 4, padding_mode=mode, **kwargs)
    with T.no_grad():
        conv.weight.copy_(T.from_numpy(weight))
        conv.bias.copy_(T.from_numpy(bias))
    x = T.from_numpy(x0.copy()).requires_grad_(True)
    y = conv(x)
    (y * y).sum().backward()
    return y.detach().numpy(), x.grad.numpy(), conv.weight.grad.numpy(), conv.bias.grad.numpy()


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("name, shape, kwargs", CASES)
def test_padding_modes_match_torch(name, shape, kwargs, mode):
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(shape).astype(np.float32)
    probe = getattr(rt.nn, name)(shape[1], 4, **kwargs)
    weight = rng.standard_normal(tuple(probe.weight.shape)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    ours = _run(mt, name, shape, kwargs, mode, x0, weight, bias)
    theirs = _run(rt, name, shape, kwargs, mode, x0, weight, bias)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)


def test_unknown_padding_mode_is_refused_as_torch_does():
    with pytest.raises(ValueError) as ours:
        mt.nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError) as theirs:
        rt.nn.Conv2d(1, 1, 3, padding_mode="mirror")
    # (torch names the valid modes as a set, whose order changes from process to process)
    for message in (str(ours.value), str(theirs.value)):
        assert message.startswith("padding_mode must be one of {") and "'circular'" in message
        assert message.endswith("}, but got padding_mode='mirror'")
