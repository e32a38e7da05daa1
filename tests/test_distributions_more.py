"""torch.distributions against real PyTorch, as a table of distributions x quantities: log_prob, entropy, mean,
variance, stddev, mode, cdf and icdf values and their gradients with respect to every parameter (float32 and
float64); KL divergences for the registered pairs; transforms; draws by shape and statistics (the shim's
generator gives other numbers than torch's)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    (
      'torch.distributions.Normal', 'torch.distributions.Uniform', 'torch.distributions.Exponential',
      'torch.distributions.Laplace', 'torch.distributions.Cauchy', 'torch.distributions.Gumbel',
      'torch.distributions.LogNormal', 'torch.distributions.HalfNormal', 'torch.distributions.Gamma',
      'torch.distributions.Chi2', 'torch.distributions.Beta', 'torch.distributions.Dirichlet',
      'torch.distributions.StudentT', 'torch.distributions.Poisson', 'torch.distributions.Bernoulli',
      'torch.distributions.Geometric', 'torch.distributions.Binomial', 'torch.distributions.Multinomial',
      'torch.distributions.Independent', 'torch.distributions.TransformedDistribution',
      'torch.distributions.HalfCauchy', 'torch.distributions.Pareto', 'torch.distributions.Weibull',
      'torch.distributions.InverseGamma', 'torch.distributions.NegativeBinomial',
      'torch.distributions.AffineTransform', 'torch.distributions.SigmoidTransform',
      'torch.distributions.TanhTransform', 'torch.distributions.ExpTransform',
    ): ['test_quantity_and_gradients_match_torch'],
    (
      'torch.distributions.Categorical', 'torch.distributions.OneHotCategorical',
    ): ['test_categorical_quantity_and_gradients_match_torch'],
    (
      'torch.distributions.kl_divergence', 'torch.distributions.register_kl',
    ): ['test_kl_divergence_matches_torch', 'test_kl_dispatch_uses_registrations_and_subclasses'],
    (
      'torch.distributions.PowerTransform', 'torch.distributions.SoftplusTransform',
      'torch.distributions.ComposeTransform', 'torch.distributions.AbsTransform',
      'torch.distributions.IndependentTransform', 'torch.distributions.ReshapeTransform',
      'torch.distributions.identity_transform',
    ): ['test_transforms_forward_inverse_and_jacobian_match_torch'],
    (
      'torch.distributions.SoftmaxTransform',
    ): ['test_softmax_transform_matches_torch'],
    (
      'torch.distributions.RelaxedBernoulli', 'torch.distributions.RelaxedOneHotCategorical',
    ): ['test_relaxed_distributions_log_prob_and_gradients_match_torch'],
}


TOL = {"float64": (1e-8, 1e-9), "float32": (2e-5, 2e-6)}
_rng = np.random.default_rng(11)


def _pos(*shape, low=0.5, high=3.0):
    return _rng.uniform(low, high, shape)


def _real(*shape):
    return _rng.standard_normal(shape)


def _unit(*shape):
    return _rng.uniform(0.1, 0.9, shape)


def _simplex(*shape):
    a = _rng.uniform(0.1, 1.0, shape)
    return a / a.sum(-1, keepdims=True)


# name -> (constructor over the module T and parameter tensors, parameter arrays, value array, quantities)
DIST = {
    "Normal": (lambda T, a, b: T.distributions.Normal(a, b), [_real(4), _pos(4)], _real(3, 4),
               "log_prob entropy mean variance stddev mode cdf icdf"),
    "Uniform": (lambda T, a, b: T.distributions.Uniform(a, a + b), [_real(4), _pos(4)], None,
                "entropy mean variance stddev icdf"),
    "Exponential": (lambda T, r: T.distributions.Exponential(r), [_pos(4)], _pos(2, 4),
                    "log_prob entropy mean variance stddev cdf icdf"),
    "Laplace": (lambda T, a, b: T.distributions.Laplace(a, b), [_real(4), _pos(4)], _real(3, 4),
                "log_prob entropy mean variance stddev cdf icdf"),
    "Cauchy": (lambda T, a, b: T.distributions.Cauchy(a, b), [_real(4), _pos(4)], _real(3, 4),
               "log_prob entropy cdf icdf"),
    "Gumbel": (lambda T, a, b: T.distributions.Gumbel(a, b), [_real(4), _pos(4)], _real(3, 4),
               "log_prob entropy mean variance stddev cdf icdf"),
    "LogNormal": (lambda T, a, b: T.distributions.LogNormal(a, b), [_real(4) * 0.3, _pos(4, low=0.2, high=1.0)],
                  _pos(3, 4), "log_prob entropy mean variance mode cdf icdf"),
    "HalfNormal": (lambda T, s: T.distributions.HalfNormal(s), [_pos(4)], _pos(3, 4),
                   "log_prob entropy mean variance cdf icdf"),
    "Gamma": (lambda T, a, b: T.distributions.Gamma(a, b), [_pos(4), _pos(4)], _pos(3, 4),
              "log_prob entropy mean variance mode"),
    "Chi2": (lambda T, df: T.distributions.Chi2(df), [_pos(4, low=1.0, high=5.0)], _pos(3, 4),
             "log_prob entropy mean variance"),
    "Beta": (lambda T, a, b: T.distributions.Beta(a, b), [_pos(4), _pos(4)], _unit(3, 4),
             "log_prob entropy mean variance"),
    "Dirichlet": (lambda T, c: T.distributions.Dirichlet(c), [_pos(2, 3)], _simplex(2, 3),
                  "log_prob entropy mean variance"),
    "StudentT": (lambda T, df, a, b: T.distributions.StudentT(df, a, b), [_pos(4, low=2.5, high=6.0), _real(4),
                                                                         _pos(4)], _real(3, 4),
                 "log_prob entropy mean variance mode"),
    "Poisson": (lambda T, r: T.distributions.Poisson(r), [_pos(4)], np.array([[0.0, 1.0, 3.0, 7.0]]),
                "log_prob mean variance mode"),
    "Bernoulli_probs": (lambda T, p: T.distributions.Bernoulli(probs=p), [_unit(4)],
                        np.array([[0.0, 1.0, 1.0, 0.0]]), "log_prob entropy mean variance"),
    "Bernoulli_logits": (lambda T, l: T.distributions.Bernoulli(logits=l), [_real(4)],
                         np.array([[1.0, 0.0, 1.0, 0.0]]), "log_prob entropy mean variance"),
    "Geometric": (lambda T, p: T.distributions.Geometric(probs=p), [_unit(4)], np.array([[0.0, 1.0, 4.0, 2.0]]),
                  "log_prob entropy mean variance"),
    "Binomial": (lambda T, p: T.distributions.Binomial(5, probs=p), [_unit(4)], np.array([[0.0, 1.0, 5.0, 2.0]]),
                 "log_prob entropy mean variance"),
    "Multinomial": (lambda T, p: T.distributions.Multinomial(6, probs=p), [_simplex(2, 3)],
                    np.array([[1.0, 2.0, 3.0], [0.0, 6.0, 0.0]]), "log_prob mean variance"),
    "HalfCauchy": (lambda T, s: T.distributions.HalfCauchy(s), [_pos(4)], _pos(3, 4),
                   "log_prob entropy cdf icdf"),
    "Pareto": (lambda T, s, a: T.distributions.Pareto(s, a), [_pos(4, low=0.5, high=1.0), _pos(4, low=0.5, high=4.0)],
               _pos(3, 4, low=1.1, high=3.0), "log_prob entropy mean variance mode cdf icdf"),
    "Weibull": (lambda T, s, k: T.distributions.Weibull(s, k), [_pos(4), _pos(4, low=1.2, high=3.0)], _pos(3, 4),
                "log_prob entropy mean variance mode cdf icdf"),
    "InverseGamma": (lambda T, a, b: T.distributions.InverseGamma(a, b), [_pos(4, low=0.5, high=4.0), _pos(4)],
                     _pos(3, 4), "log_prob entropy mean variance mode"),
    "NegativeBinomial": (lambda T, p: T.distributions.NegativeBinomial(3.5, probs=p), [_unit(4)],
                         np.array([[0.0, 1.0, 4.0, 2.0]]), "log_prob mean variance mode"),
    "Independent_Normal": (lambda T, a, b: T.distributions.Independent(T.distributions.Normal(a, b), 1),
                           [_real(2, 3), _pos(2, 3)], _real(2, 3), "log_prob entropy mean variance"),
    "Transformed_Sigmoid_Affine": (
        lambda T, a, b: T.distributions.TransformedDistribution(
            T.distributions.Normal(a, b), [T.distributions.AffineTransform(0.5, 2.0),
                                           T.distributions.SigmoidTransform()]),
        [_real(4), _pos(4)], _unit(3, 4), "log_prob cdf icdf"),
    "Transformed_Tanh_Exp_inverse": (
        lambda T, a, b: T.distributions.TransformedDistribution(
            T.distributions.Normal(a, b), [T.distributions.TanhTransform(), T.distributions.AffineTransform(
                2.0, 1.5), T.distributions.ExpTransform().inv]),
        [_real(4) * 0.5, _pos(4, low=0.3, high=1.0)], _real(3, 4) * 0.2 + 0.8, "log_prob"),
}
CATEGORICAL = {
    "Categorical_probs": (lambda T, p: T.distributions.Categorical(probs=p), [_simplex(2, 4) * 3.0],
                          np.array([[0, 3], [2, 1], [1, 1]]), "log_prob entropy"),
    "Categorical_logits": (lambda T, l: T.distributions.Categorical(logits=l), [_real(2, 4)],
                           np.array([[0, 3], [2, 1]]), "log_prob entropy"),
    "OneHotCategorical": (lambda T, l: T.distributions.OneHotCategorical(logits=l), [_real(2, 4)],
                          np.eye(4)[[[1, 3], [0, 2]]], "log_prob entropy mean variance"),
}
ICDF_PROBS = _rng.uniform(0.05, 0.95, (3, 4))


def _quantity(dist, name, value, T, dtype):
    if name in ("log_prob", "cdf"):
        return getattr(dist, name)(T.tensor(value.astype(dtype)))
    if name == "icdf":
        return dist.icdf(T.tensor(ICDF_PROBS.astype(dtype)))
    if name == "entropy":
        return dist.entropy()
    return getattr(dist, name)


def _evaluate(T, build, params, value, quantity, dtype, value_dtype=None):
    leaves = [T.tensor(p.astype(dtype), requires_grad=True) for p in params]
    dist = build(T, *leaves)
    out = _quantity(dist, quantity, value if value_dtype is None else value, T, value_dtype or dtype)
    w = np.random.default_rng(3).standard_normal(tuple(out.shape))
    (out.double() * T.tensor(w)).sum().backward()
    grads = [None if leaf.grad is None else leaf.grad.numpy() for leaf in leaves]
    return out.detach().numpy(), str(out.dtype), tuple(out.shape), grads


def _compare(build, params, value, quantity, dtype, value_dtype=None):
    expected = _evaluate(rt, build, params, value, quantity, dtype, value_dtype)
    actual = _evaluate(mt, build, params, value, quantity, dtype, value_dtype)
    rtol, atol = TOL[np.dtype(dtype).name]
    assert actual[1:3] == expected[1:3]
    np.testing.assert_allclose(actual[0], expected[0], rtol=rtol, atol=atol)
    for got, want in zip(actual[3], expected[3]):
        if want is None:
            assert got is None or not np.any(got)
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _table(cases):
    return [(name, q) for name, case in cases.items() for q in case[3].split()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, quantity", _table(DIST))
def test_quantity_and_gradients_match_torch(name, quantity, dtype):
    build, params, value, _ = DIST[name]
    _compare(build, params, value, quantity, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, quantity", _table(CATEGORICAL))
def test_categorical_quantity_and_gradients_match_torch(name, quantity, dtype):
    build, params, value, _ = CATEGORICAL[name]
    _compare(build, params, value, quantity, dtype,
             value_dtype=np.int64 if name.startswith("Categorical") else None)


KL_PAIRS = {
    "Normal": (lambda T, a, b, c, d: (T.distributions.Normal(a, b), T.distributions.Normal(c, d)), "rprp"),
    "Exponential": (lambda T, a, b: (T.distributions.Exponential(a), T.distributions.Exponential(b)), "pp"),
    "Laplace": (lambda T, a, b, c, d: (T.distributions.Laplace(a, b), T.distributions.Laplace(c, d)), "rprp"),
    "Gamma": (lambda T, a, b, c, d: (T.distributions.Gamma(a, b), T.distributions.Gamma(c, d)), "pppp"),
    "Beta": (lambda T, a, b, c, d: (T.distributions.Beta(a, b), T.distributions.Beta(c, d)), "pppp"),
    "Poisson": (lambda T, a, b: (T.distributions.Poisson(a), T.distributions.Poisson(b)), "pp"),
    "Bernoulli": (lambda T, a, b: (T.distributions.Bernoulli(probs=a), T.distributions.Bernoulli(probs=b)), "uu"),
    "Geometric": (lambda T, a, b: (T.distributions.Geometric(probs=a), T.distributions.Geometric(probs=b)), "uu"),
    "Gumbel": (lambda T, a, b, c, d: (T.distributions.Gumbel(a, b), T.distributions.Gumbel(c, d)), "rprp"),
    "LogNormal": (lambda T, a, b, c, d: (T.distributions.LogNormal(a, b), T.distributions.LogNormal(c, d)), "rprp"),
    "HalfNormal": (lambda T, a, b: (T.distributions.HalfNormal(a), T.distributions.HalfNormal(b)), "pp"),
    "Uniform_inside": (lambda T, a, b: (T.distributions.Uniform(a, a + 1), T.distributions.Uniform(a - b, a + 2)),
                       "rp"),
    "Uniform_outside": (lambda T, a, b: (T.distributions.Uniform(a - b, a + 1), T.distributions.Uniform(a, a + 2)),
                        "rp"),
    "Categorical": (lambda T, a, b: (T.distributions.Categorical(logits=a), T.distributions.Categorical(logits=b)),
                    "RR"),
    "OneHotCategorical": (lambda T, a, b: (T.distributions.OneHotCategorical(probs=a),
                                           T.distributions.OneHotCategorical(probs=b)), "SS"),
    "Dirichlet": (lambda T, a, b: (T.distributions.Dirichlet(a), T.distributions.Dirichlet(b)), "PP"),
    "Independent": (lambda T, a, b, c, d: (T.distributions.Independent(T.distributions.Normal(a, b), 1),
                                           T.distributions.Independent(T.distributions.Normal(c, d), 1)), "RPRP"),
}
_MAKERS = {"r": lambda: _real(4), "p": lambda: _pos(4), "u": lambda: _unit(4), "R": lambda: _real(2, 3),
           "P": lambda: _pos(2, 3), "S": lambda: _simplex(2, 3)}
KL_PARAMS = {name: [_MAKERS[k]() for k in kinds] for name, (_, kinds) in KL_PAIRS.items()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(KL_PAIRS))
def test_kl_divergence_matches_torch(name, dtype):
    build = KL_PAIRS[name][0]

    def run(T):
        leaves = [T.tensor(p.astype(dtype), requires_grad=True) for p in KL_PARAMS[name]]
        out = T.distributions.kl_divergence(*build(T, *leaves))
        finite = np.isfinite(out.detach().numpy())
        masked = T.where(T.tensor(finite), out, T.zeros_like(out))
        masked.sum().backward()
        return out.detach().numpy(), [None if l.grad is None else l.grad.numpy() for l in leaves]

    (got, got_grads), (want, want_grads) = run(mt), run(rt)
    rtol, atol = TOL[np.dtype(dtype).name]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    for g, w in zip(got_grads, want_grads):
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def test_kl_dispatch_uses_registrations_and_subclasses():
    D = mt.distributions

    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(mt.tensor(0.0), mt.tensor(1.0)), D.Normal(mt.tensor(1.0), mt.tensor(2.0))
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), D.kl_divergence(D.Normal(0.0, 1.0), q).numpy())
    with pytest.raises(NotImplementedError, match="Exponential"):
        D.kl_divergence(D.Exponential(mt.tensor(1.0)), q)

    @D.register_kl(MyNormal, D.Normal)
    def _custom(p, q):
        return mt.tensor(42.0)

    assert float(D.kl_divergence(p, q)) == 42.0


@pytest.mark.parametrize("transform", ["exp", "sigmoid", "tanh", "affine", "power", "softplus", "compose", "abs",
                                       "identity", "independent", "reshape"])
def test_transforms_forward_inverse_and_jacobian_match_torch(transform):
    x = _real(3, 4) * 0.7

    def run(T):
        D = T.distributions
        t = {"exp": D.ExpTransform(), "sigmoid": D.SigmoidTransform(), "tanh": D.TanhTransform(),
             "affine": D.AffineTransform(T.tensor(0.3), T.tensor(-1.7)),
             "power": D.ComposeTransform([D.ExpTransform(), D.PowerTransform(T.tensor(1.5))]),
             "softplus": D.SoftplusTransform(),
             "compose": D.ComposeTransform([D.AffineTransform(0.1, 2.0), D.TanhTransform(), D.ExpTransform()]),
             "abs": D.AbsTransform(), "identity": D.identity_transform,
             "independent": D.IndependentTransform(D.ExpTransform(), 1),
             "reshape": D.ReshapeTransform((4,), (2, 2)),
             }[transform]
        xt = T.tensor(x.reshape(3, 4) if transform != "reshape" else x)
        y = t(xt)
        try:
            jacobian = t.log_abs_det_jacobian(xt, y).numpy()
        except NotImplementedError:  # (AbsTransform has none, in torch too)
            jacobian = "not implemented"
        return [y.numpy(), t.inv(y).numpy(), jacobian]

    for got, want in zip(run(mt), run(rt)):
        if isinstance(want, str):
            assert got == want
        else:
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)


def test_softmax_transform_matches_torch():
    x = _real(2, 5)
    got = mt.distributions.SoftmaxTransform()(mt.tensor(x)).numpy()
    want = rt.distributions.SoftmaxTransform()(rt.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


SAMPLED = {
    "Normal": (lambda T: T.distributions.Normal(T.tensor([1.0, -2.0]), T.tensor([0.5, 2.0])), True),
    "Uniform": (lambda T: T.distributions.Uniform(T.tensor([0.0, 2.0]), T.tensor([1.0, 5.0])), True),
    "Exponential": (lambda T: T.distributions.Exponential(T.tensor([0.5, 3.0])), True),
    "Laplace": (lambda T: T.distributions.Laplace(T.tensor([1.0, -1.0]), T.tensor([0.5, 1.5])), True),
    "Gumbel": (lambda T: T.distributions.Gumbel(T.tensor([1.0, -1.0]), T.tensor([0.5, 1.5])), False),
    "LogNormal": (lambda T: T.distributions.LogNormal(T.tensor([0.0, 0.5]), T.tensor([0.25, 0.5])), True),
    "HalfNormal": (lambda T: T.distributions.HalfNormal(T.tensor([0.5, 2.0])), True),
    "Gamma": (lambda T: T.distributions.Gamma(T.tensor([0.5, 4.0]), T.tensor([1.0, 2.0])), True),
    "Beta": (lambda T: T.distributions.Beta(T.tensor([0.5, 4.0]), T.tensor([2.0, 2.0])), True),
    "Chi2": (lambda T: T.distributions.Chi2(T.tensor([3.0, 6.0])), True),
    "StudentT": (lambda T: T.distributions.StudentT(T.tensor([5.0, 8.0]), T.tensor([1.0, 0.0])), True),
    "Poisson": (lambda T: T.distributions.Poisson(T.tensor([0.5, 6.0])), False),
    "Bernoulli": (lambda T: T.distributions.Bernoulli(probs=T.tensor([0.2, 0.7])), False),
    "Geometric": (lambda T: T.distributions.Geometric(probs=T.tensor([0.3, 0.7])), False),
    "Binomial": (lambda T: T.distributions.Binomial(7, probs=T.tensor([0.3, 0.6])), False),
    "Weibull": (lambda T: T.distributions.Weibull(T.tensor([1.0, 2.0]), T.tensor([1.5, 3.0])), True),
    "InverseGamma": (lambda T: T.distributions.InverseGamma(T.tensor([5.0, 7.0]), T.tensor([2.0, 1.0])), False),
    "NegativeBinomial": (lambda T: T.distributions.NegativeBinomial(T.tensor([3.0, 10.0]),
                                                                    probs=T.tensor([0.3, 0.6])), False),
    "Pareto": (lambda T: T.distributions.Pareto(T.tensor([1.0, 2.0]), T.tensor([5.0, 6.0])), True),
}


@pytest.mark.parametrize("name", list(SAMPLED))
def test_draws_have_torchs_shape_dtype_and_statistics(name):
    build, reparameterised = SAMPLED[name]
    mt.manual_seed(0)
    ours, theirs = build(mt), build(rt)
    draws = (ours.rsample if reparameterised else ours.sample)((20000,))
    reference = theirs.sample((20000,))
    assert tuple(draws.shape) == tuple(reference.shape) == (20000, 2)
    assert str(draws.dtype) == str(reference.dtype)
    values = draws.numpy()
    mean, var = theirs.mean.numpy(), theirs.variance.numpy()
    assert np.all(np.abs(values.mean(0) - mean) < 6 * np.sqrt(var / 20000)), (values.mean(0), mean)
    np.testing.assert_allclose(values.var(0), var, rtol=0.1)


def test_categorical_draws_follow_probs_and_shapes():
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    mt.manual_seed(0)
    dist = mt.distributions.Categorical(probs=mt.tensor(probs))
    draws = dist.sample((30000,))
    assert tuple(draws.shape) == (30000, 2) and str(draws.dtype) == "torch.int64"
    freq = np.stack([np.bincount(draws.numpy()[:, i], minlength=3) / 30000 for i in range(2)])
    np.testing.assert_allclose(freq, probs, atol=0.015)
    one_hot = mt.distributions.OneHotCategorical(probs=mt.tensor(probs)).sample((5,))
    assert tuple(one_hot.shape) == (5, 2, 3) and bool((one_hot.sum(-1) == 1).all())
    counts = mt.distributions.Multinomial(10, probs=mt.tensor(probs)).sample((4,))
    assert tuple(counts.shape) == (4, 2, 3) and bool((counts.sum(-1) == 10).all())


def test_rsample_gradients_match_torch_for_location_scale_families():
    # the same standard draw on both sides: gradients of sum(rsample) with respect to loc and scale
    for family in ("Normal", "Laplace", "Exponential", "Uniform"):
        loc = mt.tensor([0.5, -1.0], requires_grad=True)
        scale = mt.tensor([2.0, 0.5], requires_grad=True)
        dist = {"Normal": lambda: mt.distributions.Normal(loc, scale),
                "Laplace": lambda: mt.distributions.Laplace(loc, scale),
                "Exponential": lambda: mt.distributions.Exponential(scale),
                "Uniform": lambda: mt.distributions.Uniform(loc, loc + scale)}[family]()
        mt.manual_seed(1)
        draws = dist.rsample((1000,))
        draws.sum().backward()
        values = draws.detach().numpy()
        l, s = np.array([0.5, -1.0]), np.array([2.0, 0.5])
        if family == "Exponential":
            # x = e / rate: dx/drate = -x / rate
            np.testing.assert_allclose(scale.grad.numpy(), -(values / s).sum(0), rtol=1e-5)
            continue
        # x = loc + scale * e: dx/dloc = 1, dx/dscale = e = (x - loc) / scale
        standard = (values - l) / s
        np.testing.assert_allclose(loc.grad.numpy(), [1000.0, 1000.0], rtol=1e-6)
        np.testing.assert_allclose(scale.grad.numpy(), standard.sum(0), rtol=1e-4, atol=1e-3)


def test_gamma_rsample_with_concentration_gradient_raises():
    conc = mt.tensor([2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="concentration"):
        mt.distributions.Gamma(conc, mt.tensor([1.0])).rsample()
    # sample() and a rate gradient work
    assert tuple(mt.distributions.Gamma(conc, mt.tensor([1.0])).sample((3,)).shape) == (3, 1)
    rate = mt.tensor([2.0], requires_grad=True)
    mt.distributions.Gamma(mt.tensor([2.0]), rate).rsample((5,)).sum().backward()
    assert rate.grad is not None and float(rate.grad.sum()) < 0


def test_argument_validation_matches_torch():
    D = mt.distributions
    with pytest.raises(ValueError):
        D.Normal(mt.tensor([0.0]), mt.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.Bernoulli(probs=mt.tensor([1.5]))
    with pytest.raises(ValueError):
        D.Bernoulli(probs=mt.tensor([0.5]), logits=mt.tensor([0.0]))
    with pytest.raises(ValueError):
        D.Exponential(mt.tensor([1.0])).log_prob(mt.tensor([-1.0]))
    assert D.Normal(mt.tensor([0.0]), mt.tensor([-1.0]), validate_args=False).batch_shape == (1,)


def test_shapes_of_batched_and_event_distributions():
    D = mt.distributions
    ind = D.Independent(D.Normal(mt.zeros(3, 4, 5), mt.ones(3, 4, 5)), 2)
    assert ind.batch_shape == (3,) and ind.event_shape == (4, 5)
    assert tuple(ind.sample((2,)).shape) == (2, 3, 4, 5)
    assert tuple(ind.log_prob(mt.zeros(3, 4, 5)).shape) == (3,)
    cat = D.Categorical(logits=mt.zeros(2, 6))
    assert cat.batch_shape == (2,) and cat.event_shape == () and tuple(cat.enumerate_support().shape) == (6, 2)
    dirichlet = D.Dirichlet(mt.ones(2, 3))
    assert dirichlet.batch_shape == (2,) and dirichlet.event_shape == (3,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_probabilities_at_zero_and_one_clamp_like_torch(dtype):
    # eps-clamped probabilities: 1 - eps and tiny must stay exact in float64 (not rounded through float32)
    probs = np.array([0.0, 1.0, 0.5, 1e-300 if dtype == np.float64 else 1e-30], dtype)
    value = np.array([0.0, 1.0, 1.0, 0.0], dtype)
    for name in ("Bernoulli", "Geometric"):
        got = getattr(mt.distributions, name)(probs=mt.tensor(probs), validate_args=False)
        want = getattr(rt.distributions, name)(probs=rt.tensor(probs), validate_args=False)
        np.testing.assert_allclose(got.logits.numpy(), want.logits.numpy(), rtol=1e-12)
        # (F.binary_cross_entropy_with_logits rounds differently from torch's at one ulp of 1: an absolute
        # tolerance of that size)
        np.testing.assert_allclose(got.log_prob(mt.tensor(value)).numpy(), want.log_prob(rt.tensor(value)).numpy(),
                                   rtol=1e-12, atol=2 * np.finfo(dtype).eps)
    cat_probs = np.array([[0.0, 0.3, 0.7]], dtype)
    got = mt.distributions.Categorical(probs=mt.tensor(cat_probs)).entropy().numpy()
    want = rt.distributions.Categorical(probs=rt.tensor(cat_probs)).entropy().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    x = np.array([-800.0, 0.3, 800.0], dtype)
    got = mt.distributions.SigmoidTransform()(mt.tensor(x)).numpy()
    want = rt.distributions.SigmoidTransform()(rt.tensor(x)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relaxed_distributions_log_prob_and_gradients_match_torch(dtype):
    value_b = _unit(3, 4)
    value_c = _simplex(3, 2, 4)

    def run(T):
        logits = T.tensor(RELAXED_LOGITS.astype(dtype), requires_grad=True)
        temperature = T.tensor(np.array(0.7, dtype), requires_grad=True)
        b = T.distributions.RelaxedBernoulli(temperature, logits=logits[0])
        c = T.distributions.RelaxedOneHotCategorical(temperature, logits=logits)
        out = b.log_prob(T.tensor(value_b.astype(dtype))).sum() + c.log_prob(T.tensor(value_c.astype(dtype))).sum()
        out.backward()
        return out.detach().numpy(), logits.grad.numpy(), temperature.grad.numpy()

    rtol, atol = TOL[np.dtype(dtype).name]
    for a, b in zip(run(mt), run(rt)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


RELAXED_LOGITS = _real(2, 4)


def test_relaxed_draws_lie_in_their_support_and_carry_gradients():
    mt.manual_seed(0)
    logits = mt.tensor(RELAXED_LOGITS, requires_grad=True)
    draws = mt.distributions.RelaxedOneHotCategorical(mt.tensor(0.5), logits=logits).rsample((500,))
    assert tuple(draws.shape) == (500, 2, 4)
    np.testing.assert_allclose(draws.sum(-1).detach().numpy(), 1.0, rtol=1e-6)
    draws.max(-1)[0].sum().backward()
    assert float(logits.grad.abs().sum()) > 0
    b = mt.distributions.RelaxedBernoulli(mt.tensor(0.5), probs=mt.tensor([0.2, 0.9])).rsample((4000,)).numpy()
    assert b.min() > 0 and b.max() < 1 and abs((b > 0.5).mean(0) - [0.2, 0.9]).max() < 0.05
