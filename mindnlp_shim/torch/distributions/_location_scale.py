"""The parameterisation the real-line location-scale families (Normal, Laplace, Cauchy) share: `loc` and
`scale` broadcast to the batch shape, the mode at `loc`, reparameterised draws."""
from . import constraints
from .utils import broadcast_all


class LocationScale:
    """Mixin placed before the Distribution base: stores `loc` and `scale` and answers what follows from them
    alone (the mean at `loc` holds where the family has one; a family without overrides `mean`)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
