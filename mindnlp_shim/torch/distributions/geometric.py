"""torch.distributions.geometric.Geometric: the number of failures before the first success of Bernoulli(`probs`)
trials."""
from ... import torch
from . import constraints
from ._probs_or_logits import ProbsOrLogits
from .distribution import Distribution
from .utils import broadcast_all, clamp_exact

__all__ = ["Geometric"]


class Geometric(ProbsOrLogits, Distribution):
    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._store_probs_or_logits(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool(self.probs.gt(0).all()):
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=torch.Size()):
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = clamp_exact(torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype), min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # probability 1 and value 0: 0 * log(0) is 0
        probs = torch.where((probs == 1) & (value == 0), torch.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                    reduction="none") / self.probs
