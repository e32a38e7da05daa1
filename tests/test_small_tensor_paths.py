"""The cheaper paths for small tensors give real PyTorch's results: grouped-query attention with the query heads
stacked instead of repeated keys/values (nn/_grouped_query_attention.py), `Tensor.clone` as one Identity
kernel, and `F.embedding` with a padding_idx outside autograd; each also checked to take the cheaper path."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from mindnlp_shim.torch._ops import host_small
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(7)


def randn(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def _mask_with_dead_row(length, keys):
    mask = np.tril(np.ones((length, keys), bool), keys - length)
    mask[1] = False  # a query row that sees no key: torch gives zeros there
    return mask


# (query shape, key/value length, mask array or None, is_causal)
GQA_CASES = {
    "decode_row_no_mask": ((2, 8, 1, 16), 7, None, False),
    "prompt_causal": ((2, 8, 5, 16), 5, None, True),
    "causal_rectangular": ((1, 6, 4, 16), 6, None, True),
    "bool_mask_2d_dead_row": ((2, 8, 4, 16), 6, _mask_with_dead_row(4, 6), False),
    "float_mask_per_batch": ((2, 8, 3, 16), 5, np.where(_rng.random((2, 1, 3, 5)) < 0.3, -1e9, 0).astype(np.float32),
                             False),
    "float_mask_per_head": ((2, 8, 3, 16), 5, randn(2, 8, 3, 5), False),
    "bool_padding_mask": ((2, 8, 1, 16), 5, np.array([[True] * 5, [False, True, True, True, True]]).reshape(2, 1, 1, 5),
                          False),
}


def _gqa_inputs(case):
    shape, keys, mask, causal = GQA_CASES[case]
    batch, heads, length, size = shape
    return randn(*shape), randn(batch, 2, keys, size), randn(batch, 2, keys, size), mask, causal


def _attention(T, q, k, v, mask, causal):
    with T.no_grad():
        out = T.nn.functional.scaled_dot_product_attention(
            T.from_numpy(q), T.from_numpy(k), T.from_numpy(v), attn_mask=None if mask is None else T.from_numpy(mask),
            is_causal=causal, enable_gqa=True)
    return out.numpy()


@pytest.mark.parametrize("case", list(GQA_CASES))
def test_grouped_query_attention_matches_torch(case, monkeypatch):
    q, k, v, mask, causal = _gqa_inputs(case)
    # the stacked path must serve it: repeating the keys and values is the plain path's first step
    monkeypatch.setattr(mt.nn.functional.ops, "repeat_interleave",
                        lambda *a, **k: pytest.fail("keys/values were repeated"))
    ours = _attention(mt, q, k, v, mask, causal)
    theirs = _attention(rt, q, k, v, mask, causal)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6)


def test_grouped_query_attention_under_autograd_keeps_the_recorded_path():
    q, k, v, mask, causal = _gqa_inputs("prompt_causal")
    grads = []
    for T in (mt, rt):
        query = T.from_numpy(q).requires_grad_(True)
        out = T.nn.functional.scaled_dot_product_attention(query, T.from_numpy(k), T.from_numpy(v), is_causal=True,
                                                           enable_gqa=True)
        (out * T.from_numpy(randn(*out.shape) * 0 + 1.5)).sum().backward()
        grads.append((out.detach().numpy(), query.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "bool"])
def test_clone_is_a_copy_as_torch_makes_it(dtype):
    values = np.array([-0.0, 1.5, -2.0, 0.0], np.float32)
    results = []
    for T in (mt, rt):
        x = T.from_numpy(values).to(getattr(T, dtype))
        y = x.clone()
        y[1] = 7  # new storage: the source keeps its value
        results.append((x.float().numpy(), y.float().numpy(), T.signbit(y.float()).numpy(), str(y.dtype)))
    ours, theirs = results
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_array_equal(a, b)
    assert ours[3].split(".")[-1] == theirs[3].split(".")[-1]


def test_clone_passes_gradients_back():
    for T in (mt, rt):
        w = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
        (w.clone() * T.tensor([2.0, 3.0, 4.0])).sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), [2.0, 3.0, 4.0])


def test_clone_takes_one_identity_kernel(monkeypatch):
    x = mt.from_numpy(randn(3, 4))
    monkeypatch.setattr(mt._tensor.ops, "add", lambda *a, **k: pytest.fail("clone added a zero"))
    np.testing.assert_array_equal(x.clone().numpy(), x.numpy())


def test_embedding_padding_idx_outside_autograd(monkeypatch):
    table, ids = randn(6, 4), np.array([[0, 2, 5], [5, 0, 1]])
    results = []
    for T in (mt, rt):
        weight = T.from_numpy(table).requires_grad_(True)
        with T.no_grad():
            results.append(T.nn.functional.embedding(T.from_numpy(ids), weight, padding_idx=0).numpy())
    np.testing.assert_array_equal(*results)
    # outside autograd nothing needs the padding row's gradient cut: no extra where/compare kernels
    monkeypatch.setattr(mt.nn.functional.ops, "where", lambda *a, **k: pytest.fail("masked a gradient"))
    with mt.no_grad():
        mt.nn.functional.embedding(mt.from_numpy(ids), mt.from_numpy(table).requires_grad_(True), padding_idx=0)


def test_embedding_padding_idx_under_autograd_cuts_the_padding_gradient():
    table, ids = randn(6, 4), np.array([[0, 2, 5], [5, 0, 1]])
    grads = []
    for T in (mt, rt):
        weight = T.from_numpy(table).requires_grad_(True)
        T.nn.functional.embedding(T.from_numpy(ids), weight, padding_idx=0).sum().backward()
        grads.append(weight.grad.numpy())
    np.testing.assert_array_equal(*grads)
    assert not grads[0][0].any()


def test_layer_norm_outside_autograd_uses_the_parameter_directly(monkeypatch):
    x, w, b = randn(2, 3, 8), randn(8), randn(8)
    results = []
    for T in (mt, rt):
        weight, bias = T.from_numpy(w).requires_grad_(True), T.from_numpy(b).requires_grad_(True)
        with T.no_grad():
            results.append(T.nn.functional.layer_norm(T.from_numpy(x), (8,), weight, bias, 1e-5).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)
    # the copy of gamma guards a backward; outside autograd there is none, so no multiply runs
    monkeypatch.setattr(mt.nn.functional.ops, "mul", lambda *a, **k: pytest.fail("gamma was copied"))
    with mt.no_grad():
        mt.nn.functional.layer_norm(mt.from_numpy(x), (8,), mt.from_numpy(w).requires_grad_(True),
                                    mt.from_numpy(b), 1e-5)


def _masked_attention(T, q, k, v, mask):
    with T.no_grad():
        return T.nn.functional.scaled_dot_product_attention(T.from_numpy(q), T.from_numpy(k), T.from_numpy(v),
                                                            attn_mask=mask).numpy()


def test_a_mask_written_in_place_between_calls_is_not_served_stale():
    q, k, v = randn(2, 4, 3, 8), randn(2, 4, 5, 8), randn(2, 4, 5, 8)
    first = np.ones((2, 1, 3, 5), bool)
    first[1, :, :, 3:] = False
    second = first.copy()
    second[0, :, 1, :] = False  # a row that now sees no key
    second[1, :, 0, 1] = False
    outputs = []
    for T in (mt, rt):
        mask = T.from_numpy(first.copy())
        a = _masked_attention(T, q, k, v, mask)
        b = _masked_attention(T, q, k, v, mask)  # the same values again
        mask[...] = T.from_numpy(second)  # written in place: same object, new values
        c = _masked_attention(T, q, k, v, mask)
        outputs.append((a, b, c))
    for ours, theirs in zip(*outputs):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6)
    assert not np.allclose(outputs[0][0], outputs[0][2])


def test_a_mask_with_the_same_values_is_built_once(monkeypatch):
    q, k, v = randn(1, 2, 3, 8), randn(1, 2, 4, 8), randn(1, 2, 4, 8)
    values = np.array([True, True, False, True]).reshape(1, 1, 1, 4)
    expected = _masked_attention(rt, q, k, v, rt.from_numpy(values))
    np.testing.assert_allclose(_masked_attention(mt, q, k, v, mt.from_numpy(values)), expected, rtol=1e-5,
                               atol=2e-6)
    # a new tensor with equal values (as every layer of a model receives): the additive form is not rebuilt
    monkeypatch.setattr(mt.nn.functional.ops, "masked_fill", lambda *a, **k: pytest.fail("mask rebuilt"))
    np.testing.assert_allclose(_masked_attention(mt, q, k, v, mt.from_numpy(values.copy())), expected, rtol=1e-5,
                               atol=2e-6)
    # a float mask of another dtype is built, not confused with the boolean one
    monkeypatch.undo()
    bias = np.where(values, 0.0, -np.inf).astype(np.float32)
    np.testing.assert_allclose(_masked_attention(mt, q, k, v, mt.from_numpy(bias)), expected, rtol=1e-5, atol=2e-6)


def _layer_norm_grads(T, x0, w0, b0, g0):
    x = T.from_numpy(x0).requires_grad_(True)
    w, b = T.from_numpy(w0).requires_grad_(True), T.from_numpy(b0).requires_grad_(True)
    y = T.nn.functional.layer_norm(x, (x0.shape[-1],), w, b, 1e-12)
    y.backward(T.from_numpy(g0))
    return [t.detach().numpy() for t in (y, x.grad, w.grad, b.grad)]


@pytest.mark.parametrize("shape, path, host_limit", [
    ((16, 12, 384), "host", None), ((2, 3, 64), "host", None), ((4, 100, 384), "host", None),
    ((4, 100, 384), "fused kernel", 1 << 17), ((2, 3, 16), "written out", None)])
def test_recorded_layer_norm_paths_are_torchs(shape, path, host_limit, monkeypatch):
    # rows of 64 elements and more: up to host_small.NORM_MAX_ELEMENTS on the host, forward and backward;
    # past it MindSpore's LayerNormGrad up to _FUSED_GRAD_BELOW (here reached with a lower host limit, as a
    # smaller input than 2^24 elements); narrow rows the written-out backward
    if host_limit is not None:
        monkeypatch.setattr(host_small, "NORM_MAX_ELEMENTS", host_limit)
    x0, w0, b0, g0 = randn(*shape), randn(shape[-1]), randn(shape[-1]), randn(*shape)
    calls = []
    lean = mt.nn._lean_backward
    for name, label in (("_fused_layer_norm_grad", "fused kernel"), ("sum_last_axis", "written out")):
        original = getattr(lean, name)
        monkeypatch.setattr(lean, name, lambda *args, original=original, label=label: calls.append(label) or
                            original(*args))
    grad_rows = host_small.normalized_rows_grad
    monkeypatch.setattr(host_small, "normalized_rows_grad", lambda *args: calls.append("host") or grad_rows(*args))
    ours, theirs = _layer_norm_grads(mt, x0, w0, b0, g0), _layer_norm_grads(rt, x0, w0, b0, g0)
    assert set(calls) == {path}
    for a, b, tol in zip(ours, theirs, (1e-5, 1e-4, 1e-4, 1e-5)):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("weight, bias", [(False, True), (True, False), (False, False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_host_layer_norm_without_weight_or_bias_and_in_float64_is_torchs(weight, bias, dtype):
    x0, w0, b0, g0 = (a.astype(dtype) for a in (randn(4, 5, 96), randn(96), randn(96), randn(4, 5, 96)))
    results = []
    for T in (mt, rt):
        x = T.from_numpy(x0.copy()).requires_grad_(True)
        w = T.from_numpy(w0.copy()).requires_grad_(True) if weight else None
        b = T.from_numpy(b0.copy()).requires_grad_(True) if bias else None
        y = T.nn.functional.layer_norm(x, (96,), w, b)
        y.backward(T.from_numpy(g0))
        results.append([t.detach().numpy() for t in (y, x.grad) + tuple(p.grad for p in (w, b) if p is not None)])
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for a, b in zip(*results):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_checkpointed_wide_layer_norm_gives_the_plain_gradients():
    # checkpoint runs the region under no_grad and recomputes it under grad mode: a layer norm the host serves
    # in every mode computes both alike, so the gradients are the plain run's bit for bit
    from mindnlp_shim.torch.utils.checkpoint import checkpoint

    mt.manual_seed(0)
    linear, norm = mt.nn.Linear(96, 96), mt.nn.LayerNorm(96)
    x = mt.from_numpy(randn(3, 5, 96))

    def run(checkpointed):
        for p in (*linear.parameters(), *norm.parameters()):
            p.grad = None
        region = lambda t: norm(linear(t)).tanh()  # noqa: E731
        h = checkpoint(region, x, use_reentrant=False) if checkpointed else region(x)
        (h * h).sum().backward()
        return [p.grad.numpy().copy() for p in (*linear.parameters(), *norm.parameters())]

    for plain, checkpointed in zip(run(False), run(True)):
        np.testing.assert_array_equal(plain, checkpointed)


def test_small_wide_layer_norm_refuses_a_second_derivative_clearly():
    x = mt.from_numpy(randn(2, 3, 64)).requires_grad_(True)
    y = mt.nn.functional.layer_norm(x, (64,), mt.from_numpy(randn(64)), mt.from_numpy(randn(64)))
    g, = mt.autograd.grad((y * y).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiate twice"):
        mt.autograd.grad(g.sum(), x)


_CAST_VALUES = {
    "bool": np.array([True, False, True]),
    "int64": np.array([0, -1, 255, 256, -129, 2 ** 24 + 1, 2 ** 53 + 1, -(2 ** 40) - 3, 70000], np.int64),
    "int32": np.array([0, -1, 255, 256, -129, 2 ** 24 + 1, 70000], np.int32),
    "uint8": np.array([0, 1, 127, 128, 255], np.uint8),
    "float64": np.array([0.0, -0.0, 1e-310, 1.0000001, 65520.0, -1e300, np.inf, -np.inf, np.nan, 2.5e-8]),
    "float32": np.array([0.0, -0.0, 1e-40, 3.14159, 65519.0, 65520.0, -7e5, np.inf, np.nan], np.float32),
    "float16": np.array([0.0, -0.0, 6e-8, 1.5, 65504.0, -np.inf, np.nan], np.float16),
}
_CAST_TARGETS = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")


@pytest.mark.parametrize("source", list(_CAST_VALUES))
def test_small_casts_match_torch(source):
    values = _CAST_VALUES[source]
    for target in _CAST_TARGETS:
        if source.startswith("float") and not target.startswith("float"):
            continue  # (float -> integer keeps MindSpore's kernel; tests of its own cover it)
        results = []
        for T in (mt, rt):
            x = T.from_numpy(values.copy())
            results.append([x.to(getattr(T, target)).numpy(), x[::2].to(getattr(T, target)).numpy(),
                            x[1].to(getattr(T, target)).numpy()])
        for ours, theirs in zip(*results):
            assert ours.dtype == theirs.dtype, (source, target)
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{source} -> {target}")
            if theirs.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs), err_msg=f"{source} -> {target}")


def test_small_casts_run_on_the_host_and_keep_autograd(monkeypatch):
    monkeypatch.setattr(mt._ops.small_casts.ops, "cast", lambda *a, **k: pytest.fail("Cast kernel used"))
    positions = mt.arange(9).reshape(1, 9)
    np.testing.assert_array_equal(positions[..., None].float().numpy(), np.arange(9, dtype=np.float32)[None, :, None])
    monkeypatch.undo()
    # a float tensor that autograd records still goes through the recorded kernel: its gradient arrives
    w = mt.tensor([1.5, -2.0], requires_grad=True)
    (w.double() * mt.tensor([2.0, 3.0], dtype=mt.float64)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 3.0])
    assert w.grad.dtype == mt.float32


# index, as torch reads it, for a (2, 3, 8) tensor: each keeps one range of one dimension (MindSpore's Narrow view)
ONE_RANGE_INDEXES = {
    "last_half": (Ellipsis, slice(4, None)), "first_half": (Ellipsis, slice(None, 4)),
    "last_position": (slice(None), slice(-1, None), slice(None)), "leading": slice(1, 2),
    "negative_bounds": (slice(None), slice(None), slice(-6, -2)), "clamped_stop": (Ellipsis, slice(5, 100)),
    "ellipsis_after": (slice(None), slice(1, 3), Ellipsis), "step_one": (Ellipsis, slice(2, 7, 1)),
}


@pytest.mark.parametrize("case", list(ONE_RANGE_INDEXES))
def test_one_range_slices_are_narrow_views_with_torchs_layout(case, monkeypatch):
    index = ONE_RANGE_INDEXES[case]
    calls = []
    narrow = mt._tensor._narrow
    monkeypatch.setattr(mt._tensor, "_narrow", lambda *a: calls.append(a) or narrow(*a))
    base = np.arange(48, dtype=np.float32).reshape(2, 3, 8)
    ours_base, theirs_base = mt.from_numpy(base.copy()), rt.from_numpy(base.copy())
    ours, theirs = ours_base[index], theirs_base[index]
    assert calls, "the Narrow view did not serve this index"
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride()) and ours.storage_offset() == theirs.storage_offset()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours.mul_(-1)  # a write through the view reaches the base, as in torch
    theirs.mul_(-1)
    np.testing.assert_array_equal(ours_base.numpy(), theirs_base.numpy())


def test_other_indexes_keep_the_general_path(monkeypatch):
    monkeypatch.setattr(mt._tensor, "_narrow", lambda *a: pytest.fail("Narrow served an index it must not"))
    x = mt.arange(24.0).reshape(2, 3, 4)
    for index in ((slice(None), slice(0, 0)), (slice(None, None, 2),), (0, slice(1, 3)), (Ellipsis, None),
                  (slice(0, 1), slice(1, 2))):
        x[index]
    leaf = mt.ones(3, 4, requires_grad=True)
    (leaf[:, 1:3] * 2).sum().backward()  # the recorded path, with its gradient
    np.testing.assert_array_equal(leaf.grad.numpy(), np.array([[0, 2, 2, 0]] * 3, np.float32))


@pytest.mark.parametrize("sizes", [2, [2, 4], [3, 2, 1]])
def test_split_outside_autograd_gives_aliasing_views(sizes, monkeypatch):
    monkeypatch.setattr(mt._ops.shape.ops, "split", lambda *a, **k: pytest.fail("Split ran"))
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    ours_base, theirs_base = mt.from_numpy(base.copy()), rt.from_numpy(base.copy())
    ours, theirs = ours_base.split(sizes, 1), theirs_base.split(sizes, 1)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.stride()) == tuple(t.stride()) and o.storage_offset() == t.storage_offset()
        np.testing.assert_array_equal(o.numpy(), t.numpy())
    ours[-1].fill_(7)
    theirs[-1].fill_(7)
    np.testing.assert_array_equal(ours_base.numpy(), theirs_base.numpy())


@pytest.mark.parametrize("shape, path", [((4, 3, 16), "host"), ((1100, 2000), "MatMul with ones")])
def test_linear_bias_gradient_paths_are_torchs(shape, path, monkeypatch):
    # a recorded linear's bias gradient: column sums on the host up to host_small.MAX_BIAS_ADD elements
    calls = []
    column_sums = host_small.column_sums
    monkeypatch.setattr(host_small, "column_sums", lambda t: calls.append(column_sums(t)) or calls[-1])
    x0, w0, b0 = randn(*shape), randn(shape[-1] // 2 + 1, shape[-1]), randn(shape[-1] // 2 + 1)
    g0 = randn(*shape[:-1], shape[-1] // 2 + 1)
    grads = []
    for T in (mt, rt):
        x, w, b = (T.from_numpy(a).requires_grad_(True) for a in (x0, w0, b0))
        T.nn.functional.linear(x, w, b).backward(T.from_numpy(g0))
        grads.append([t.grad.numpy() for t in (x, w, b)])
    assert (calls[0] is not None) == (path == "host")
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
