"""torch.distributions.constraints: the value domains distributions check their arguments and samples against.

`check(value)` answers, per sample, whether `value` lies in the domain: a bool tensor with the trailing
`event_dim` dimensions reduced. transformers' `resize_token_embeddings(mean_resizing=True)` calls
`positive_definite.check` before sampling from a `MultivariateNormal`."""
import mindspore
from mindspore import ops

__all__ = ["Constraint", "real", "real_vector", "positive", "square", "symmetric", "lower_triangular",
           "lower_cholesky", "positive_definite", "boolean", "nonnegative", "unit_interval", "simplex",
           "nonnegative_integer", "positive_integer", "greater_than", "greater_than_eq", "interval",
           "half_open_interval", "integer_interval", "independent", "dependent", "dependent_property", "one_hot",
           "multinomial", "is_dependent"]


class Constraint:
    """A domain of values. `event_dim` trailing dimensions make up one event; `check` reduces over them."""
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError(f"{type(self).__name__}.check")

    def __repr__(self):
        return type(self).__name__[1:] + "()"


def _all_trailing(ok, dims):
    for _ in range(dims):
        ok = ops.all(ok, -1)
    return ok


class _Real(Constraint):
    def check(self, value):
        return ops.equal(value, value)  # False only for NaN


class _IndependentReal(_Real):
    """Real values whose last dimension is one event (torch's `real_vector`)."""
    event_dim = 1

    def check(self, value):
        return _all_trailing(super().check(value), 1)


class _Positive(Constraint):
    def check(self, value):
        return ops.gt(value, 0)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return ops.fill(mindspore.bool_, tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1])


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(ops.all(square)):
            return square
        # equal to the transpose within torch.isclose's tolerances (rtol 1e-5), atol 1e-6
        return _all_trailing(ops.isclose(value, value.swapaxes(-1, -2), rtol=1e-5, atol=1e-6), 2)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_trailing(ops.equal(ops.tril(value), value), 2)


class _LowerCholesky(Constraint):
    """Lower triangular with a positive diagonal."""
    event_dim = 2

    def check(self, value):
        lower = _all_trailing(ops.equal(ops.tril(value), value), 2)
        diagonal_positive = ops.all(ops.gt(ops.diagonal(value, 0, -2, -1), 0), -1)
        return ops.logical_and(lower, diagonal_positive)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factor."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(ops.all(symmetric)):
            return symmetric
        from ..linalg import cholesky_ex

        return ops.equal(cholesky_ex(value).info, 0)


real = _Real()
real_vector = _IndependentReal()
positive = _Positive()
square = _Square()
symmetric = _Symmetric()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()


# ---------------------------------------------------------------- the domains of the univariate distributions


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return ops.logical_or(ops.equal(value, 0), ops.equal(value, 1))


class _GreaterThan(Constraint):
    def __init__(self, lower_bound, inclusive=False):
        self.lower_bound, self._inclusive = lower_bound, inclusive

    def check(self, value):
        return ops.ge(value, self.lower_bound) if self._inclusive else ops.gt(value, self.lower_bound)

    def __repr__(self):
        return f"{'GreaterThanEq' if self._inclusive else 'GreaterThan'}(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    """lower_bound <= value <= upper_bound (upper bound excluded when `half_open`)."""

    def __init__(self, lower_bound, upper_bound, half_open=False):
        self.lower_bound, self.upper_bound, self._half_open = lower_bound, upper_bound, half_open

    def check(self, value):
        upper = ops.lt(value, self.upper_bound) if self._half_open else ops.le(value, self.upper_bound)
        return ops.logical_and(ops.ge(value, self.lower_bound), upper)

    def __repr__(self):
        name = "HalfOpenInterval" if self._half_open else "Interval"
        return f"{name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        in_range = ops.logical_and(ops.ge(value, self.lower_bound), ops.le(value, self.upper_bound))
        if not value.is_floating_point():  # integers are whole (and MindSpore 2.8's fmod has no integer kernel)
            return in_range
        return ops.logical_and(ops.equal(ops.fmod(value, 1), 0), in_range)


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        at_least = ops.ge(value, self.lower_bound)
        if not value.is_floating_point():  # integers are whole (and MindSpore 2.8's fmod has no integer kernel)
            return at_least
        return ops.logical_and(ops.equal(ops.fmod(value, 1), 0), at_least)


class _Simplex(Constraint):
    """Non-negative vectors that sum to 1 (within 1e-6) over the last dimension."""
    event_dim = 1

    def check(self, value):
        nonnegative = ops.all(ops.ge(value, 0), -1)
        return ops.logical_and(nonnegative, ops.lt(ops.abs(ops.sub(ops.sum(value, -1), 1)), 1e-6))


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = ops.all(ops.logical_or(ops.equal(value, 0), ops.equal(value, 1)), -1)
        return ops.logical_and(is_boolean, ops.equal(ops.sum(value, -1), 1))


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return ops.logical_and(ops.all(ops.ge(value, 0), -1), ops.le(ops.sum(value, -1), self.upper_bound))


class _Independent(Constraint):
    """`base_constraint` with `reinterpreted_batch_ndims` more dimensions reduced into one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        return _all_trailing(self.base_constraint.check(value), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Dependent(Constraint):
    """A domain that depends on other arguments of the distribution: it has no check of its own."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=False, event_dim=0):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property of a distribution whose value is a domain computed from its arguments."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _Independent
boolean = _Boolean()
nonnegative = _GreaterThan(0.0, inclusive=True)
greater_than = _GreaterThan


def greater_than_eq(lower_bound):
    return _GreaterThan(lower_bound, inclusive=True)


interval = _Interval


def half_open_interval(lower_bound, upper_bound):
    return _Interval(lower_bound, upper_bound, half_open=True)


unit_interval = _Interval(0.0, 1.0)
integer_interval = _IntegerInterval
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
simplex = _Simplex()
one_hot = _OneHot()
multinomial = _Multinomial
