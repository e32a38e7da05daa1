"""torch.distributions.bernoulli.Bernoulli: 1 with probability `probs` (or sigmoid(`logits`)), else 0."""
from ... import torch
from . import constraints
from ._probs_or_logits import ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(ProbsOrLogits, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._store_probs_or_logits(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return torch.where(self.probs == 0.5, torch.full_like(mode, float("nan")), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -torch.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = torch.arange(2, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
