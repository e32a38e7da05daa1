"""torch.distributions.studentT.StudentT: Student's t with `df` degrees of freedom, shifted by `loc` and scaled
by `scale`."""
import math

from ... import torch
from . import constraints
from ._gamma_draws import standard_gamma
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return torch.where(self.df > 1, self.loc, torch.full_like(self.loc, float("nan")))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        infinite = torch.full_like(finite, float("inf"))
        undefined = torch.full_like(finite, float("nan"))
        return torch.where(self.df > 2, finite, torch.where(self.df > 1, infinite, undefined))

    def rsample(self, sample_shape=torch.Size()):
        # X / sqrt(Z / df), X standard normal, Z chi-squared(df) = 2 Gamma(df / 2, 1)
        shape = self._extended_shape(sample_shape)
        x = torch.randn(shape, dtype=self.df.dtype)
        z = 2 * standard_gamma(0.5 * self.df, shape, "StudentT")
        return self.loc + self.scale * x * torch.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + torch.lgamma(0.5 * self.df)
             - torch.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torch.log1p(y ** 2.0 / self.df) - z

    def entropy(self):
        lbeta = torch.lgamma(0.5 * self.df) + math.lgamma(0.5) - torch.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (torch.digamma(0.5 * (self.df + 1))
                                                          - torch.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
