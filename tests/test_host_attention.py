"""Small attention under autograd and with dropout runs on the host (nn/_lean_backward._HostAttention, float64
rounded once), in every mode: its values and gradients are real PyTorch's, the dropout mask is torch's draw for
the same seed, and the no_grad forward that torch.utils.checkpoint runs gives the recorded forward's bits."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from mindnlp_shim.torch.nn import _lean_backward
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(11)
Q_SHAPE, KEYS = (2, 3, 5, 8), 6


def _masks():
    bool_mask = np.tril(np.ones((5, KEYS), bool), 1)
    bool_mask[2] = False  # a query row that sees no key: zeros and zero gradients, as torch's CPU kernel
    return {
        "none": (None, False),
        "causal": (None, True),
        "bool with a dead row": (bool_mask, False),
        "float padding per batch": (np.where(_rng.random((2, 1, 1, KEYS)) < 0.3, -1e9, 0.0).astype(np.float32), False),
        "float per head": (_rng.standard_normal((2, 3, 5, KEYS)).astype(np.float32), False),
    }


MASKS = _masks()


def _run(T, arrays, mask, is_causal, dropout_p, grad_out):
    q, k, v = (T.from_numpy(a.copy()).requires_grad_(True) for a in arrays)
    attn_mask = None if mask is None else T.from_numpy(mask.copy())
    T.manual_seed(5)
    out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p,
                                                       is_causal=is_causal)
    out.backward(T.from_numpy(grad_out))
    return [t.detach().numpy() for t in (out, q.grad, k.grad, v.grad)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dropout_p", [0.0, 0.25])
@pytest.mark.parametrize("mask_name", list(MASKS))
def test_small_attention_values_and_gradients_are_torchs(mask_name, dropout_p, dtype, monkeypatch):
    mask, is_causal = MASKS[mask_name]
    if mask is not None and mask.dtype != np.bool_:
        mask = mask.astype(dtype)
    arrays = [_rng.standard_normal(Q_SHAPE).astype(dtype)] + \
             [_rng.standard_normal(Q_SHAPE[:2] + (KEYS, 8)).astype(dtype) for _ in range(2)]
    grad_out = _rng.standard_normal(Q_SHAPE).astype(dtype)
    calls = []
    original = _lean_backward._HostAttention.apply
    monkeypatch.setattr(_lean_backward._HostAttention, "apply", lambda *args: calls.append(1) or original(*args))
    ours = _run(mt, arrays, mask, is_causal, dropout_p, grad_out)
    theirs = _run(rt, arrays, mask, is_causal, dropout_p, grad_out)
    assert calls == [1]
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_no_grad_forward_gives_the_recorded_forwards_bits():
    # checkpoint runs the region under no_grad first, then again recorded: both take the host path
    arrays = [_rng.standard_normal(Q_SHAPE).astype(np.float32)] + \
             [_rng.standard_normal(Q_SHAPE[:2] + (KEYS, 8)).astype(np.float32) for _ in range(2)]
    mask = mt.from_numpy(MASKS["float padding per batch"][0])
    outs = []
    for recorded in (True, False):
        q, k, v = (mt.from_numpy(a.copy()).requires_grad_(recorded) for a in arrays)
        for dropout_p in (0.0, 0.25):
            mt.manual_seed(3)
            with mt.set_grad_enabled(recorded):
                outs.append(mt.nn.functional.scaled_dot_product_attention(q, k, v, mask, dropout_p=dropout_p).detach().numpy())
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[3])
