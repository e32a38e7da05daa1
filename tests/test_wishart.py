"""torch.distributions.Wishart against real torch: densities, moments, entropy and shapes for generated scales,
degrees of freedom and batch shapes; draws checked by their law (the chi-squared draws are the shim's, so the
numbers are not torch's: docs/random.md)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")
API_CENSUS = {"torch.distributions.Wishart": "test_density_moments_and_entropy_are_torchs"}


def _positive_definite(rng, batch, p):
    a = rng.standard_normal(batch + (p, p))
    return a @ np.swapaxes(a, -1, -2) + p * np.eye(p)


def _make(T, df, matrix, form, dtype):
    tensor = T.tensor(matrix, dtype=dtype)
    kwargs = {"covariance_matrix": tensor,
              "precision_matrix": tensor,
              "scale_tril": T.linalg.cholesky(tensor)}
    return T.distributions.Wishart(T.tensor(df, dtype=dtype), **{form: kwargs[form]})


@settings(max_examples=40, deadline=None)
@given(p=st.integers(1, 4), batch=st.sampled_from([(), (2,), (2, 3)]),
       form=st.sampled_from(["covariance_matrix", "precision_matrix", "scale_tril"]),
       extra_df=st.floats(0.1, 6.0), dtype=st.sampled_from(["float64", "float32"]), seed=st.integers(0, 2**16))
def test_density_moments_and_entropy_are_torchs(p, batch, form, extra_df, dtype, seed):
    rng = np.random.default_rng(seed)
    matrix = _positive_definite(rng, batch, p)
    df = np.full(batch, p - 1 + extra_df)
    values = _positive_definite(rng, batch, p) / p
    tol = {"float64": dict(rtol=1e-9, atol=1e-9), "float32": dict(rtol=2e-4, atol=2e-4)}[dtype]
    got, want = _make(mt, df, matrix, form, getattr(mt, dtype)), _make(rt, df, matrix, form, getattr(rt, dtype))
    assert tuple(got.batch_shape) == tuple(want.batch_shape) and tuple(got.event_shape) == tuple(want.event_shape)
    for name in ("mean", "mode", "variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(getattr(got, name).numpy(), getattr(want, name).numpy(), **tol, err_msg=name)
    np.testing.assert_allclose(got.entropy().numpy(), want.entropy().numpy(), **tol)
    np.testing.assert_allclose(got.log_prob(mt.tensor(values, dtype=getattr(mt, dtype))).numpy(),
                               want.log_prob(rt.tensor(values, dtype=getattr(rt, dtype))).numpy(), **tol)


def test_draws_follow_the_law():
    """The mean of many draws is df * Sigma; every draw is symmetric positive definite; shapes are torch's."""
    rng = np.random.default_rng(0)
    sigma = _positive_definite(rng, (), 3) / 3
    mt.manual_seed(0)
    dist = mt.distributions.Wishart(mt.tensor(5.0, dtype=mt.float64), covariance_matrix=mt.tensor(sigma))
    draws = dist.rsample((20000,)).numpy()
    assert draws.shape == (20000, 3, 3)
    np.testing.assert_allclose(draws, np.swapaxes(draws, -1, -2), atol=1e-12)
    assert (np.linalg.eigvalsh(draws) > 0).all()
    # the sample mean of 20000 draws: within 5 standard errors of df * Sigma, elementwise
    standard_error = np.sqrt(dist.variance.numpy() / 20000)
    assert (np.abs(draws.mean(0) - 5.0 * sigma) < 5 * standard_error).all()
    bartlett = dist._bartlett_sampling(mt.Size([4]))
    assert tuple(bartlett.shape) == tuple(rt.distributions.Wishart(
        rt.tensor(5.0, dtype=rt.float64), covariance_matrix=rt.tensor(sigma))._bartlett_sampling(rt.Size([4])).shape)


@pytest.mark.parametrize("case", ["df too small", "two matrices", "vector"])
def test_bad_arguments_raise_as_in_torch(case):
    def build(T):
        eye = T.eye(3, dtype=T.float64)
        if case == "df too small":
            return T.distributions.Wishart(T.tensor(1.5, dtype=T.float64), covariance_matrix=eye)
        if case == "two matrices":
            return T.distributions.Wishart(T.tensor(5.0, dtype=T.float64), covariance_matrix=eye, scale_tril=eye)
        return T.distributions.Wishart(T.tensor(5.0, dtype=T.float64), covariance_matrix=T.ones(3))

    raised = []
    for T in (rt, mt):
        with pytest.raises(Exception) as info:
            build(T)
        raised.append(type(info.value).__name__)
    assert raised[1] == raised[0]


@pytest.mark.parametrize("df", [2.5, 3.5])
def test_low_degrees_of_freedom_warn_as_in_torch(df):
    import warnings

    seen = []
    for T in (rt, mt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.distributions.Wishart(T.tensor(df, dtype=T.float64), covariance_matrix=T.eye(3, dtype=T.float64))
        seen.append(sorted(str(w.message) for w in caught))
    assert seen[1] == seen[0]
