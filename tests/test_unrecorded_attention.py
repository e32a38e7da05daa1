"""scaled_dot_product_attention outside autograd on inputs past the host's size limit runs the recorded path's
forward without its Function (`_lean_backward.attention_unrecorded`: dense q, k, v and the mask tiled to the
scores): real torch's values for every mask kind, drawn by hypothesis, and the path is the one taken."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from mindnlp_shim.torch.nn import _lean_backward as lean
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

MASKS = ("none", "bool_padding", "bool_with_dead_row", "float_per_head", "causal")


def _mask(kind, rng, batch, heads, length):
    if kind == "bool_padding":
        keep = np.arange(length)[None, :] < rng.integers(1, length + 1, (batch, 1))
        return keep[:, None, None, :]
    if kind == "bool_with_dead_row":
        keep = rng.random((batch, 1, length, length)) < 0.7
        keep[0, 0, 3] = False  # a query row that sees no key: torch gives zeros
        return keep
    if kind == "float_per_head":
        return rng.standard_normal((batch, heads, length, length)).astype(np.float32)
    return None


def _attention(T, qkv, mask, causal):
    packed = T.from_numpy(qkv)  # (batch, length, 3, heads, size): q, k, v as transposed views, as models give
    q, k, v = (packed[:, :, i].transpose(1, 2) for i in range(3))
    with T.no_grad():
        out = T.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=None if mask is None else T.from_numpy(mask), is_causal=causal)
    return out.numpy()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(MASKS), length=st.sampled_from([130, 160]), heads=st.sampled_from([2, 4]),
       seed=st.integers(0, 2 ** 16))
def test_values_are_torchs(kind, length, heads, seed):
    rng = np.random.default_rng(seed)
    batch, size = 2, 16  # scores of 2 x heads x length^2 > 2^17 elements: past the host's attention
    qkv = rng.standard_normal((batch, length, 3, heads, size)).astype(np.float32)
    mask = _mask(kind, rng, batch, heads, length)
    ours, theirs = (_attention(T, qkv, mask, kind == "causal") for T in (mt, rt))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)  # (sums over 130-160 keys in float32)


def test_this_path_serves_unrecorded_calls_only(monkeypatch):
    calls = []
    original = lean.attention_unrecorded
    monkeypatch.setattr(lean, "attention_unrecorded", lambda *args: calls.append(1) or original(*args))
    qkv = np.random.default_rng(0).standard_normal((2, 130, 3, 4, 16)).astype(np.float32)
    _attention(mt, qkv, _mask("bool_padding", np.random.default_rng(1), 2, 4, 130), False)
    assert calls == [1]
    q = mt.from_numpy(np.ascontiguousarray(qkv[:, :, 0])).transpose(1, 2).requires_grad_(True)
    mt.nn.functional.scaled_dot_product_attention(q, q, q).sum().backward()  # recorded: the Function instead
    assert calls == [1] and q.grad is not None
