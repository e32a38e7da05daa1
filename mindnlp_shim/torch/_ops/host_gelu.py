"""The exact (erf) GELU of float32 arrays with NumPy, and its derivative.

MindSpore's CPU Erf kernel takes 10-18 ns per element (3-5 ms on BERT's (16, 12, 1536) activations, where real
torch's whole GELU takes 0.1 ms), and the GELU around it five more kernels. Real torch's vectorised float32 GELU
evaluates erf with the rational approximation of Abramowitz and Stegun, formula 7.1.26 (absolute error below
1.5e-7); this module evaluates the same formula in the same precision, in cache-sized chunks of NumPy passes:
1.3-1.8 ms for that shape, forward and derivative. Results agree with real torch's within the approximation's
error (tests/test_host_gelu.py); float64 keeps MindSpore's exact erf, as torch's float64 GELU is exact.

For c = erfc(|x| / sqrt 2), computed without cancellation,
    u = 1 + erf(x / sqrt 2) = c + [x >= 0] (2 - 2c),   gelu(x) = (x u) / 2,   gelu'(x) = u / 2 + x phi(x),
in torch's order: x u overflows to inf for x above 1.7e38, as torch's does.
"""
import math

import numpy as np

CHUNK = 1 << 15  # elements per pass: the scratch arrays stay in the core's cache (2^14-2^17 measured alike)

_F32 = np.float32
# 7.1.26: erfc(z) = t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-z^2), t = 1 / (1 + p z), z >= 0; here z = |x|/sqrt 2
_P = _F32(0.3275911 / math.sqrt(2.0))
_A1, _A2, _A3, _A4, _A5 = (_F32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
_INV_SQRT_2PI = _F32(1.0 / math.sqrt(2.0 * math.pi))


def gelu(values, with_derivative=False):
    """`(gelu(values), derivative or None)` as new float32 arrays of values' shape; `values` is a float32 array
    (any layout). Runs with NumPy's floating-point warnings off (inf and nan give torch's values)."""
    flat = np.ascontiguousarray(values).reshape(-1)
    out = np.empty(flat.shape, _F32)
    derivative = np.empty(flat.shape, _F32) if with_derivative else None
    size = flat.size
    width = min(CHUNK, size)
    # four separate arrays: rows of one (4, 2^15) array lie 128 KiB apart, map to the same cache sets and
    # evict each other (the whole GELU took 4.0-4.2 ms that way against 2.0 ms)
    scratch = [np.empty(width, _F32) for _ in range(4)]
    with np.errstate(all="ignore"):
        for start in range(0, size, CHUNK):
            stop = min(start + CHUNK, size)
            _chunk(flat[start:stop], out[start:stop], None if derivative is None else derivative[start:stop],
                   *(row[:stop - start] for row in scratch), one_element=size == 1)
    shape = np.shape(values)
    return out.reshape(shape), None if derivative is None else derivative.reshape(shape)


def _chunk(x, out, derivative, a, t, c, e, one_element):
    np.abs(x, out=a)
    np.multiply(a, _P, out=t)
    t += 1
    np.reciprocal(t, out=t)
    np.multiply(t, _A5, out=c)
    for coefficient in (_A4, _A3, _A2, _A1):
        c += coefficient
        c *= t
    np.multiply(a, a, out=e)
    e *= _F32(-0.5)
    np.exp(e, out=e)  # exp(-x^2 / 2)
    c *= e  # erfc(|x| / sqrt 2)
    np.greater_equal(x, 0, out=a)  # [x >= 0] as 0.0 / 1.0 (NaN: 0, and u stays NaN through c)
    np.multiply(c, _F32(-2), out=t)
    t += 2
    t *= a
    t += c  # u
    if one_element:  # torch's scalar path (a one-element tensor) halves first: gelu(3e38) is 3e38 there
        t *= _F32(0.5)
        np.multiply(x, t, out=out)
    else:  # its vector path multiplies first: x * u overflows to inf near the largest float32, as here
        np.multiply(x, t, out=out)
        out *= _F32(0.5)
        t *= _F32(0.5)
    if derivative is not None:
        np.multiply(x, e, out=derivative)
        derivative *= _INV_SQRT_2PI
        derivative += t
