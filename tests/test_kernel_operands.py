"""Tables and weights that are views (a checkpoint loaded from safetensors gives reshapes of the file's bytes,
slices give offsets) reach MindSpore's Gather and MatMul as new tensors over the same memory
(`_ops/dense.kernel_operand`), and embedding under autograd is one Function (`nn/_lean_backward._Embedding`):
values and gradients are real torch's for every layout, padding row and grad mode, drawn by hypothesis."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from mindnlp_shim.torch._ops import dense
from mindnlp_shim.torch.nn import _lean_backward as lean
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

LAYOUTS = ("fresh", "reshaped", "row_slice")


def _table(T, values, layout):
    """`values` as a tensor laid out as `layout`: its own memory, a reshape of a flat tensor (a loaded
    checkpoint's parameters), or rows 1.. of a larger table (a view with an offset)."""
    if layout == "fresh":
        return T.from_numpy(values.copy())
    if layout == "reshaped":
        return T.from_numpy(values.reshape(-1).copy()).reshape(values.shape)
    padded = np.concatenate([np.zeros((1,) + values.shape[1:], values.dtype), values])
    return T.from_numpy(padded)[1:]


def _parameter(T, values, layout):
    return T.nn.Parameter(_table(T, values, layout))


_embedding_cases = st.fixed_dictionaries({
    "rows": st.sampled_from([5, 40, 300]),  # 300 x 64 is past kernel_operand's size floor: the Function serves it
    "ids_shape": st.sampled_from([(7,), (3, 5), (2, 3, 4)]),
    "layout": st.sampled_from(LAYOUTS),
    "padding": st.sampled_from([None, 0, 1, -1, "last", "-rows"]),
    "recorded": st.booleans(),
    "dtype": st.sampled_from(["float32", "float64", "float16"]),
    "ids_dtype": st.sampled_from(["int64", "int32"]),
    "seed": st.integers(0, 2 ** 16),
})


def _padding_idx(padding, rows):
    return {"last": rows - 1, "-rows": -rows}.get(padding, padding)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_embedding_cases)
