"""The float32 math of torch's vectorised CPU normal sampler, reproduced bit for bit with NumPy.

torch draws float32 normals 16 at a time with 8-wide vector code: a Cephes-style natural log and sine/cosine
(range reduction by pi/4 in three parts, then short polynomials), compiled with fused multiply-adds. Library
log/sin/cos (NumPy's or libm's) differ from it in about 17% of samples; this module evaluates the same
approximations in the same order, with each fused multiply-add rounded once, and agrees on every sample
measured. Double-precision samplers use libm (Python's `math`), which is what torch calls there; NumPy's
own SIMD log differs from libm's in about 20% of doubles.
"""
import math

import numpy as np

f32 = np.float32
_F64 = np.float64


_LOW29 = np.uint64((1 << 29) - 1)
_HALFWAY = np.uint64(1 << 28)


def fma32(a, b, c):
    """a * b + c for float32 arrays rounded once (as a fused multiply-add). The product is exact in float64;
    the sum is rounded to double first, so a double that lands exactly halfway between two float32s (rare) is
    moved one double ulp toward the exact sum before the final rounding (otherwise the rounding would be doubled)."""
    s = np.multiply(a, b, dtype=_F64)
    s += c
    halfway = (s.view(np.uint64) & _LOW29) == _HALFWAY
    if halfway.any():
        where = np.nonzero(halfway)
        a_, b_, c_ = (np.broadcast_to(np.asarray(v, dtype=_F64), s.shape)[where] for v in (a, b, c))
        p = a_ * b_
        s_ = s[where]
        back = s_ - p
        err = (p - (s_ - back)) + (c_ - back)  # exact: s_ + err == p + c
        s[where] = np.where(err != 0, np.nextafter(s_, np.where(err > 0, np.inf, -np.inf)), s_)
    return s.astype(f32)


def _split(x):
    """Veltkamp's split of doubles into high and low halves of 26 and 27 bits (their products are exact)."""
    t = x * 134217729.0  # 2**27 + 1
    high = t - (t - x)
    return high, x - high


def fma64(a, b, c):
    """a * b + c for doubles with one rounding, from error-free transformations: the product's exact error
    (Dekker) and the sum's (Knuth) are added back before the last rounding. Exact except when that last sum
    itself sits on a rounding boundary (far below one in a billion of uniform inputs)."""
    a, b, c = (np.asarray(v, dtype=_F64) for v in (a, b, c))
    p = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    p_err = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low
    s = p + c
    back = s - p
    s_err = (p - (s - back)) + (c - back)
    return s + (p_err + s_err)


_LOG_POLY = tuple(f32(c) for c in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                   1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                                   3.3333331174E-1))
_SQRT_HALF = f32(0.707106781186547524)
_LN2_HIGH, _LN2_LOW = f32(0.693359375), f32(-2.12194440e-4)


def log_f32(x):
    """Natural log of positive normal float32 values: x = m * 2**e with m in [sqrt(1/2), sqrt(2)), then
    log(m) by a degree-9 polynomial in (m - 1), plus e * ln 2 in two parts."""
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 126).astype(f32)
    m = ((bits & np.uint32(0x007FFFFF)) | np.uint32(0x3F000000)).view(f32)  # in [0.5, 1)
    small = m < _SQRT_HALF
    m = (m - f32(1)) + np.where(small, m, f32(0))  # (2m - 1 where m was small)
    e = e - small.astype(f32)
    z = m * m
    y = np.full_like(m, _LOG_POLY[0])
    for coefficient in _LOG_POLY[1:]:
        y = fma32(y, m, coefficient)
    y = fma32(y * m, z, e * _LN2_LOW)
    y = y - z * f32(0.5)  # (exact: a power-of-two scale)
    return fma32(e, _LN2_HIGH, m + y)


_FOUR_OVER_PI = f32(1.27323954473516)
_PI4_PARTS = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
_COS_POLY = (f32(2.443315711809948E-005), f32(-1.388731625493765E-003), f32(4.166664568298827E-002))
_SIN_POLY = (f32(-1.9515295891E-4), f32(8.3321608736E-3), f32(-1.6666654611E-1))


def sincos_f32(x):
    """(sin x, cos x) of float32 values: reduce by multiples of pi/4 (an even octant index j), evaluate the
    sine and cosine polynomials on the remainder, and pick and sign them by j."""
    negative = x < 0
    x = np.abs(x)
    j = (x * _FOUR_OVER_PI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(f32)
    for part in _PI4_PARTS:
        x = fma32(y, part, x)
    sin_negative = negative ^ ((j & 4) != 0)
    cos_negative = ((j - 2) & 4) == 0
    sine_first = (j & 2) == 0
    z = x * x
    c = np.full_like(x, _COS_POLY[0])
    c = fma32(c, z, _COS_POLY[1])
    c = fma32(c, z, _COS_POLY[2])
    c = fma32(c * z, z, -(z * f32(0.5))) + f32(1)
    s = np.full_like(x, _SIN_POLY[0])
    s = fma32(s, z, _SIN_POLY[1])
    s = fma32(s, z, _SIN_POLY[2])
    s = fma32(s * z, x, x)
    sin = np.where(sine_first, s, c)
    cos = np.where(sine_first, c, s)
    return np.where(sin_negative, -sin, sin), np.where(cos_negative, -cos, cos)


_libm_log = np.frompyfunc(math.log, 1, 1)
_libm_log1p = np.frompyfunc(math.log1p, 1, 1)
_libm_cos = np.frompyfunc(math.cos, 1, 1)
_libm_sin = np.frompyfunc(math.sin, 1, 1)


def libm_log(x):
    return _libm_log(x).astype(_F64)


def libm_log1p(x):
    return _libm_log1p(x).astype(_F64)


def libm_cos(x):
    return _libm_cos(x).astype(_F64)


def libm_sin(x):
    return _libm_sin(x).astype(_F64)
