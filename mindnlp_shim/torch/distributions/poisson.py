"""torch.distributions.poisson.Poisson: counts with mean `rate`."""
import numpy as np

from ... import torch
from ..random import _numpy_rng
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=torch.Size()):
        # drawn on the host (no gradient: the draw is discrete)
        shape = tuple(self._extended_shape(sample_shape))
        rate = np.broadcast_to(self.rate.detach().numpy().astype(np.float64), shape)
        return torch.tensor(_numpy_rng().poisson(rate).astype(np.float64), dtype=self.rate.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
