"""torch.special against real torch: every function on inputs across its domain (float32 and float64, and an
integer input where torch promotes it), values and the gradients of sum(out * w) where torch differentiates,
results that do not require grad where torch has no derivative."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from parity_check import check

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(11)
REAL = np.array([-3.5, -1.2, -0.3, 0.0, 0.4, 1.0, 2.5, 7.0])
POS = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 15.0])
UNIT = np.array([0.01, 0.2, 0.5, 0.77, 0.99])
WIDE = np.array([-30.0, -9.0, -4.0, -1.0, 0.0, 1.5, 5.0, 12.0])

# name -> (inputs, differentiable in torch)
UNARY = {
    "entr": ([np.array([0.0, 0.1, 0.5, 1.0, 3.0, -1.0])], True), "ndtr": ([WIDE], True),
    # (at x = -30 torch's float32 gradient loses 5 digits to cancellation: its values are compared below)
    "log_ndtr": ([WIDE[1:]], True), "ndtri": ([UNIT], True), "erfcx": ([WIDE], True), "i0e": ([REAL], True),
    "i1": ([REAL], True), "i1e": ([REAL], True), "exp2": ([REAL], True), "round": ([REAL * 1.3], True),
    "erf": ([REAL], True), "erfc": ([REAL], True), "expm1": ([REAL], True),
    "log1p": ([POS], True), "expit": ([REAL], True), "digamma": ([POS], True), "psi": ([POS], True),
    "gammaln": ([POS], True), "i0": ([REAL], True), "logit": ([UNIT], True), "sinc": ([REAL], True),
    "bessel_j0": ([REAL], False), "bessel_j1": ([REAL], False), "bessel_y0": ([POS], False),
    "bessel_y1": ([POS], False), "modified_bessel_i0": ([REAL], False), "modified_bessel_i1": ([REAL], False),
    "modified_bessel_k0": ([POS], False), "modified_bessel_k1": ([POS], False),
    "scaled_modified_bessel_k0": ([POS], False), "scaled_modified_bessel_k1": ([POS], False),
    "spherical_bessel_j0": ([REAL], False), "airy_ai": ([REAL], False),
}
BINARY = {
    "xlog1py": ([np.array([0.0, 1.5, -2.0, 3.0]), np.array([0.5, 2.0, 0.1, 4.0])], True),
    "xlogy": ([np.array([0.0, 1.5, -2.0, 3.0]), np.array([0.5, 2.0, 0.1, 4.0])], True),
    "zeta": ([np.array([2.0, 3.5, 1.5, 4.0]), np.array([1.0, 0.5, 2.0, 3.0])], False),
    "gammainc": ([np.array([0.5, 1.0, 2.0, 4.0]), np.array([0.3, 1.0, 2.5, 1.0])], False),
    "gammaincc": ([np.array([0.5, 1.0, 2.0, 4.0]), np.array([0.3, 1.0, 2.5, 1.0])], False),
}
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
DTYPES = ["float32", "float64"]
# torch's float64 Bessel, Airy and zeta approximations are good to about 1e-9 relative, and near a zero of the
# function to about 3e-8 absolute (bessel_j1(7.0): mpmath and scipy -0.0046828235, torch -0.0046827973); the
# shim's (scipy's) agree with mpmath
F64 = (1e-8, 5e-8)

API_CENSUS = {
    ("torch.special.airy_ai", "torch.special.bessel_j0", "torch.special.bessel_j1",
     "torch.special.bessel_y0", "torch.special.bessel_y1", "torch.special.digamma", "torch.special.entr",
     "torch.special.erf", "torch.special.erfc", "torch.special.erfcx", "torch.special.exp2",
     "torch.special.expit", "torch.special.expm1", "torch.special.gammaln", "torch.special.i0",
     "torch.special.i0e", "torch.special.i1", "torch.special.i1e", "torch.special.log1p",
     "torch.special.log_ndtr", "torch.special.logit", "torch.special.modified_bessel_i0",
     "torch.special.modified_bessel_i1", "torch.special.modified_bessel_k0",
     "torch.special.modified_bessel_k1", "torch.special.ndtr", "torch.special.ndtri", "torch.special.psi",
     "torch.special.round", "torch.special.scaled_modified_bessel_k0",
     "torch.special.scaled_modified_bessel_k1", "torch.special.sinc", "torch.special.spherical_bessel_j0"):
        "test_unary_matches_torch",
    ("torch.special.gammainc", "torch.special.gammaincc", "torch.special.xlog1py", "torch.special.xlogy",
     "torch.special.zeta"):
        "test_binary_matches_torch",
    ("torch.special.chebyshev_polynomial_t", "torch.special.chebyshev_polynomial_u",
     "torch.special.chebyshev_polynomial_v", "torch.special.chebyshev_polynomial_w",
     "torch.special.shifted_chebyshev_polynomial_t", "torch.special.shifted_chebyshev_polynomial_u",
     "torch.special.shifted_chebyshev_polynomial_v", "torch.special.shifted_chebyshev_polynomial_w",
     "torch.special.hermite_polynomial_h", "torch.special.hermite_polynomial_he",
     "torch.special.laguerre_polynomial_l", "torch.special.legendre_polynomial_p"):
        "test_polynomial_matches_torch",
    "torch.special.polygamma": "test_polygamma_matches_torch",
    "torch.special.multigammaln": "test_multigammaln_matches_torch",
    ("torch.special.softmax", "torch.special.log_softmax", "torch.special.logsumexp"):
        "test_softmax_family_matches_torch",
    "torch.special.Tensor": "test_tensor_is_torch_tensor",
}


def _tol(dtype):
    return F64 if dtype == "float64" else None


def _call(name):
    return lambda T, *a: getattr(T.special, name)(*a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_torch(name, dtype):
    arrays, grad = UNARY[name]
    check(rt, mt, _call(name), arrays, dtype, grad=grad, tol=_tol(dtype))
    check(rt, mt, _call(name), [np.stack([a, a[::-1]]) for a in arrays], dtype, grad=grad, tol=_tol(dtype))  # 2-d
    if not grad:  # torch has no derivative: the result does not require grad
        x = mt.tensor(arrays[0].astype(dtype), requires_grad=True)
        assert not _call(name)(mt, x).requires_grad


def test_log_ndtr_far_tail_matches_torch():
    for dtype in DTYPES:
        check(rt, mt, _call("log_ndtr"), [np.array([-30.0, -80.0, -200.0])], dtype, grad=False)


def test_erfinv_float64_matches_torch():
    check(rt, mt, _call("erfinv"), [UNIT * 2 - 1], "float64")


def test_erfinv_float32_matches_torch():
    check(rt, mt, _call("erfinv"), [UNIT * 2 - 1], "float32")


@pytest.mark.parametrize("name", ["ndtr", "entr", "i1", "airy_ai", "exp2"])
def test_integer_input_promotes_like_torch(name):
    check(rt, mt, _call(name), [np.array([0, 1, 2, 5])], "int64", grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_matches_torch(name, dtype):
    arrays, grad = BINARY[name]
    check(rt, mt, _call(name), arrays, dtype, grad=grad, tol=_tol(dtype))
    # broadcasting and a Python number operand
    check(rt, mt, _call(name), [arrays[0].reshape(4, 1), arrays[1]], dtype, grad=grad, tol=_tol(dtype))
    if name not in ("gammainc", "gammaincc"):  # (torch takes no Python number there)
        check(rt, mt, lambda T, a: getattr(T.special, name)(a, 2.5), [arrays[0]], dtype, grad=grad,
              tol=_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_matches_torch(name, dtype):
    x = np.array([-1.5, -1.0, -0.6, 0.0, 0.3, 0.5, 0.9, 1.0, 1.7])
    if name.startswith("shifted"):
        x = (x + 1) / 2
    for n in (-1, 0, 1, 2, 5, 9):
        check(rt, mt, lambda T, a: getattr(T.special, name)(a, n), [x], dtype, grad=False,
              tol=(1e-5, 1e-5) if dtype == "float32" else F64)
    # a tensor of degrees broadcast against x
    check(rt, mt, lambda T, a, n: getattr(T.special, name)(a, n), [x.reshape(-1, 1), np.arange(4.0)], dtype,
          grad=False, tol=(1e-5, 1e-5) if dtype == "float32" else F64)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_matches_torch(n):
    for dtype in DTYPES:
        check(rt, mt, lambda T, a: T.special.polygamma(n, a), [POS], dtype, tol=_tol(dtype))


def test_multigammaln_matches_torch():
    for p in (1, 3):
        check(rt, mt, lambda T, a: T.special.multigammaln(a, p), [POS + 1.5], "float64")


def test_softmax_family_matches_torch():
    x = _rng.standard_normal((3, 4))
    for dtype in DTYPES:
        check(rt, mt, lambda T, a: T.special.softmax(a, 1), [x], dtype)
        check(rt, mt, lambda T, a: T.special.log_softmax(a, 0), [x], dtype)
        check(rt, mt, lambda T, a: T.special.logsumexp(a, 1), [x], dtype)


def test_tensor_is_torch_tensor():
    assert mt.special.Tensor is mt.Tensor and rt.special.Tensor is rt.Tensor


def test_out_argument():
    x = np.array([0.5, 1.0, 2.0])
    r_out, m_out = rt.empty(3, dtype=rt.float64), mt.empty(3, dtype=mt.float64)
    r = rt.special.ndtr(rt.tensor(x), out=r_out)
    m = mt.special.ndtr(mt.tensor(x), out=m_out)
    assert m is m_out and r is r_out
    np.testing.assert_allclose(m_out.numpy(), r_out.numpy(), rtol=1e-12)


def test_polygamma_rejects_what_torch_rejects():
    with pytest.raises(RuntimeError):
        mt.special.polygamma(-1, mt.tensor([1.0]))
    with pytest.raises(RuntimeError):
        rt.special.polygamma(-1, rt.tensor([1.0]))


def test_complex_input_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="complex"):
        mt.special.ndtr(mt.tensor([1 + 1j]))


def test_census_table_lists_what_the_tables_compare():
    declared = {n for key in API_CENSUS for n in ((key,) if isinstance(key, str) else key)}
    compared = {f"torch.special.{n}" for n in list(UNARY) + list(BINARY) + list(POLYNOMIALS)}
    assert compared <= declared
