"""torch.distributions.chi2.Chi2: the chi-squared distribution with `df` degrees of freedom, Gamma(df/2, 1/2)."""
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    arg_constraints = {"df": Gamma.arg_constraints["concentration"]}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2
