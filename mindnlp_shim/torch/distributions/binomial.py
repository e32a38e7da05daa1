"""torch.distributions.binomial.Binomial: successes in `total_count` Bernoulli(`probs`) trials."""
import numpy as np

from ... import torch
from ..random import _numpy_rng
from . import constraints
from ._probs_or_logits import ProbsOrLogits
from .distribution import Distribution

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2 (the mean of the one-sided ones)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(ProbsOrLogits, Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (self.total_count,) = self._store_probs_or_logits(probs, logits, total_count)
        super().__init__(self._param.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torch.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        n = np.broadcast_to(self.total_count.detach().numpy().astype(np.int64), shape)
        p = np.broadcast_to(self.probs.detach().numpy().astype(np.float64), shape)
        return torch.tensor(_numpy_rng().binomial(n, p).astype(np.float64), dtype=self._param.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = torch.lgamma(self.total_count + 1)
        log_factorial_k = torch.lgamma(value + 1)
        log_factorial_nmk = torch.lgamma(self.total_count - value + 1)
        # n log(1 + exp(logits)), written to stay finite for large |logits|
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * torch.log1p(torch.exp(-torch.abs(self.logits))) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total = int(self.total_count.max())
        if not bool((self.total_count == total).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total = int(self.total_count.max())
        if not bool((self.total_count == total).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = torch.arange(1 + total, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
