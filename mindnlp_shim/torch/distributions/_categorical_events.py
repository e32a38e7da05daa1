"""What the distributions over K-vectors built on one Categorical share (OneHotCategorical, Multinomial,
ExpRelaxedCategorical): the Categorical holds `probs` / `logits`, its last dimension is the event."""
from .categorical import Categorical


class CategoricalEvents:
    """Mixin placed before the Distribution base: batch shape is the parameter's leading dimensions, event shape
    its last one."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        param = self._categorical._param
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape
