"""matrix_products.product, the one product under the linear layer, attention and the row sums, against real
torch: every route it takes (compiled MatMul for unrecorded 2-d operands, BatchMatMulExt on dense operands for
unrecorded n-d ones, BatchMatMulExt on views when recorded), every transpose flag, in grad mode and out of it;
values, dtypes, whether the result requires grad, and the gradients of recorded products. bfloat16, which the
CPU's MatMul, BatchMatMul and BatchMatMulExt have no kernel for, is checked through the torch functions that
reach these products (linear, products of transposed views, bmm)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from mindnlp_shim.torch._ops import matrix_products
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

TOLERANCE = {"float32": 1e-5, "float64": 1e-12, "float16": 1e-2}
# grad mode on with inputs that require grad (recorded), on without (the compiled route must not record: its
# result once came back requiring grad), and off
MODES = ("recorded", "grad mode, no inputs requiring grad", "no_grad")


def _operand(T, values, dtype, requires_grad):
    t = T.from_numpy(values.copy()).to(getattr(T, dtype))
    return t.requires_grad_(True) if requires_grad else t


def _op(T, t, flag):
    return t.transpose(-1, -2) if flag else t


@st.composite
def _cases(draw):
    rank = draw(st.sampled_from([2, 3, 4]))
    batch = tuple(draw(st.lists(st.integers(1, 3), min_size=rank - 2, max_size=rank - 2)))
    n, k, m = (draw(st.integers(1, 40)) for _ in range(3))
    flags = (draw(st.booleans()), draw(st.booleans()))
    dtype = draw(st.sampled_from(list(TOLERANCE)))
    mode = draw(st.sampled_from(MODES))
    return batch, (n, k, m), flags, dtype, mode, draw(st.integers(0, 2 ** 16))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_product_is_torchs(case):
    batch, (n, k, m), (transpose_a, transpose_b), dtype, mode, seed = case
    rng = np.random.default_rng(seed)
    a0 = rng.standard_normal(batch + ((k, n) if transpose_a else (n, k))).astype(np.float32)
    b0 = rng.standard_normal(batch + ((m, k) if transpose_b else (k, m))).astype(np.float32)
    g0 = rng.standard_normal(batch + (n, m)).astype(np.float32)
    recorded = mode == "recorded"
    with mt.set_grad_enabled(mode != "no_grad"):
        a, b = (_operand(mt, x, dtype, recorded) for x in (a0, b0))
        ours = matrix_products.product(a, b, transpose_a, transpose_b)
        assert ours.requires_grad == recorded
        if recorded:
            ours.backward(_operand(mt, g0, dtype, False))
    ta, tb = (_operand(rt, x, dtype, recorded) for x in (a0, b0))
    theirs = rt.matmul(_op(rt, ta, transpose_a), _op(rt, tb, transpose_b))
    if recorded:
        theirs.backward(_operand(rt, g0, dtype, False))
    pairs = [(ours, theirs)] + ([(a.grad, ta.grad), (b.grad, tb.grad)] if recorded else [])
    tol = TOLERANCE[dtype]
    for got, expected in pairs:
        assert tuple(got.shape) == tuple(expected.shape) and str(got.dtype) == str(expected.dtype)
        np.testing.assert_allclose(got.float().detach().numpy(), expected.float().detach().numpy(),
                                   rtol=tol, atol=tol * np.sqrt(k) * 4)


_BF16_FORMS = {
    "linear": lambda T, x, w, b: T.nn.functional.linear(x, w, b),
    "x @ w.T": lambda T, x, w, b: x @ w.T,
    "bmm(x, x^T)": lambda T, x, w, b: T.bmm(x, x.transpose(1, 2)),
    "w.T @ w (2-d, transposed left)": lambda T, x, w, b: T.mm(w.T, w),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(_BF16_FORMS)), st.integers(1, 6), st.integers(1, 70), st.integers(1, 70),
       st.integers(1, 70), st.sampled_from(MODES), st.integers(0, 2 ** 16))
def test_bfloat16_products_are_torchs(form, batch, rows, inner, outer, mode, seed):
    rng = np.random.default_rng(seed)
    x0, w0, b0 = (rng.standard_normal(s).astype(np.float32) for s in ((batch, rows, inner), (outer, inner), (outer,)))
    recorded = mode == "recorded"
    results = []
    for T in (mt, rt):
        with T.set_grad_enabled(mode != "no_grad"):
            x, w = (_operand(T, v, "bfloat16", recorded) for v in (x0, w0))
            y = _BF16_FORMS[form](T, x, w, _operand(T, b0, "bfloat16", False))
            assert y.requires_grad == recorded
            if recorded:
                y.float().square().sum().backward()
        results.append([y] + ([x.grad, w.grad] if recorded else []))
    for got, expected in zip(*results):
        if expected is None:
            assert got is None
            continue
        assert tuple(got.shape) == tuple(expected.shape) and str(got.dtype) == str(expected.dtype)
        scale = float(expected.detach().float().abs().max()) + 1.0
        np.testing.assert_allclose(got.float().detach().numpy(), expected.float().detach().numpy(),
                                   rtol=2e-2, atol=2e-2 * scale)


@pytest.mark.parametrize("recorded", [False, True])
def test_a_large_linear_adds_its_bias_on_the_host_as_torch(recorded, monkeypatch):
    """Past host_small.MAX_BIAS_ADD elements (MiniLM's (2048, 1536) intermediate layer) the bias is still added
    into the fresh product in place on the host: MindSpore's broadcasting add was 4-7x slower and BiasAdd keeps
    memory per call."""
    from mindnlp_shim.torch._ops import host_small

    rows, inner, outer = 1100, 24, 1000
    assert rows * outer > host_small.MAX_BIAS_ADD
    taken = []
    original = host_small.add_bias_into_product
    monkeypatch.setattr(host_small, "add_bias_into_product", lambda p, b: taken.append(original(p, b)) or taken[-1])
    rng = np.random.default_rng(5)
    x0, w0, b0 = (rng.standard_normal(s).astype(np.float32) for s in ((rows, inner), (outer, inner), (outer,)))
    results = []
    for T in (mt, rt):
        x, w, b = (T.from_numpy(v.copy()).requires_grad_(recorded) for v in (x0, w0, b0))
        y = T.nn.functional.linear(x, w, b)
        results.append(y.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-5)
    assert taken == [True]
