"""torch.distributions.constraints: the value domains distributions check their arguments and samples against.

`check(value)` answers, per sample, whether `value` lies in the domain: a bool tensor with the trailing
`event_dim` dimensions reduced. transformers' `resize_token_embeddings(mean_resizing=True)` calls
`positive_definite.check` before sampling from a `MultivariateNormal`."""
import mindspore
from mindspore import ops

__all__ = ["Constraint", "real", "real_vector", "positive", "square", "symmetric", "lower_triangular",
           "lower_cholesky", "positive_definite"]


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
