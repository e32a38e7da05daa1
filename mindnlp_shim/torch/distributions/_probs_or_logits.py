"""The parameterisation the discrete distributions share: exactly one of `probs` and `logits` is given, the other
is derived on first use."""
from ... import torch
from .utils import lazy_property, logits_to_probs, probs_to_logits


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


def as_tensor(value):
    return value if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=torch.get_default_dtype())
