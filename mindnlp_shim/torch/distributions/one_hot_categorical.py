"""torch.distributions.one_hot_categorical.OneHotCategorical: a Categorical whose values are one-hot vectors."""
from ... import torch
from . import constraints
from ._categorical_events import CategoricalEvents
from .distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(CategoricalEvents, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return torch.nn.functional.one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=torch.Size()):
        indices = self._categorical.sample(sample_shape)
        return torch.nn.functional.one_hot(indices, self._categorical._num_events).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = torch.eye(n, dtype=self._categorical._param.dtype).view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values
