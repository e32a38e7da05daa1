"""torch.linalg against real torch: each function on well-conditioned matrices (square, tall, wide, batched
and broadcast), float32 and float64, values and the gradients of sum(out * w). Eigenvectors and singular
vectors are unique only up to sign (phase): they are compared through quantities that do not depend on it
(v * v, |v|^2, reconstructions)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from parity_check import check

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(3)
DTYPES = ["float32", "float64"]
# a factorization or solve: several float32 ulps of rounding, amplified by the condition number (< 10 here)
TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}


def square(*lead, n=3):
    return np.eye(n) * 2 + 0.3 * _rng.standard_normal(lead + (n, n))


def spd(*lead, n=3):
    a = square(*lead, n=n)
    return a @ np.swapaxes(a, -1, -2) + np.eye(n)


def randn(*shape):
    return _rng.standard_normal(shape)


def symmetric_squares(T, out):
    return out * out


L = "linalg"
# name -> list of (fn(T, *inputs), inputs)
CASES = {
    "cholesky": [(lambda T, a: T.linalg.cholesky(a), [spd()]),
                 (lambda T, a: T.linalg.cholesky(a, upper=True), [spd(2)])],
    "cholesky_ex": [(lambda T, a: T.linalg.cholesky_ex(a).L, [spd()])],
    "cross": [(lambda T, a, b: T.linalg.cross(a, b), [randn(4, 3), randn(4, 3)]),
              (lambda T, a, b: T.linalg.cross(a, b, dim=0), [randn(3, 2), randn(3, 1)])],
    "det": [(lambda T, a: T.linalg.det(a), [square(2)])],
    "slogdet": [(lambda T, a: T.linalg.slogdet(a), [square(2)])],
    "inv": [(lambda T, a: T.linalg.inv(a), [square()]), (lambda T, a: T.linalg.inv(a), [square(2)])],
    "inv_ex": [(lambda T, a: T.linalg.inv_ex(a), [square(2)])],
    "matmul": [(lambda T, a, b: T.linalg.matmul(a, b), [randn(2, 3, 4), randn(4, 2)])],
    "matrix_power": [(lambda T, a: T.linalg.matrix_power(a, 3), [square()]),
                     (lambda T, a: T.linalg.matrix_power(a, -2), [square()])],
    "vector_norm": [(lambda T, a: T.linalg.vector_norm(a), [randn(3, 4)]),
                    (lambda T, a: T.linalg.vector_norm(a, 1, dim=1, keepdim=True), [randn(3, 4)]),
                    (lambda T, a: T.linalg.vector_norm(a, float("inf"), dim=(0, 1)), [randn(3, 4)])],
    "norm": [(lambda T, a: T.linalg.norm(a), [randn(3, 4)]), (lambda T, a: T.linalg.norm(a, "fro"), [randn(3, 4)]),
             (lambda T, a: T.linalg.norm(a, "nuc"), [randn(3, 4)]), (lambda T, a: T.linalg.norm(a, 2), [randn(3, 4)]),
             (lambda T, a: T.linalg.norm(a, -1), [randn(3, 4)]), (lambda T, a: T.linalg.norm(a, 3), [randn(5)]),
             (lambda T, a: T.linalg.norm(a, float("inf"), dim=(0, 2)), [randn(3, 2, 4)]),
             (lambda T, a: T.linalg.norm(a, dim=1), [randn(3, 4)])],
    "matrix_norm": [(lambda T, a, o=o: T.linalg.matrix_norm(a, o), [randn(2, 3, 4)])
                    for o in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf"))]
                   + [(lambda T, a: T.linalg.matrix_norm(a, 1, dim=(2, 0), keepdim=True), [randn(3, 2, 4)])],
    "svdvals": [(lambda T, a: T.linalg.svdvals(a), [randn(4, 3)]), (lambda T, a: T.linalg.svdvals(a), [randn(2, 3, 5)])],
    # (real torch's backward fails for the p that go through inv_ex: those compare values)
    "cond": [(lambda T, a, p=p: T.linalg.cond(a, p), [square(2)]) for p in (None, 2, -2)]
            + [(lambda T, a, p=p: T.linalg.cond(a, p), [square(2)], False) for p in ("fro", "nuc", 1, float("inf"))],
    "matrix_rank": [(lambda T, a: T.linalg.matrix_rank(a), [randn(4, 3)]),
                    (lambda T, a: T.linalg.matrix_rank(a), [randn(4, 1) @ randn(1, 3)]),
                    (lambda T, a: T.linalg.matrix_rank(a, atol=1.0, rtol=0.0), [randn(2, 4, 3)]),
                    (lambda T, a: T.linalg.matrix_rank(a, hermitian=True), [spd()])],
    "solve": [(lambda T, a, b: T.linalg.solve(a, b), [square(), randn(3, 2)]),
              (lambda T, a, b: T.linalg.solve(a, b), [square(), randn(3)]),
              (lambda T, a, b: T.linalg.solve(a, b), [square(2), randn(3, 1)]),
              (lambda T, a, b: T.linalg.solve(a, b, left=False), [square(), randn(2, 3)])],
    "solve_ex": [(lambda T, a, b: T.linalg.solve_ex(a, b), [square(2), randn(2, 3, 2)])],
    "solve_triangular": [(lambda T, a, b, u=u, l=l, d=d: T.linalg.solve_triangular(a, b, upper=u, left=l,
                                                                                   unitriangular=d),
                          [square(), randn(3, 2) if l else randn(2, 3)])
                         for u in (True, False) for l in (True, False) for d in (False, True)],
    "pinv": [(lambda T, a: T.linalg.pinv(a), [randn(4, 3)]), (lambda T, a: T.linalg.pinv(a), [randn(2, 3)]),
             (lambda T, a: T.linalg.pinv(a), [square(2)]),
             (lambda T, a: T.linalg.pinv(a, hermitian=True), [spd()])],
    "lstsq": [(lambda T, a, b: T.linalg.lstsq(a, b), [randn(5, 3), randn(5, 2)]),
              (lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd"), [randn(5, 3), randn(5, 2)]),
              (lambda T, a, b: T.linalg.lstsq(a, b, driver="gels"), [randn(5, 3), randn(5, 2)]),
              (lambda T, a, b: T.linalg.lstsq(a, b).solution, [randn(2, 4), randn(2, 1)])],
    "tensorinv": [(lambda T, a: T.linalg.tensorinv(a, ind=2), [square(n=6).reshape(2, 3, 6)])],
    "tensorsolve": [(lambda T, a, b: T.linalg.tensorsolve(a, b), [square(n=6).reshape(2, 3, 6), randn(2, 3)]),
                    (lambda T, a, b: T.linalg.tensorsolve(a, b, dims=(0,)),
                     [square(n=6).reshape(6, 2, 3), randn(2, 3)])],
    "qr": [(lambda T, a: T.linalg.qr(a), [randn(5, 3)]), (lambda T, a: T.linalg.qr(a), [square(2)]),
           (lambda T, a: T.linalg.qr(a, mode="complete"), [square()]),
           (lambda T, a: T.linalg.qr(a, mode="r").R, [randn(4, 3)], False)],  # (no derivative without Q)
    "eigh": [(lambda T, a: (lambda r: (r.eigenvalues, r.eigenvectors * r.eigenvectors))(T.linalg.eigh(a)), [spd()]),
             (lambda T, a: (lambda r: (r[0], r[1] ** 2))(T.linalg.eigh(a, UPLO="U")), [spd(2)])],
    "eigvalsh": [(lambda T, a: T.linalg.eigvalsh(a), [spd(2)])],
    "eig": [(lambda T, a: (lambda r: (r.eigenvalues, T.abs(r.eigenvectors) ** 2))(T.linalg.eig(a)),
             [np.diag([1.0, 2.0, 3.5]) + 0.2 * randn(3, 3)])],
    "eigvals": [(lambda T, a: T.linalg.eigvals(a), [np.diag([1.0, 2.0, 3.5]) + 0.2 * randn(3, 3)]),
                (lambda T, a: T.linalg.eigvals(a), [np.array([[0.0, -1.0, 0.2], [1.0, 0.0, 0.1], [0.0, 0.3, 2.0]])])],
    "matrix_exp": [(lambda T, a: T.linalg.matrix_exp(a), [randn(3, 3)]),
                   (lambda T, a: T.linalg.matrix_exp(a), [3 * randn(2, 4, 4)])],
    "vander": [(lambda T, a: T.linalg.vander(a), [np.array([0.5, -1.5, 2.0, 1.2])]),
               (lambda T, a: T.linalg.vander(a, N=2), [randn(2, 3)])],
    "vecdot": [(lambda T, a, b: T.linalg.vecdot(a, b), [randn(3, 4), randn(4)]),
               (lambda T, a, b: T.linalg.vecdot(a, b, dim=0), [randn(3, 4), randn(3, 1)])],
    "multi_dot": [(lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), [randn(3), randn(3, 4), randn(4, 2)]),
                  (lambda T, a, b: T.linalg.multi_dot((a, b)), [randn(2, 3), randn(3)])],
    "lu_factor": [(lambda T, a: T.linalg.lu_factor(a), [square()]), (lambda T, a: T.linalg.lu_factor(a), [square(2)]),
                  (lambda T, a: T.linalg.lu_factor(a), [randn(4, 3)], False)],  # (rectangular: values)
    "lu_factor_ex": [(lambda T, a: T.linalg.lu_factor_ex(a), [square(2)])],
    "lu": [(lambda T, a: T.linalg.lu(a), [square()]), (lambda T, a: T.linalg.lu(a), [randn(3, 5)], False)],
    "lu_solve": [(lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b), [square(), randn(3, 2)]),
                 (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, adjoint=True), [square(), randn(3, 2)]),
                 (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, left=False), [square(2), randn(2, 3)])],
    "householder_product": [(lambda T, a, t: T.linalg.householder_product(a, t), [randn(4, 3), randn(3)]),
                            (lambda T, a, t: T.linalg.householder_product(a, t), [randn(2, 3, 3), randn(2, 2)]),
                            (lambda T, a, t: T.orgqr(a, t), [randn(4, 2), randn(2)])],
    "diagonal": [(lambda T, a: T.linalg.diagonal(a), [randn(2, 3, 4)]),
                 (lambda T, a: T.linalg.diagonal(a, offset=1, dim1=0, dim2=2), [randn(3, 2, 4)])],
}
API_CENSUS = {
    ("torch.linalg.cholesky", "torch.linalg.cholesky_ex", "torch.linalg.cross", "torch.linalg.det",
     "torch.linalg.slogdet", "torch.linalg.inv", "torch.linalg.inv_ex", "torch.linalg.matmul",
     "torch.linalg.matrix_power", "torch.linalg.vector_norm", "torch.linalg.norm", "torch.linalg.matrix_norm",
     "torch.linalg.svdvals", "torch.linalg.cond", "torch.linalg.matrix_rank", "torch.linalg.solve",
     "torch.linalg.solve_ex", "torch.linalg.solve_triangular", "torch.linalg.pinv", "torch.linalg.lstsq",
     "torch.linalg.tensorinv", "torch.linalg.tensorsolve", "torch.linalg.qr", "torch.linalg.eigh",
     "torch.linalg.eigvalsh", "torch.linalg.eig", "torch.linalg.eigvals", "torch.linalg.matrix_exp",
     "torch.linalg.vander", "torch.linalg.vecdot", "torch.linalg.multi_dot", "torch.linalg.diagonal",
     "torch.linalg.lu_factor", "torch.linalg.lu_factor_ex", "torch.linalg.lu", "torch.linalg.lu_solve",
     "torch.linalg.householder_product", "torch.orgqr"):
        "test_linalg_matches_torch",
    "torch.linalg.svd": "test_svd_matches_torch",
    "torch.linalg.LinAlgError": "test_singular_matrices_raise_linalg_error",
    ("torch.lu", "torch.lu_solve", "torch.lu_unpack"): "test_older_lu_spellings_match_torch",
}
NOT_DIFFERENTIABLE = {"matrix_rank"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_matches_torch(name, dtype):
    for fn, inputs, *grad in CASES[name]:  # (a third entry False: values only)
        grad = grad[0] if grad else name not in NOT_DIFFERENTIABLE
        check(rt, mt, fn, inputs, dtype, grad=grad, tol=TOL[dtype])


def _svd_invariants(T, a, full):
    U, S, Vh = T.linalg.svd(a, full_matrices=full)
    k = S.shape[-1]
    return S, U[..., :k] * U[..., :k], Vh[..., :k, :] * Vh[..., :k, :], (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]


@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_matches_torch(dtype):
    for a in (randn(4, 3), randn(2, 3, 5)):
        for full in (False, True):
            # (MindSpore's singular-vector gradients are float32-accurate: float64 compares values only)
            check(rt, mt, lambda T, x: _svd_invariants(T, x, full), [a], dtype, grad=dtype == "float32",
                  tol=TOL[dtype])


def test_singular_matrices_raise_linalg_error():
    assert issubclass(mt.linalg.LinAlgError, RuntimeError)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for fn in (lambda T, a: T.linalg.inv(a), lambda T, a: T.linalg.solve(a, T.ones(2, dtype=T.float64))):
        with pytest.raises(rt.linalg.LinAlgError):
            fn(rt, rt.tensor(singular))
        with pytest.raises(mt.linalg.LinAlgError):
            fn(mt, mt.tensor(singular))
    # the _ex variants report torch's info (the first zero pivot) instead
    batch = np.stack([singular, np.eye(2), np.zeros((2, 2))])
    r = rt.linalg.inv_ex(rt.tensor(batch)).info
    m = mt.linalg.inv_ex(mt.tensor(batch)).info
    assert m.numpy().tolist() == r.numpy().tolist() and str(m.dtype) == str(r.dtype)
    r = rt.linalg.solve_ex(rt.tensor(batch), rt.ones(3, 2, 1, dtype=rt.float64)).info
    m = mt.linalg.solve_ex(mt.tensor(batch), mt.ones(3, 2, 1, dtype=mt.float64)).info
    assert m.numpy().tolist() == r.numpy().tolist()
    np.testing.assert_allclose(mt.linalg.solve_ex(mt.tensor(batch), mt.ones(3, 2, 1, dtype=mt.float64)).result[1]
                               .numpy(), np.ones((2, 1)))


def test_older_lu_spellings_match_torch():
    a, b = square(2), randn(2, 3, 2)
    for dtype in DTYPES:
        check(rt, mt, lambda T, x: T.lu(x, get_infos=True), [a], dtype, tol=TOL[dtype])
        check(rt, mt, lambda T, x, y: T.lu_solve(y, *T.lu(x)), [a, b], dtype, tol=TOL[dtype])
        check(rt, mt, lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x)), [a], dtype, tol=TOL[dtype])


def test_wide_qr_gradient_raises_not_implemented():
    a = mt.tensor(randn(2, 4), requires_grad=True)
    q, r = mt.linalg.qr(a)
    with pytest.raises(NotImplementedError, match="linalg.qr"):
        (q.sum() + r.sum()).backward()


def test_out_arguments():
    a, b = square(), randn(3, 2)
    r_out, m_out = rt.empty(3, 2, dtype=rt.float64), mt.empty(3, 2, dtype=mt.float64)
    rt.linalg.solve(rt.tensor(a), rt.tensor(b), out=r_out)
    assert mt.linalg.solve(mt.tensor(a), mt.tensor(b), out=m_out) is m_out
    np.testing.assert_allclose(m_out.numpy(), r_out.numpy(), rtol=1e-12)
