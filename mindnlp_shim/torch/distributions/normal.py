"""torch.distributions.normal.Normal: the Gaussian N(loc, scale^2), elementwise."""
import math
import numbers

from ... import torch
from ._location_scale import LocationScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class Normal(LocationScale, ExponentialFamily):
    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        return self.loc + torch.randn(shape, dtype=self.loc.dtype) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - log_scale - _LOG_SQRT_2PI

    def cdf(self, value):
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)
