"""Each distribution drawn from an `MT19937` the way torch's CPU kernels draw it (measured against real torch
2.13). Results are NumPy arrays in C order; `kind` names the target dtype: "float32", "float64", "float16",
"bfloat16" (reduced floats come back as float32 arrays holding exactly representable values).
"""
import math

import numpy as np

from .vector_math import f32, fma32, fma64, libm_cos, libm_log, libm_log1p, libm_sin, log_f32, sincos_f32

_F64 = np.float64
_MASK24 = np.uint64((1 << 24) - 1)
_MASK53 = np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi
# normals come 16 at a time (8 cosines, then 8 sines) from this many elements on; fewer go one by one
VECTOR_NORMAL_MIN = 16
# randint draws one 32-bit output per element below this range, one 64-bit value from it on
RANDINT_64BIT_RANGE = 1 << 28


def to_bfloat16(values):
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as float32."""
    bits = np.ascontiguousarray(values, dtype=f32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return np.where(np.isnan(values), values, rounded.view(f32))


# float math over large arrays goes in chunks of this many elements: its float64 working arrays (about 50 bytes per
# element) stay bounded when a large embedding matrix is initialised
CHUNK = 1 << 20


def _chunked(values, transform):
    """transform(values[i:i+CHUNK]) for each chunk, written into one array (the transforms are elementwise)."""
    if values.size <= CHUNK:
        return transform(values)
    out = np.empty(values.shape, dtype=values.dtype)
    for start in range(0, values.size, CHUNK):
        out[start:start + CHUNK] = transform(values[start:start + CHUNK])
    return out


def round_to(values, kind):
    """float32 values rounded to `kind`'s precision (held as float32 unless float64)."""
    if kind == "float16":
        return values.astype(np.float16).astype(f32)
    if kind == "bfloat16":
        return to_bfloat16(values)
    return values


def unit_float(engine, n):
    """torch's float uniform on [0, 1): 24 bits of one output."""
    return (engine.raw32(n) & _MASK24).astype(f32) * f32(2.0 ** -24)


def unit_double(engine, n):
    """torch's double uniform on [0, 1): 53 bits of one 64-bit value."""
    return (engine.raw64(n) & _MASK53).astype(_F64) * (2.0 ** -53)


def uniform(engine, n, kind, low=0.0, high=1.0):
    """U(low, high): x * (high - low) + low as one fused multiply-add in float (double for float64), with the
    bounds as floats; a value that rounds to `high` in the target dtype becomes `low` (in that dtype)."""
    if kind == "float64":
        low, high = _F64(low), _F64(high)
        values = _chunked(unit_double(engine, n), lambda x: fma64(x, high - low, low))
        return np.where(values == high, low, values)
    low, high = f32(low), f32(high)
    values = _chunked(unit_float(engine, n), lambda x: round_to(fma32(x, high - low, low), kind))
    low, high = (round_to(np.array([v], dtype=f32), kind)[0] for v in (low, high))
    return np.where(values == high, low, values)


# ---------------------------------------------------------------- normal
def _scalar_normals(engine, n, mean, std):
    """torch's one-at-a-time normal (double Box-Muller): each pair yields a cosine sample now and caches the
    sine sample in the generator for the next call."""
    out = np.empty(n, dtype=_F64)
    for i in range(n):
        cached = engine.next_double_normal
        if cached is not None:
            engine.next_double_normal = None
            out[i] = fma64(cached, std, mean)
            continue
        u1, u2 = unit_double(engine, 2)
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = _TWO_PI * u1
        engine.next_double_normal = radius * math.sin(theta)
        out[i] = fma64(radius * math.cos(theta), std, mean)
    return out


def _box_muller_16_float(u, mean, std):
    """Blocks of 16 float32 uniforms -> 16 normals: cosines from (1 - u[:8], u[8:]), then sines."""
    return _chunked(u, lambda chunk: _box_muller_16_float_chunk(chunk, mean, std))


def _box_muller_16_float_chunk(u, mean, std):
    blocks = u.reshape(-1, 16)
    radius = np.sqrt(f32(-2.0) * log_f32(f32(1.0) - blocks[:, :8]))
    sin, cos = sincos_f32(f32(_TWO_PI) * blocks[:, 8:])
    normals = np.concatenate([radius * cos, radius * sin], axis=1)
    return fma32(normals, f32(std), f32(mean)).reshape(-1)


