"""torch.distributions.multinomial.Multinomial: counts of `total_count` draws from a Categorical."""
import numpy as np

from ... import torch
from ..random import _numpy_rng
from . import constraints
from ._categorical_events import CategoricalEvents
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(CategoricalEvents, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        super().__init__(probs, logits, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torch.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        probs = self.probs.detach().numpy().astype(np.float64)
        probs = np.broadcast_to(probs / probs.sum(-1, keepdims=True), shape).reshape(-1, shape[-1])
        rng = _numpy_rng()
        counts = np.stack([rng.multinomial(self.total_count, row) for row in probs]) if probs.size else probs
        return torch.tensor(counts.reshape(shape).astype(np.float64), dtype=self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = torch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torch.lgamma(value + 1).sum(-1)
        # a category of probability 0 that was never drawn contributes 0 (not 0 * -inf)
        logits = torch.where((value == 0) & torch.isinf(logits) & (logits < 0), torch.zeros_like(logits), logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
