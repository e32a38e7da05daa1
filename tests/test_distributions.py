"""torch.distributions against real PyTorch: the constraints' checks and MultivariateNormal's densities,
moments and shapes (draws come from the shim's generator, so they are compared by their statistics)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(7)
_A = _rng.standard_normal((6, 3)).astype(np.float32)
COV = (_A.T @ _A / 6 + 0.1 * np.eye(3)).astype(np.float32)
LOC = np.array([0.5, -1.0, 2.0], np.float32)
POINTS = _rng.standard_normal((5, 3)).astype(np.float32)


def values(t):
    return np.array(t.detach().numpy())


MATRICES = {
    "spd": COV,
    "negative_definite": -COV,
    "zeros": np.zeros((3, 3), np.float32),
    "asymmetric": np.array([[1.0, 2.0], [0.0, 1.0]], np.float32),
    "not_square": np.ones((2, 3), np.float32),
    "batch_mixed": np.stack([COV, -COV, np.eye(3, dtype=np.float32), np.diag([1.0, 0.0, 1.0]).astype(np.float32)]),
    "tiny_scale": (1e-9 * COV).astype(np.float32),  # what transformers' mean resizing checks
    "nan": np.full((2, 2), np.nan, np.float32),
}
CONSTRAINTS = ("positive_definite", "symmetric", "square", "lower_cholesky", "lower_triangular", "real_vector",
               "real", "positive")


@pytest.mark.parametrize("constraint", CONSTRAINTS)
@pytest.mark.parametrize("matrix", sorted(MATRICES))
def test_constraint_check_matches_torch(constraint, matrix):
    m = getattr(mt.distributions.constraints, constraint).check(mt.tensor(MATRICES[matrix]))
    r = getattr(rt.distributions.constraints, constraint).check(rt.tensor(MATRICES[matrix]))
    assert str(m.dtype) == str(r.dtype) and tuple(m.shape) == tuple(r.shape)
    np.testing.assert_array_equal(values(m), values(r))


def _both(build):
    return build(mt), build(rt)


PARAMETRIZATIONS = {
    "covariance": lambda T: T.distributions.MultivariateNormal(T.tensor(LOC), covariance_matrix=T.tensor(COV)),
    "precision": lambda T: T.distributions.MultivariateNormal(T.tensor(LOC),
                                                              precision_matrix=T.tensor(np.linalg.inv(COV))),
    "scale_tril": lambda T: T.distributions.MultivariateNormal(
        T.tensor(LOC), scale_tril=T.tensor(np.linalg.cholesky(COV).astype(np.float32))),
    "batched_loc": lambda T: T.distributions.MultivariateNormal(T.tensor(np.stack([LOC, -LOC])),
                                                                covariance_matrix=T.tensor(COV)),
}


@pytest.mark.parametrize("name", sorted(PARAMETRIZATIONS))
def test_multivariate_normal_matches_torch(name):
    m, r = _both(PARAMETRIZATIONS[name])
    assert tuple(m.batch_shape) == tuple(r.batch_shape) and tuple(m.event_shape) == tuple(r.event_shape)
    for attr in ("mean", "variance", "stddev", "covariance_matrix", "scale_tril", "precision_matrix"):
        np.testing.assert_allclose(values(getattr(m, attr)), values(getattr(r, attr)), rtol=1e-4, atol=1e-5,
                                   err_msg=attr)
    np.testing.assert_allclose(values(m.entropy()), values(r.entropy()), rtol=1e-5, atol=1e-5)
    points = POINTS[:, None, :] if len(r.batch_shape) else POINTS
    np.testing.assert_allclose(values(m.log_prob(mt.tensor(points))), values(r.log_prob(rt.tensor(points))),
                               rtol=1e-5, atol=1e-4)
    assert tuple(m.sample((4, 2)).shape) == tuple(r.sample((4, 2)).shape)
    assert repr(m) == repr(r)


def test_multivariate_normal_samples_have_its_moments_and_follow_the_seed():
    d = PARAMETRIZATIONS["covariance"](mt)
    mt.manual_seed(3)
    s = values(d.sample((40000,)))
    np.testing.assert_allclose(s.mean(0), LOC, atol=0.03)
    np.testing.assert_allclose(np.cov(s.T), COV, atol=0.03)
    mt.manual_seed(3)
    np.testing.assert_array_equal(values(d.sample((40000,))), s)
    assert not d.sample().requires_grad


def test_rsample_and_log_prob_carry_gradients_to_loc():
    def grads(T):
        loc = T.tensor(LOC, requires_grad=True)
        d = T.distributions.MultivariateNormal(loc, covariance_matrix=T.tensor(COV))
        d.log_prob(T.tensor(POINTS)).sum().backward()
        return values(loc.grad)

    np.testing.assert_allclose(grads(mt), grads(rt), rtol=1e-4, atol=1e-5)
    loc = mt.tensor(LOC, requires_grad=True)
    d = mt.distributions.MultivariateNormal(loc, covariance_matrix=mt.tensor(COV))
    d.rsample((3,)).sum().backward()
    np.testing.assert_allclose(values(loc.grad), np.full(3, 3.0))  # d(loc + L eps)/d loc = 1 per draw


@pytest.mark.parametrize("kwargs,error", [
    ({"covariance_matrix": -COV}, ValueError),  # fails positive_definite validation
    ({}, ValueError),  # no matrix
    ({"covariance_matrix": COV, "scale_tril": COV}, ValueError),  # two matrices
])
def test_multivariate_normal_argument_errors_match_torch(kwargs, error):
    for T in (mt, rt):
        with pytest.raises(error):
            T.distributions.MultivariateNormal(T.tensor(LOC), **{k: T.tensor(v) for k, v in kwargs.items()})


def test_validate_args_false_skips_the_check():
    for T in (mt, rt):
        d = T.distributions.MultivariateNormal(T.tensor(LOC), scale_tril=T.tensor(np.tril(COV)),
                                               validate_args=False)
        assert tuple(d.event_shape) == (3,)
