"""torch.special's orthogonal polynomials P_n(x): Chebyshev (four kinds and their shifted forms), Hermite
(physicists' and probabilists'), Laguerre and Legendre, by their three-term recurrences in float64 on the host.

torch defines no derivative for them (their results never require grad), truncates a non-integral degree n
toward zero and answers 0 for n < 0; x and n broadcast against each other."""
import numpy as np

from .host_special import pointwise


def _recurrence(first, second, step):
    """P_n(x) elementwise for arrays x and n: P_0 = first(x), P_1 = second(x), P_{k+1} = step(k, x, P_k, P_{k-1})."""

    def fn(x, n):
        x, n = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(n, np.float64))
        degree = np.trunc(np.where(np.isfinite(n), n, -1)).astype(np.int64)
        previous, current = first(x), second(x)
        out = np.where(degree == 0, previous, np.where(degree == 1, current, 0.0))
        for k in range(1, int(degree.max(initial=0))):
            previous, current = current, step(k, x, current, previous)
            out = np.where(degree == k + 1, current, out)
        return out

    return fn


def _chebyshev(first_degree):
    return _recurrence(lambda x: np.ones_like(x), first_degree, lambda k, x, p, q: 2 * x * p - q)


def _shifted(fn):
    return lambda x, n: fn(2 * np.asarray(x, np.float64) - 1, n)


_T = _chebyshev(lambda x: x)
_U = _chebyshev(lambda x: 2 * x)
_V = _chebyshev(lambda x: 2 * x - 1)
_W = _chebyshev(lambda x: 2 * x + 1)

chebyshev_polynomial_t = pointwise("chebyshev_polynomial_t", _T)
chebyshev_polynomial_u = pointwise("chebyshev_polynomial_u", _U)
chebyshev_polynomial_v = pointwise("chebyshev_polynomial_v", _V)
chebyshev_polynomial_w = pointwise("chebyshev_polynomial_w", _W)
shifted_chebyshev_polynomial_t = pointwise("shifted_chebyshev_polynomial_t", _shifted(_T))
shifted_chebyshev_polynomial_u = pointwise("shifted_chebyshev_polynomial_u", _shifted(_U))
shifted_chebyshev_polynomial_v = pointwise("shifted_chebyshev_polynomial_v", _shifted(_V))
shifted_chebyshev_polynomial_w = pointwise("shifted_chebyshev_polynomial_w", _shifted(_W))
hermite_polynomial_h = pointwise("hermite_polynomial_h", _recurrence(
    lambda x: np.ones_like(x), lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q))
hermite_polynomial_he = pointwise("hermite_polynomial_he", _recurrence(
    lambda x: np.ones_like(x), lambda x: x, lambda k, x, p, q: x * p - k * q))
laguerre_polynomial_l = pointwise("laguerre_polynomial_l", _recurrence(
    lambda x: np.ones_like(x), lambda x: 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)))
legendre_polynomial_p = pointwise("legendre_polynomial_p", _recurrence(
    lambda x: np.ones_like(x), lambda x: x, lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)))
