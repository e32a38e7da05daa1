"""torch.distributions.exp_family.ExponentialFamily: the base of the distributions whose density is
exp(<theta, T(x)> - F(theta) + k(x)). Subclasses here define their entropies in closed form."""
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Marks a distribution as a member of the exponential family."""
