"""torch.distributions.half_normal.HalfNormal: |X| for X ~ Normal(0, scale)."""
import math

from ._folded_at_zero import FoldedAtZero
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(FoldedAtZero):
    base_family = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