def _box_muller_16_double(u, mean, std):
    return _chunked(u, lambda chunk: _box_muller_16_double_chunk(chunk, mean, std))


def _box_muller_16_double_chunk(u, mean, std):
    blocks = u.reshape(-1, 16)
    radius = np.sqrt(-2.0 * libm_log(1.0 - blocks[:, :8]))
    theta = _TWO_PI * blocks[:, 8:]
    normals = np.concatenate([radius * libm_cos(theta), radius * libm_sin(theta)], axis=1)
    return fma64(normals, std, mean).reshape(-1)


def normal(engine, n, kind, mean=0.0, std=1.0):
    """N(mean, std**2). From 16 elements on: fill with uniforms, transform each full block of 16, and when n is
    not a multiple of 16, draw 16 fresh uniforms for the last 16 elements (overlapping the previous block).
    float16/bfloat16 draw uniforms block by block instead (16 per block, tail included), and compute in float."""
    if n < VECTOR_NORMAL_MIN:
        values = _scalar_normals(engine, n, mean, std)
        return values if kind == "float64" else round_to(values.astype(f32), kind)
    whole = n - n % 16
    if kind in ("float16", "bfloat16"):
        out = np.empty(n, dtype=f32)
        out[:whole] = _box_muller_16_float(unit_float(engine, whole), mean, std)
        if whole != n:
            out[n - 16:] = _box_muller_16_float(unit_float(engine, 16), mean, std)
        return round_to(out, kind)
    if kind == "float64":
        draw, transform = unit_double, _box_muller_16_double
    else:
        draw, transform = unit_float, _box_muller_16_float
    u = draw(engine, n)
    out = np.empty(n, dtype=u.dtype)
    out[:whole] = transform(u[:whole], mean, std)
    if whole != n:
        out[n - 16:] = transform(draw(engine, 16), mean, std)
    return round_to(out, kind)


# ---------------------------------------------------------------- integers
def random_from_to(engine, n, low, high):
    """Integers in [low, high): (draw % range) + low, one output per element, or one 64-bit value from
    RANDINT_64BIT_RANGE on."""
    span = int(high) - int(low)
    if span <= 0:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    draws = engine.raw32(n) if span < RANDINT_64BIT_RANGE else engine.raw64(n)
    return (draws % np.uint64(span)).astype(np.int64) + np.int64(low)


# random_() with no bounds: [0, 2**digits] for floats (digits of the mantissa), [0, max] for integers;
# 64-bit draws for int64 and float64, one output otherwise
_FULL_RANGE = {"float32": (1 << 24) + 1, "float64": (1 << 53) + 1, "float16": (1 << 11) + 1,
               "bfloat16": (1 << 8) + 1, "int64": 1 << 63, "int32": 1 << 31, "int16": 1 << 15, "int8": 1 << 7,
               "uint8": 1 << 8, "bool": 2}


def random_full(engine, n, kind):
    modulus = _FULL_RANGE.get(kind)
    if modulus is None:
        raise NotImplementedError(f"random_() is not supported for {kind} tensors")
    draws = engine.raw64(n) if kind in ("int64", "float64") else engine.raw32(n)
    return (draws % np.uint64(modulus)).astype(np.int64 if kind != "float64" else np.uint64)


