"""torch.utils.swap_tensors (peft's hotswapping grows an adapter's rank with it) and
nn.MultiheadAttention.merge_masks (peft's LoRA wrapper of MultiheadAttention forwards to it), compared with real
torch. Generated pairs of leaf tensors of different shapes, dtypes, requires_grad and .grad are swapped: each
object keeps its identity and takes the other's values, shape, dtype, requires_grad, grad and attributes, views
of one storage then alias the other tensor, and a module whose parameter was swapped for a larger one computes and
back-propagates with it. The same storage change through `p.data = larger` no longer breaks a Linear's backward."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)
_spec = st.fixed_dictionaries({"shape": _shapes, "dtype": st.sampled_from(["float32", "float64", "int64"]),
                               "requires_grad": st.booleans(), "grad": st.booleans(), "tag": st.booleans()})


def _make(T, spec, offset):
    n = int(np.prod(spec["shape"]))
    t = T.from_numpy((np.arange(n) + offset).reshape(spec["shape"]).astype(spec["dtype"]))
    if spec["dtype"] != "int64" and spec["requires_grad"]:
        t.requires_grad_()
        if spec["grad"]:
            t.grad = T.full_like(t, 0.5)
    if spec["tag"]:
        t.tag = f"tag{offset}"
    return t


def _state(T, t):
    return (tuple(t.shape), str(t.dtype).replace("torch.", ""), t.requires_grad, t.detach().numpy().tolist(),
            None if t.grad is None else t.grad.numpy().tolist(), getattr(t, "tag", None))


def _swapped(T, first, second):
    a, b = _make(T, first, 0), _make(T, second, 100)
    ids = id(a), id(b)
    view_of_b = b.detach().reshape(-1)
    T.utils.swap_tensors(a, b)
    with T.no_grad():
        a.reshape(-1)[:1] = -7 if a.numel() else 0  # a write through the swapped tensor reaches b's old views
    return (id(a), id(b)) == ids, _state(T, a), _state(T, b), view_of_b.numpy().tolist()


@settings(max_examples=60, deadline=None, database=None)
@given(_spec, _spec)
def test_swap_matches_torch(first, second):
    assert _swapped(mt, first, second) == _swapped(rt, first, second)


def _grown_linear(T, by_swap):
    T.manual_seed(0)
    linear = T.nn.Linear(3, 2)
    larger = T.nn.Parameter(T.arange(10.0).reshape(2, 5) / 10)
    if by_swap:
        T.utils.swap_tensors(linear.weight, larger)
    else:
        linear.weight.data = larger.data
    x = T.arange(10.0).reshape(2, 5)
    out = linear(x)
    out.pow(2).sum().backward()
    return out.detach().numpy(), linear.weight.grad.numpy(), tuple(larger.shape)


@pytest.mark.parametrize("by_swap", [True, False])
def test_grown_parameter_trains_as_in_torch(by_swap):
    ours, theirs = _grown_linear(mt, by_swap), _grown_linear(rt, by_swap)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ours[2] == theirs[2]


def test_tensor_in_the_graph_is_refused_clearly():
    x = mt.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="swap_tensors"):
        mt.utils.swap_tensors(x * 2, mt.ones(2))


@pytest.mark.parametrize("masks", ["both", "attn", "attn_3d", "padding", "none", "both_3d"])
@pytest.mark.parametrize("kind", ["int", "bool", "float"])
def test_merge_masks_matches_torch(masks, kind):
    batch, seq, heads = 3, 4, 2
    rng = np.random.default_rng(0)
    attn = rng.integers(0, 2, (batch * heads, seq, seq) if masks.endswith("3d") else (seq, seq))
    padding = rng.integers(0, 2, (batch, seq))
    query = rng.random((batch, seq, 8), dtype=np.float32)
    results = []
    for T in (mt, rt):
        as_mask = {"int": lambda a: T.from_numpy(a.astype(np.int64)), "bool": lambda a: T.from_numpy(a.astype(bool)),
                   "float": lambda a: T.from_numpy(a.astype(np.float32))}[kind]
        mha = T.nn.MultiheadAttention(8, heads, batch_first=True)
        merged, mask_type = mha.merge_masks(as_mask(attn) if masks.startswith(("both", "attn")) else None,
                                            as_mask(padding) if masks.startswith(("both", "padding")) else None,
                                            T.from_numpy(query))
        results.append((mask_type, None if merged is None else
                        (tuple(merged.shape), str(merged.dtype).replace("torch.", ""), merged.numpy().tolist())))
    assert results[0] == results[1]
