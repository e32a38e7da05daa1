"""torch.distributions.relaxed_bernoulli: LogitRelaxedBernoulli (the logit of a relaxed Bernoulli draw) and
RelaxedBernoulli (its sigmoid, a differentiable stand-in for Bernoulli at a `temperature`)."""
import math

from ... import torch
from . import constraints
from ._probs_or_logits import ProbsOrLogits, TemperedBaseParams
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(ProbsOrLogits, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._store_probs_or_logits(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        log_temperature = (math.log(self.temperature) if not isinstance(self.temperature, torch.Tensor)
                           else self.temperature.log())
        return log_temperature + diff - 2 * torch.nn.functional.softplus(diff)


class RelaxedBernoulli(TemperedBaseParams, TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)
