"""torch.distributions.cauchy.Cauchy: density 1 / (pi scale (1 + ((x - loc) / scale)^2)); no mean or variance."""
import math

from ... import torch
from ._location_scale import LocationScale
from .distribution import Distribution

__all__ = ["Cauchy"]


class Cauchy(LocationScale, Distribution):
    @property
    def mean(self):
        return torch.full(tuple(self._extended_shape()), float("nan"), dtype=self.loc.dtype)

    @property
    def variance(self):
        return torch.full(tuple(self._extended_shape()), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape=torch.Size()):
        # the standard Cauchy draw tan(pi (u - 1/2))
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + torch.tan(math.pi * (u - 0.5)) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
