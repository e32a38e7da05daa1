"""torch.distributions.relaxed_categorical: ExpRelaxedCategorical (the log of a relaxed one-hot draw: Gumbel-
softmax in log space) and RelaxedOneHotCategorical (its exponential, a point of the simplex)."""
from ... import torch
from . import constraints
from ._categorical_events import CategoricalEvents
from ._probs_or_logits import TemperedBaseParams
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(CategoricalEvents, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        super().__init__(probs, logits, validate_args=validate_args)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(torch.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        count = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        temperature = self.temperature if isinstance(self.temperature, torch.Tensor) else \
            torch.tensor(float(self.temperature), dtype=self.logits.dtype)
        log_scale = torch.full_like(temperature, float(count)).lgamma() - temperature.log() * (-(count - 1))
        score = self.logits - value * temperature
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TemperedBaseParams, TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)