def test_embedding_values_and_gradients_are_torchs(case):
    rng = np.random.default_rng(case["seed"])
    rows = case["rows"]
    table = rng.standard_normal((rows, 64)).astype(np.float32)
    ids = rng.integers(0, rows, case["ids_shape"])
    ids.reshape(-1)[: max(1, ids.size // 3)] = rng.integers(0, min(rows, 3))  # repeated rows: summed gradients
    grad = rng.standard_normal(case["ids_shape"] + (64,)).astype(np.float32)
    padding_idx = _padding_idx(case["padding"], rows)
    results = []
    table, grad = table.astype(case["dtype"]), grad.astype(case["dtype"])
    ids = ids.astype(case["ids_dtype"])
    for T in (mt, rt):
        weight = _parameter(T, table, case["layout"])
        if case["recorded"]:
            out = T.nn.functional.embedding(T.from_numpy(ids), weight, padding_idx=padding_idx)
            out.backward(T.from_numpy(grad))
            results.append((out.detach().numpy(), weight.grad.numpy()))
            assert weight.grad.dtype == weight.dtype
        else:
            with T.no_grad():
                out = T.nn.functional.embedding(T.from_numpy(ids), weight, padding_idx=padding_idx)
            results.append((out.numpy(), None))
    (ours, our_grad), (theirs, their_grad) = results
    np.testing.assert_array_equal(ours, theirs)
    if case["recorded"]:
        tolerance = 1e-3 if case["dtype"] == "float16" else 1e-6  # (sums of repeated rows in another order)
        np.testing.assert_allclose(our_grad, their_grad, rtol=tolerance, atol=tolerance)


def test_negative_padding_idx_counts_from_the_end_and_cuts_that_rows_gradient():
    table, ids = np.arange(312 * 64, dtype=np.float32).reshape(312, 64) / 100 + 1, np.array([[0, 311, 5]])
    grads = []
    for T in (mt, rt):
        for layout in LAYOUTS:
            weight = _parameter(T, table, layout)
            T.nn.functional.embedding(T.from_numpy(ids), weight, padding_idx=-1).sum().backward()
            grads.append(weight.grad.numpy())
    assert table.shape[0] == 312 and not grads[0][311].any() and grads[0][0].all()
    for grad in grads[1:]:
        np.testing.assert_array_equal(grad, grads[0])


@pytest.mark.parametrize("padding_idx", [300, -301, 1000])
def test_a_padding_idx_outside_the_table_raises_torchs_error(padding_idx):
    messages = []
    for T in (mt, rt):
        with pytest.raises(AssertionError) as raised:
            T.nn.functional.embedding(T.tensor([1, 2]), T.zeros(300, 64), padding_idx=padding_idx)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_embedding_gradient_differentiates_again_as_torchs(layout):
    rng = np.random.default_rng(3)
    table, ids = rng.standard_normal((300, 64)).astype(np.float32), np.array([[4, 4, 299], [0, 7, 4]])
    upstream = rng.standard_normal((2, 3, 64)).astype(np.float32)
    results = []
    for T in (mt, rt):
        weight = _parameter(T, table, layout)
        grad_out = T.from_numpy(upstream).requires_grad_(True)
        out = T.nn.functional.embedding(T.from_numpy(ids), weight, padding_idx=7)
        grad_weight, = T.autograd.grad(out, weight, grad_out, create_graph=True)
        (grad_weight ** 2).sum().backward()
        results.append((grad_weight.detach().numpy(), grad_out.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


_linear_cases = st.fixed_dictionaries({
    "in_out": st.sampled_from([(8, 6), (128, 160), (384, 64)]),
    "lead": st.sampled_from([(5,), (3, 7), (2, 3, 4)]),
    "layout": st.sampled_from(LAYOUTS),
    "input_layout": st.sampled_from(LAYOUTS),
    "bias": st.booleans(),
    "recorded": st.booleans(),
    "seed": st.integers(0, 2 ** 16),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_linear_cases)
def test_linear_on_weight_views_is_torchs(case):
    rng = np.random.default_rng(case["seed"])
    n_in, n_out = case["in_out"]
    weight_values = rng.standard_normal((n_out, n_in)).astype(np.float32)
    bias_values = rng.standard_normal(n_out).astype(np.float32)
    x_values = rng.standard_normal(case["lead"] + (n_in,)).astype(np.float32)
    upstream = rng.standard_normal(case["lead"] + (n_out,)).astype(np.float32)
    results = []
    for T in (mt, rt):
        weight = _parameter(T, weight_values, case["layout"])
        bias = T.nn.Parameter(T.from_numpy(bias_values)) if case["bias"] else None
        x = _table(T, x_values, case["input_layout"]).requires_grad_(case["recorded"])
        if case["recorded"]:
            out = T.nn.functional.linear(x, weight, bias)
            out.backward(T.from_numpy(upstream))
            results.append([out.detach().numpy(), x.grad.numpy(), weight.grad.numpy()])
        else:
            with T.no_grad():
                results.append([T.nn.functional.linear(x, weight, bias).numpy()])
    for ours, theirs in zip(*results):
        # sums of up to 384 products in another order: within 1e-5 of the result's scale
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5 * np.abs(theirs).max())


def test_writes_into_the_weight_between_calls_are_read():
    # an optimizer writes parameters in place: each call reads the memory as it is then, never a kept copy
    rng = np.random.default_rng(5)
    values, x_values = rng.standard_normal((256, 128)).astype(np.float32), rng.standard_normal((4, 128)).astype(np.float32)
    outs = []
    for T in (mt, rt):
        weight = _parameter(T, values, "reshaped")
        x = T.from_numpy(x_values)
        first = T.nn.functional.linear(x, weight).detach().numpy()
        with T.no_grad():
            weight.mul_(2.0)
        second = T.nn.functional.linear(x, weight).detach().numpy()
        rows = T.nn.functional.embedding(T.tensor([3, 200]), weight).detach().numpy()
        outs.append((first, second, rows))
    for ours, theirs in zip(*outs):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5 * np.abs(theirs).max())
    np.testing.assert_allclose(outs[0][1], 2 * outs[0][0], rtol=0, atol=1e-5 * np.abs(outs[0][1]).max())


def test_views_reach_the_kernels_as_plain_tensors_over_their_memory(monkeypatch):
    weight = _parameter(mt, np.ones((300, 64), np.float32), "reshaped")
    seen = []
    real_gather = lean.ops.gather

    def gather(table, ids, axis):
        seen.append(table)
        return real_gather(table, ids, axis)

    monkeypatch.setattr(lean.ops, "gather", gather)
    mt.nn.functional.embedding(mt.tensor([1, 2]), weight).sum().backward()
    assert len(seen) == 1 and seen[0] is not weight and seen[0].data_ptr() == weight.data_ptr()
    # small tensors keep MindSpore's own path (the alias costs about what copying them does)
    small = mt.zeros(4, 4).reshape(16).reshape(4, 4)
    assert dense.kernel_operand(small) is small
    strided = mt.zeros(300, 64).t()
    assert dense.kernel_operand(strided) is strided
