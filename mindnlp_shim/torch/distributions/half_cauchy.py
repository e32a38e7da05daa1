"""torch.distributions.half_cauchy.HalfCauchy: |X| for X ~ Cauchy(0, scale)."""
from ... import torch
from ._folded_at_zero import FoldedAtZero
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(FoldedAtZero):
    base_family = Cauchy

    @property
    def mean(self):
        return torch.full(tuple(self._extended_shape()), float("inf"), dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance

    def _value_as_tensor(self, value):
        # log_prob reads a Python number in the scale's dtype (HalfNormal, as torch's, takes tensors only)
        return torch.as_tensor(value, dtype=self.scale.dtype)
