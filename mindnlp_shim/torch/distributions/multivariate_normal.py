"""torch.distributions.multivariate_normal.MultivariateNormal: a Gaussian over vectors, given its mean and one
of covariance matrix, precision matrix or lower Cholesky factor of the covariance.

Draws are `loc + L @ eps` with `eps` from the shim's generator (`torch.manual_seed` makes them reproducible;
the numbers differ from PyTorch's generator). On the CPU MindSpore has no backward for the Cholesky
factorization, so gradients reach `loc` and `scale_tril` but not a `covariance_matrix`/`precision_matrix`."""
import math

import numpy as np
from mindspore import ops

from .._ops.random import randn
from .._size import Size
from . import constraints
from .distribution import Distribution


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix), ("scale_tril", scale_tril))
                 if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.ndim < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch "
                             f"dimensions")
        batch_shape = tuple(np.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        n = loc.shape[-1]
        self.__dict__[name] = matrix.expand(batch_shape + (n, n))
        self.loc = loc.expand(batch_shape + (n,))
        super().__init__(batch_shape, (n,), validate_args=validate_args)
        from ..linalg import cholesky

        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = cholesky(ops.inverse(precision_matrix))

    def _matrix_shape(self):
        n = self._event_shape[0]
        return tuple(self._batch_shape) + (n, n)

    @property
    def scale_tril(self):
        if "scale_tril" not in self.__dict__:
            self.__dict__["scale_tril"] = self._unbroadcasted_scale_tril.expand(self._matrix_shape())
        return self.__dict__["scale_tril"]

    @property
    def covariance_matrix(self):
        if "covariance_matrix" not in self.__dict__:
            L = self._unbroadcasted_scale_tril
            self.__dict__["covariance_matrix"] = (L @ L.mT).expand(self._matrix_shape())
        return self.__dict__["covariance_matrix"]

    @property
    def precision_matrix(self):
        if "precision_matrix" not in self.__dict__:
            L_inv = ops.inverse(self._unbroadcasted_scale_tril)
            self.__dict__["precision_matrix"] = (L_inv.mT @ L_inv).expand(self._matrix_shape())
        return self.__dict__["precision_matrix"]

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=Size()):
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        # squared Mahalanobis distance |L^-1 diff|^2
        whitened = (ops.inverse(self._unbroadcasted_scale_tril) @ diff.unsqueeze(-1)).squeeze(-1)
        mahalanobis = whitened.pow(2).sum(-1)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(tuple(self._batch_shape)) if len(self._batch_shape) else h
