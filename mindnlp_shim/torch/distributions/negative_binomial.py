"""torch.distributions.negative_binomial.NegativeBinomial: successes (probability `probs`) before `total_count`
failures."""
import numpy as np

from ... import torch
from ..random import _numpy_rng
from . import constraints
from ._probs_or_logits import ProbsOrLogits
from .distribution import Distribution

__all__ = ["NegativeBinomial"]


class NegativeBinomial(ProbsOrLogits, Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (self.total_count,) = self._store_probs_or_logits(probs, logits, total_count)
        super().__init__(self._param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    def sample(self, sample_shape=torch.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        n = np.broadcast_to(self.total_count.detach().numpy().astype(np.float64), shape)
        p = np.broadcast_to(self.probs.detach().numpy().astype(np.float64), shape)
        # NumPy counts failures before n successes of probability p: torch's successes are its failures
        draws = _numpy_rng().negative_binomial(n, 1.0 - p) if n.size else np.zeros(shape)
        return torch.tensor(np.asarray(draws, np.float64), dtype=self._param.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logsigmoid = torch.nn.functional.logsigmoid
        log_unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = (-torch.lgamma(self.total_count + value) + torch.lgamma(1.0 + value)
                             + torch.lgamma(self.total_count))
        # total_count + value == 0: the probability is 1 (log 0 terms cancel)
        log_normalization = torch.where(self.total_count + value == 0, torch.zeros_like(log_normalization),
                                        log_normalization)
        return log_unnormalized - log_normalization
