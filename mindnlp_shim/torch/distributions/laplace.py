"""torch.distributions.laplace.Laplace: density exp(-|x - loc| / scale) / (2 scale)."""
from ... import torch
from ._location_scale import LocationScale
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(LocationScale, Distribution):
    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=torch.Size()):
        # u uniform in (-1, 1): the smallest value above -1 keeps log1p(-|u|) finite
        eps = torch.finfo(self.loc.dtype).eps
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * torch.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torch.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + torch.log(2 * self.scale)