def randperm(engine, n):
    """A forward Fisher-Yates shuffle of 0..n-1: position i swaps with i + (draw % (n - i))."""
    perm = np.arange(n, dtype=np.int64)
    if n < 2:
        return perm
    if n >= (1 << 32) // 20:  # torch switches to 64-bit draws for huge n
        draws = engine.raw64(n - 1)
    else:
        draws = engine.raw32(n - 1)
    offsets = (draws % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
    for i, z in enumerate(offsets.tolist()):  # (sequential: each swap sees the previous ones)
        j = i + z
        perm[i], perm[j] = perm[j], perm[i]
    return perm


# ---------------------------------------------------------------- bernoulli, exponential, multinomial
_MASK21 = np.uint32((1 << 21) - 1)
# after a dropout mask, up to this many of the next outputs are drawn ahead in the background (32 MB)
DRAW_AHEAD_MAX = 1 << 23


def bernoulli_scalar(engine, n, p):
    """True where a double uniform < p (tensor.bernoulli_(p), and so dropout's keep mask with p = 1 - rate).

    Done on the integers: the uniform is m * 2**-53 with m the low 53 bits of (first << 32 | second), and
    m * 2**-53 < p  <=>  m < ceil(p * 2**53). The first output's low 21 bits decide unless they equal the
    threshold's high part (about one element in two million); only those look at the second output. Same
    answers as `unit_double(engine, n) < p`, without the 64-bit and float arrays. `engine` may also be a NumPy
    Generator over the twister (long-input attention replays its masks from one)."""
    if isinstance(engine, np.random.Generator):
        outputs = engine.integers(0, 1 << 32, size=2 * n, dtype=np.uint32)
    else:
        outputs = engine.take(2 * n)
    threshold = math.ceil(float(p) * 2.0 ** 53)
    if threshold > (1 << 53) - 1:  # p == 1 (p * 2**53 rounds up only there)
        return np.ones(n, dtype=bool)
    high_threshold, low_threshold = np.uint32(threshold >> 32), np.uint32(threshold & 0xFFFFFFFF)
    high21 = np.bitwise_and(outputs[0::2], _MASK21)
    keep = high21 < high_threshold
    ties = np.flatnonzero(high21 == high_threshold)
    if ties.size:
        keep[ties] = outputs[1::2][ties] < low_threshold
    return keep


def bernoulli_tensor(engine, probs):
    """One uniform per element (double when the probabilities are float64, float otherwise), 1 where it is
    below that element's probability."""
    probs = np.asarray(probs)
    draw = unit_double if probs.dtype == np.float64 else unit_float
    return draw(engine, probs.size).reshape(probs.shape) < probs


def exponential(engine, n, kind, lambd=1.0):
    """Exp(lambd): -1/lambd * log1p(-u) in double, u a double uniform."""
    values = (-1.0 / lambd) * libm_log1p(-unit_double(engine, n))
    return values if kind == "float64" else round_to(values.astype(f32), kind)


def multinomial_with_replacement(engine, rows, num_samples):
    """Per row: the cumulative distribution (normalised), then for each sample a double uniform located by
    binary search (the first bucket whose cumulative mass is not below it)."""
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for r, row in enumerate(rows):
        cumulative = np.cumsum(row)
        cumulative = cumulative / cumulative[-1]
        u = unit_double(engine, num_samples)
        out[r] = np.minimum(np.searchsorted(cumulative, u, side="left"), row.size - 1)
    return out


# ---------------------------------------------------------------- one double uniform per element, transformed
_libm_tan = np.frompyfunc(math.tan, 1, 1)
_libm_exp = np.frompyfunc(math.exp, 1, 1)


def as_kind(values, kind):
    """float64 samples stored into `kind` as torch's static_cast does (reduced floats through float32)."""
    return values if kind == "float64" else round_to(values.astype(f32), kind)


def cauchy(engine, n, kind, median=0.0, sigma=1.0):
    """Cauchy(median, sigma): median + sigma * tan(pi * (u - 0.5)) in double, u a double uniform."""
    u = unit_double(engine, n)
    return as_kind(median + sigma * _libm_tan(math.pi * (u - 0.5)).astype(_F64), kind)


def log_normal(engine, n, kind, mean=0.0, std=1.0):
    """exp of torch's one-at-a-time double normal (which takes and leaves the generator's cached sample)."""
    return as_kind(_libm_exp(_scalar_normals(engine, n, mean, std)).astype(_F64), kind)


def geometric(engine, n, p):
    """Geometric(p) on {1, 2, ...} as float64: ceil(log(u) / log1p(-p)), u a double uniform."""
    return np.ceil(libm_log(unit_double(engine, n)) / math.log1p(-p))


def poisson(engine, rates):
    """Poisson(rate) per element as float64 counts: for a rate below 10, the number of double uniforms whose
    running product stays above exp(-rate); from 10 on, Hörmann's transformed rejection with squeeze (PTRS),
    two double uniforms per attempt."""
    out = np.empty(rates.size, dtype=_F64)
    for i, lam in enumerate(rates.reshape(-1).tolist()):
        out[i] = _poisson_one(engine, lam)
    return out.reshape(rates.shape)


def _uniform_one(engine):
    return float(unit_double(engine, 1)[0])


def _poisson_one(engine, lam):
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform_one(engine) - 0.5
            v = _uniform_one(engine)
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if math.log(v) + math.log(inv_alpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - \
                    math.lgamma(k + 1):
                return k
    if lam == 0:
        return 0
    threshold, product, count = math.exp(-lam), 1.0, 0
    while True:
        product *= _uniform_one(engine)
        if product > threshold:
            count += 1
        else:
            return count
