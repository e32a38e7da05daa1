"""torch.nn.MultiheadAttention and F.multi_head_attention_forward against real PyTorch, from identical weights:
outputs, attention weights and gradients of sum(out * w) with respect to the inputs and every parameter, over
self/cross attention, separate key/value sizes, bias_k/bias_v, zero attention, boolean and float masks, key
padding, batch_first and unbatched inputs."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    (
      'torch.nn.MultiheadAttention',
    ): ['test_multihead_attention_matches_torch'],
    ('torch.nn.functional.multi_head_attention_forward',): ['test_functional_form_matches_torch'],
}


TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}
_rng = np.random.default_rng(12)
L, S, N, E = 4, 5, 2, 8

CONFIGS = {
    "self": (dict(embed_dim=E, num_heads=2), "self", {}),
    "cross": (dict(embed_dim=E, num_heads=4), "cross", {}),
    "kdim_vdim": (dict(embed_dim=E, num_heads=2, kdim=6, vdim=3), "cross", {}),
    "bias_kv_zero_attn": (dict(embed_dim=E, num_heads=2, add_bias_kv=True, add_zero_attn=True), "cross",
                          {"key_padding_mask": "bool", "attn_mask": "float"}),
    "no_bias_batch_first": (dict(embed_dim=E, num_heads=2, bias=False, batch_first=True), "self",
                            {"attn_mask": "bool"}),
    "per_head_weights": (dict(embed_dim=E, num_heads=2), "kv", {"average_attn_weights": False,
                                                                 "key_padding_mask": "float"}),
    "no_weights_3d_mask": (dict(embed_dim=E, num_heads=2), "cross", {"need_weights": False, "attn_mask": "3d"}),
    "unbatched": (dict(embed_dim=E, num_heads=2), "unbatched", {"key_padding_mask": "bool"}),
}


def _masks(T, options, dtype, batch_first, unbatched=False):
    kwargs = {}
    for key, kind in options.items():
        if key == "key_padding_mask":
            mask = np.zeros((N, S), bool)
            mask[:, -1] = True
            mask[0, 1] = True
            mask = mask[0] if unbatched else mask
            kwargs[key] = T.tensor(mask if kind == "bool" else np.where(mask, -1e4, 0.0).astype(dtype))
        elif key == "attn_mask":
            if kind == "3d":
                kwargs[key] = T.tensor(_rng_fixed((N * 2, L, S)).astype(dtype))  # (N * num_heads, L, S)
            else:
                mask = np.triu(np.ones((L, L if batch_first else S), bool), 1)
                kwargs[key] = T.tensor(mask if kind == "bool" else np.where(mask, -2.5, 0.3).astype(dtype))
        else:
            kwargs[key] = kind
    return kwargs


def _rng_fixed(shape):
    return np.random.default_rng(99).standard_normal(shape)


def _inputs(config, kwargs):
    kind = config[1]
    kdim, vdim = kwargs.get("kdim", E), kwargs.get("vdim", E)
    q = _rng_fixed((L, N, E))
    if kind == "self":
        return [q]
    if kind == "unbatched":
        return [q[:, 0], _rng_fixed((S, E))[:, :E] * 0.5]
    k = np.random.default_rng(7).standard_normal((S, N, kdim))
    v = np.random.default_rng(8).standard_normal((S, N, vdim))
    return [q, k] if kind == "kv" else [q, k, v]


def _run(T, name, dtype):
    kwargs, kind, options = CONFIGS[name]
    module = T.nn.MultiheadAttention(**kwargs, dtype=getattr(T, np.dtype(dtype).name))
    params = dict(module.named_parameters())
    weight_rng = np.random.default_rng(5)
    with T.no_grad():
        for pname in sorted(params):
            params[pname].copy_(T.tensor(weight_rng.standard_normal(tuple(params[pname].shape)).astype(dtype) * 0.4))
    arrays = _inputs(CONFIGS[name], kwargs)
    if kwargs.get("batch_first"):
        arrays = [a.transpose(1, 0, 2) for a in arrays]
    leaves = [T.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    if kind == "self":
        args = (leaves[0], leaves[0], leaves[0])
    elif kind in ("kv", "unbatched"):
        args = (leaves[0], leaves[1], leaves[1])
    else:
        args = tuple(leaves)
    out, weights = module(*args, **_masks(T, options, dtype, kwargs.get("batch_first", False), kind == "unbatched"))
    total = (out.double() * T.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))).sum()
    if weights is not None:
        total = total + (weights.double() * T.tensor(np.random.default_rng(2).standard_normal(
            tuple(weights.shape)))).sum()
    total.backward()
    grads = [l.grad.numpy() for l in leaves] + [params[p].grad.numpy() for p in sorted(params)]
    return out.detach().numpy(), None if weights is None else weights.detach().numpy(), grads, sorted(params)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_multihead_attention_matches_torch(name, dtype):
    ours, theirs = _run(mt, name, dtype), _run(rt, name, dtype)
    rtol, atol = TOL[np.dtype(dtype).name]
    assert ours[3] == theirs[3]  # parameter names
    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=atol)
    assert (ours[1] is None) == (theirs[1] is None)
    if theirs[1] is not None:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=atol)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def test_functional_form_matches_torch():
    """F.multi_head_attention_forward called directly with separate projection weights and static keys."""
    rng = np.random.default_rng(21)
    arrays = {k: rng.standard_normal(shape) * 0.4 for k, shape in dict(
        q=(L, N, E), k=(S, N, E), v=(S, N, E), w_in=(3 * E, E), b_in=(3 * E,), w_out=(E, E), b_out=(E,),
        wq=(E, E), wk=(E, E), wv=(E, E), static_k=(N * 2, S, E // 2), static_v=(N * 2, S, E // 2)).items()}

    def run(T, separate):
        t = {k: T.tensor(v, requires_grad=True) for k, v in arrays.items()}
        extra = dict(use_separate_proj_weight=True, q_proj_weight=t["wq"], k_proj_weight=t["wk"],
                     v_proj_weight=t["wv"]) if separate else dict(static_k=t["static_k"], static_v=t["static_v"])
        out, weights = T.nn.functional.multi_head_attention_forward(
            t["q"], t["k"], t["v"], E, 2, t["w_in"], t["b_in"], None, None, False, 0.0, t["w_out"], t["b_out"],
            training=True, **extra)
        (out.sum() + (weights * weights).sum()).backward()
        return [out.detach().numpy(), weights.detach().numpy()] + [
            t[k].grad.numpy() for k in sorted(t) if t[k].grad is not None]

    for separate in (True, False):
        ours, theirs = run(mt, separate), run(rt, separate)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_state_dict_layout_matches_torch():
    for kwargs in ({"embed_dim": 8, "num_heads": 2}, {"embed_dim": 8, "num_heads": 2, "kdim": 3, "vdim": 5,
                                                     "add_bias_kv": True}):
        ours, theirs = mt.nn.MultiheadAttention(**kwargs), rt.nn.MultiheadAttention(**kwargs)
        assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == \
            {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
        assert float(ours.in_proj_bias.abs().sum()) == 0.0


def test_errors_match_torch():
    for T in (mt, rt):
        with pytest.raises(AssertionError):
            T.nn.MultiheadAttention(10, 3)
        m = T.nn.MultiheadAttention(8, 2)
        x = T.zeros(4, 2, 8)
        with pytest.raises(RuntimeError):
            m(x, x, x, attn_mask=T.zeros(3, 3))
        with pytest.raises(RuntimeError):
            m(x, x, x, is_causal=True)
