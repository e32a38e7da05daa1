"""torch.distributions.wishart.Wishart: the distribution of X = L Z Z^T L^T over positive-definite p x p
matrices, with `df` degrees of freedom (df > p - 1) and scale Sigma = L L^T given as one of covariance matrix,
precision matrix or lower Cholesky factor.

Draws use Bartlett's decomposition: Z lower triangular, sqrt of chi-squared(df - i) draws on the diagonal and
standard normals below it. The chi-squared draws come from the shim's gamma sampler, so the numbers differ from
PyTorch's generator (docs/random.md); densities, moments and entropy are torch's formulas."""
import math
import warnings

import numpy as np

from ... import torch
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _multi_digamma(a, p):
    """sum_{i<p} digamma(a - i/2), the derivative of the log multivariate gamma function."""
    return sum(torch.digamma(a - 0.5 * i) for i in range(p))


class Wishart(Distribution):
    arg_constraints = {"covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(0)}
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix), ("scale_tril", scale_tril))
                 if m is not None]
        if len(given) != 1:  # (torch's type for this error)
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                                 "specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        if not isinstance(df, torch.Tensor):
            df = torch.tensor(df, dtype=matrix.dtype)
        p = matrix.shape[-1]
        batch_shape = tuple(np.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape)))
        self.df = df.expand(batch_shape)
        self.__dict__[name] = matrix.expand(batch_shape + (p, p))
        # (torch's own constraint on df: more than p - 1 degrees of freedom)
        self.arg_constraints = {**type(self).arg_constraints, "df": constraints.greater_than(p - 1)}
        super().__init__(batch_shape, (p, p), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(torch.linalg.inv(precision_matrix))
        if bool((self.df.le(p - 1)).any()) is False and bool((self.df.lt(p)).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < "
                          "ndim.")
        # chi-squared(df - i) for the i-th diagonal element of Bartlett's factor
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - torch.arange(p, dtype=self.df.dtype).expand(batch_shape + (p,)))

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @property
    def precision_matrix(self):
        L_inv = torch.linalg.inv(self._unbroadcasted_scale_tril)
        return (L_inv.transpose(-2, -1) @ L_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = torch.where(factor <= 0, torch.full_like(factor, float("nan")), factor)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * (V.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=torch.Size()):
        p = self._event_shape[-1]
        shape = tuple(sample_shape) + tuple(self._batch_shape)
        diagonal = self._dist_chi2.rsample(sample_shape).sqrt()
        diagonal = diagonal.clamp(min=torch.finfo(diagonal.dtype).eps)
        below = torch.randn(shape + (p, p), dtype=diagonal.dtype).tril(-1)
        noise = below + torch.diag_embed(diagonal)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=torch.Size(), max_try_correction=None):
        """Draws. A draw that is not numerically positive definite is drawn again, up to `max_try_correction`
        times (3 unless given); a warning says when any is left."""
        tries = max_try_correction if max_try_correction is not None else 3
        sample = self._bartlett_sampling(sample_shape)
        bad = ~constraints.positive_definite.check(sample)
        attempt = 0
        while bool(bad.any()) and attempt < tries:
            attempt += 1
            fresh = self._bartlett_sampling(sample_shape)
            sample = torch.where(bad.unsqueeze(-1).unsqueeze(-1), fresh, sample)
            bad = ~constraints.positive_definite.check(sample)
        if bool(bad.any()):
            warnings.warn("Singular samples occurred after the maximum number of correction attempts.")
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det_scale = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace_term = torch.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det_scale) - torch.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * torch.linalg.slogdet(value).logabsdet - trace_term / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        half_log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * half_log_det_scale + p * (p + 1) * _LOG_2 / 2 + torch.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _multi_digamma(nu / 2, p) + nu * p / 2)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        p = self._event_shape[-1]
        return Wishart(self.df.expand(batch_shape), scale_tril=self._unbroadcasted_scale_tril.expand(
            batch_shape + (p, p)), validate_args=False)
