"""The parameterisation the discrete distributions share: exactly one of `probs` and `logits` is given, the other
is derived on first use."""
from ... import torch
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


def given_one(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return probs if probs is not None else logits


class ProbsOrLogits:
    """Mixin: `probs` and `logits` as lazy properties derived from each other (`_is_binary` picks sigmoid or
    softmax)."""
    _is_binary = True

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._is_binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._is_binary)

    @property
    def param_shape(self):
        return self._param.shape

    def _store_probs_or_logits(self, probs, logits, *companions):
        """Stores the one of `probs` / `logits` given (as `_param` too), broadcast with `companions` (such as a
        total count); returns the companions broadcast and cast to its dtype."""
        given_one(probs, logits)
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        *companions, param = broadcast_all(*companions, given)
        setattr(self, name, param)
        self._param = param
        return [companion.type_as(param) for companion in companions]


class TemperedBaseParams:
    """Mixin for the relaxed distributions defined as a transform of a tempered base distribution (RelaxedBernoulli,
    RelaxedOneHotCategorical): `temperature`, `probs` and `logits` are the base's."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


def as_tensor(value):
    return value if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=torch.get_default_dtype())
