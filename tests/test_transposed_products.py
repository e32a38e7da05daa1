"""Matrix products with a transposed operand (x @ w.T, a.t().mm(b)) run as MindSpore's MatMul with a transpose
flag on the dense matrix behind the view (_ops/linalg._flagged_product): values and gradients are real
PyTorch's, and the path is checked to be taken."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from mindnlp_shim.torch._ops import linalg
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# each case: (a's stored shape, b's stored shape, how the product is formed from the stored tensors, flagged?)
# sizes above host_small's product limit, so that MindSpore's kernel serves them
CASES = {
    "x @ w.T": ((96, 160), (200, 160), lambda T, a, b: a @ b.T, True),
    "x.T @ w": ((160, 96), (160, 200), lambda T, a, b: a.T @ b, True),
    "x.T @ w.T": ((160, 96), (200, 160), lambda T, a, b: T.mm(a.t(), b.t()), True),
    # in the graph a 3-d product is not flagged: its result would be a view of the 2-d product, and an in-place
    # write into it would lose the gradients (tests/test_inplace_after_functions.py); outside the graph it is
    "3-d x @ w.T": ((4, 24, 160), (200, 160), lambda T, a, b: T.matmul(a, b.transpose(0, 1)), False),
    "x[:, ::2] @ w.T (w.T flagged)": ((96, 320), (200, 160), lambda T, a, b: a[:, ::2] @ b.T, True),
    "dense x @ w": ((96, 160), (160, 200), lambda T, a, b: a @ b, False),
    "permuted 3-d x @ w.T (not flagged)": ((24, 4, 160), (200, 160), lambda T, a, b: a.transpose(0, 1) @ b.T, False),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_transposed_products_are_torchs(case, dtype, monkeypatch):
    a_shape, b_shape, form, flagged = CASES[case]
    rng = np.random.default_rng(3)
    a0, b0 = (rng.standard_normal(s).astype(dtype) for s in (a_shape, b_shape))
    taken = []
    original = linalg._flagged_product

    def noting(a, b):
        product = original(a, b)
        taken.append(product is not None)
        return product

    monkeypatch.setattr(linalg, "_flagged_product", noting)
    results = []
    for T in (mt, rt):
        a, b = (T.from_numpy(x.copy()).requires_grad_(True) for x in (a0, b0))
        y = form(T, a, b)
        g = T.from_numpy(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)).astype(dtype))
        y.backward(g)
        results.append([t.detach().numpy() for t in (y, a.grad, b.grad)])
    tol = 1e-5 if dtype == "float32" else 1e-12
    for ours, theirs in zip(*results):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol * 10)
    assert (True in taken) == flagged


def test_transposed_product_outside_autograd_and_its_out_form():
    a0, b0 = np.arange(96 * 160, dtype=np.float32).reshape(96, 160) / 1e4, np.ones((200, 160), np.float32)
    expected = rt.from_numpy(a0) @ rt.from_numpy(b0).T
    with mt.no_grad():
        got = mt.from_numpy(a0) @ mt.from_numpy(b0).T
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    out = mt.empty(96, 200)
    assert mt.matmul(mt.from_numpy(a0), mt.from_numpy(b0).T, out=out) is out
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)


def test_a_3d_product_outside_the_graph_is_flagged(monkeypatch):
    taken = []
    original = linalg._flagged_product
    monkeypatch.setattr(linalg, "_flagged_product", lambda a, b: taken.append(original(a, b) is not None) or
                        original(a, b))
    rng = np.random.default_rng(3)
    a0, b0 = rng.standard_normal((4, 24, 160)).astype("float32"), rng.standard_normal((200, 160)).astype("float32")
    with mt.no_grad():
        ours = (mt.from_numpy(a0) @ mt.from_numpy(b0).T).numpy()
    np.testing.assert_allclose(ours, (rt.from_numpy(a0) @ rt.from_numpy(b0).T).numpy(), rtol=1e-5, atol=1e-4)
    assert taken and all(taken)
