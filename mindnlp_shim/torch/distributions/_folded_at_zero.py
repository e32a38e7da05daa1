"""The half distributions (HalfNormal, HalfCauchy): |X| for X of a family symmetric about 0 with a `scale`,
so the density, cdf and entropy follow from the base family's by folding at 0."""
import math

from ... import torch
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class FoldedAtZero(TransformedDistribution):
    """Subclasses name `base_family`, a location-scale distribution class taking (loc, scale)."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    base_family = None

    def __init__(self, scale, validate_args=None):
        base = self.base_family(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return torch.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = self._value_as_tensor(value)
        # both x and -x fold onto |x|: twice the base density on the nonnegative half, nothing below 0
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, torch.full_like(log_prob, -float("inf")))

    def _value_as_tensor(self, value):
        return value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
