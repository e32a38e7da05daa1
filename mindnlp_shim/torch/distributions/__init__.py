"""torch.distributions: the Distribution base, the common univariate and multivariate distributions, transforms,
the constraints they check and closed-form KL divergences.

Densities, moments, cdf/icdf and reparameterised draws are written with the shim's tensor ops, so gradients
flow through them. Draws come from the shim's generator (`torch.manual_seed` makes them reproducible).
Gamma-based draws (Gamma, Chi2, Beta, Dirichlet, StudentT) give no gradient with respect to their
concentration: `rsample` raises when that gradient is asked for (see _gamma_draws.py)."""
from . import constraints, transforms, utils  # noqa: F401
from . import (bernoulli, beta, binomial, categorical, cauchy, chi2, dirichlet, exp_family, exponential,  # noqa: F401
               gamma, geometric, gumbel, half_cauchy, half_normal, independent, inverse_gamma, kl, laplace,
               log_normal, multinomial, multivariate_normal, negative_binomial, normal, one_hot_categorical, pareto,
               poisson, relaxed_bernoulli, relaxed_categorical, studentT, transformed_distribution, uniform, weibull, wishart)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
                         PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, SoftplusTransform,
                         TanhTransform, Transform, identity_transform)
from .uniform import Uniform
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
           "ExponentialFamily", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal", "Independent",
           "Laplace", "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson",
           "StudentT", "TransformedDistribution", "Uniform", "kl_divergence", "register_kl", "AbsTransform",
           "AffineTransform", "ComposeTransform", "ExpTransform", "IndependentTransform", "PowerTransform",
           "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "TanhTransform",
           "Transform", "identity_transform", "HalfCauchy", "InverseGamma", "NegativeBinomial", "Pareto", "Weibull",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "Wishart"]
