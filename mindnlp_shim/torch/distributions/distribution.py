"""torch.distributions.Distribution: the shapes every distribution has, argument validation and sample().

batch_shape: independent distributions held at once; event_shape: the shape of one draw. Subclasses define
`rsample` (a draw that gradients flow through), `log_prob`, `entropy`, `mean` and `variance`."""
from .._size import Size
from ..autograd.grad_mode import no_grad


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    support = None
    _validate_args = __debug__  # torch validates arguments unless Python runs with -O

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError("set_default_validate_args expects True or False")
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            from .constraints import is_dependent

            for name, constraint in self.arg_constraints.items():
                if name not in self.__dict__ or is_dependent(constraint):  # derived on demand / no own check
                    continue
                value = self.__dict__[name]
                if not bool(constraint.check(value).all()):
                    raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()):
        """The shape of `sample(sample_shape)`: sample_shape + batch_shape + event_shape."""
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError(f"{type(self).__name__}.rsample")

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__}.log_prob")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__}.entropy")

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__}.mean")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__}.variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__class__} does not implement mode")

    def cdf(self, value):
        raise NotImplementedError(f"{type(self).__name__}.cdf")

    def icdf(self, value):
        raise NotImplementedError(f"{type(self).__name__}.icdf")

    def enumerate_support(self, expand=True):
        raise NotImplementedError(f"{type(self).__name__}.enumerate_support")

    def perplexity(self):
        return self.entropy().exp()

    def sample_n(self, n):
        return self.sample(Size((n,)))

    def _validate_sample(self, value):
        if self.support is not None and not bool(self.support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to "
                             f"be within the support ({self.support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self):
        shown = {name: self.__dict__[name] for name in self.arg_constraints if name in self.__dict__}
        params = ", ".join(f"{name}: {v if v.numel() == 1 else v.size()}" for name, v in shown.items())
        return f"{type(self).__name__}({params})"
