"""Singular values far below the largest: MindSpore's CPU SVD kernel gave exact zeros for every float32 singular
value under about 1e-7 of the largest (and the singular vectors that go with them), where torch's LAPACK gesdd
gives small nonzero values; peft's CorDA "kpm" builds adapters from the smallest singular triplets and so got
all-zero adapters. Generated float32 and float64 matrices with known spreads of singular values are decomposed by
each torch SVD entry point and compared with real torch: the values (tightly in float64, within float32's
accuracy in float32, with no zero where torch has none), the reconstruction and orthonormal factors; a matrix
with a NaN raises torch's LinAlgError."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

ENTRY_POINTS = {
    "linalg.svd": lambda T, a: T.linalg.svd(a, full_matrices=False),
    "linalg.svd_full": lambda T, a: T.linalg.svd(a),
    "svd": lambda T, a: (lambda u, s, v: (u, s, v.mH))(*T.svd(a)),
    "Tensor.svd": lambda T, a: (lambda u, s, v: (u, s, v.mH))(*a.svd()),
}


def _matrix(seed, rows, cols, spread, dtype):
    rng = np.random.default_rng(seed)
    k = min(rows, cols)
    left, _ = np.linalg.qr(rng.standard_normal((rows, k)))
    right, _ = np.linalg.qr(rng.standard_normal((cols, k)))
    return ((left * np.geomspace(1e3, 1e3 / spread, k)) @ right.T).astype(dtype)


def _check_factors(u, s, vh, a, eps):
    k = s.shape[-1]
    scale = float(s.max())
    np.testing.assert_allclose((u[..., :, :k] * s) @ vh[..., :k, :], a, atol=50 * eps * scale)
    np.testing.assert_allclose(u.T @ u, np.eye(u.shape[-1]), atol=50 * eps * max(u.shape))
    np.testing.assert_allclose(vh @ vh.T, np.eye(vh.shape[-2]), atol=50 * eps * max(vh.shape))


@settings(max_examples=25, deadline=None, database=None)
@given(seed=st.integers(0, 2 ** 16), rows=st.integers(2, 40), cols=st.integers(2, 40),
       spread=st.sampled_from([1e2, 1e6, 1e9, 1e12]), dtype=st.sampled_from(["float32", "float64"]),
       entry=st.sampled_from(sorted(ENTRY_POINTS)))
def test_small_singular_values_match_torch(seed, rows, cols, spread, dtype, entry):
    a = _matrix(seed, rows, cols, spread, dtype)
    eps = float(np.finfo(dtype).eps)
    u, s, vh = (t.numpy() for t in ENTRY_POINTS[entry](mt, mt.from_numpy(a.copy())))
    expected = ENTRY_POINTS[entry](rt, rt.from_numpy(a.copy()))[1].numpy()
    assert s.dtype == expected.dtype
    np.testing.assert_allclose(s, expected, rtol=1e-9 if dtype == "float64" else 0,
                               atol=50 * eps * float(expected.max()))
    assert not ((s == 0) & (expected != 0)).any(), (s, expected)
    _check_factors(u, s, vh, a, eps)


@pytest.mark.parametrize("entry", ["linalg.svdvals", "svd_no_uv"])
def test_values_alone_keep_small_values(entry):
    a = _matrix(0, 30, 30, 1e10, np.float32)
    values = {"linalg.svdvals": lambda T, x: T.linalg.svdvals(x),
              "svd_no_uv": lambda T, x: T.svd(x, compute_uv=False)[1]}[entry]
    ours, theirs = values(mt, mt.from_numpy(a.copy())).numpy(), values(rt, rt.from_numpy(a.copy())).numpy()
    assert (theirs > 0).all() and (ours > 0).all(), ours
    np.testing.assert_allclose(ours, theirs, atol=50 * np.finfo(np.float32).eps * theirs.max())


def test_smallest_triplets_are_not_zero_as_corda_kpm_reads_them():
    a = _matrix(1, 64, 64, 1e9, np.float32)
    products = []
    for T in (mt, rt):
        u, s, vh = T.linalg.svd(T.from_numpy(a.copy()), full_matrices=False)
        products.append(float((u[:, -8:] * s[-8:].sqrt()).abs().max()))
    assert products[0] > 0 and products[1] > 0, products


@pytest.mark.parametrize("entry", ["linalg.svd", "svd", "linalg.svdvals"])
def test_non_finite_input_raises_torch_error(entry):
    call = {"linalg.svd": lambda T, x: T.linalg.svd(x), "svd": lambda T, x: T.svd(x),
            "linalg.svdvals": lambda T, x: T.linalg.svdvals(x)}[entry]
    messages = []
    for T in (mt, rt):
        with pytest.raises(T.linalg.LinAlgError) as caught:
            call(T, T.tensor([[float("nan"), 1.0], [1.0, 2.0]]))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
