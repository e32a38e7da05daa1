"""Hypothesis strategies for op arguments: shapes (0-d, size-1 and empty dims), dtypes, value domains, layouts,
broadcasting partners, 0-d tensor and Python-scalar operands, valid (and now and then invalid) dims.

Every family returns a strategy of `harness.Case`. Values come from a NumPy generator seeded by a drawn integer
(cheaper than drawing each element; hypothesis still controls and replays the seed)."""
import numpy as np
from hypothesis import strategies as st

from .harness import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, Arr, Case, DT

FLOATS = FLOAT_DTYPES
NUMERIC = FLOAT_DTYPES + INT_DTYPES
INTS = INT_DTYPES
INTS_BOOL = INT_DTYPES + ("bool",)
F32_64 = ("float32", "float64")


def values(rng, shape, dtype, domain):
    """NumPy values (float64 / int64 / bool) for `dtype` from a value domain."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INT_DTYPES:
        lo, hi = {"real": (-5, 6), "pos": (1, 6), "nonneg": (0, 6), "unit": (-1, 2), "nonzero": (1, 6),
                  "small": (-2, 3), "ge1": (1, 6), "prob": (0, 2), "bits": (0, 16), "shift": (0, 4)}[domain]
        v = rng.integers(lo, hi, size=shape)
        if domain == "nonzero":
            v = v * rng.choice([-1, 1], size=shape)
        return v.astype(np.int64)
    if domain == "real":
        v = rng.standard_normal(shape) * 2
    elif domain == "pos":
        v = rng.uniform(0.1, 3.0, shape)
    elif domain == "nonneg":
        v = rng.uniform(0.0, 3.0, shape)
    elif domain == "unit":
        v = rng.uniform(-0.95, 0.95, shape)
    elif domain == "prob":
        v = rng.uniform(0.02, 0.98, shape)
    elif domain == "nonzero":
        v = rng.uniform(0.2, 3.0, shape) * rng.choice([-1.0, 1.0], size=shape)
    elif domain == "small":
        v = rng.uniform(-1.0, 1.0, shape)
    elif domain == "ge1":
        v = rng.uniform(1.05, 4.0, shape)
    elif domain in ("bits", "shift"):
        v = rng.integers(0, 8, size=shape).astype(np.float64)
    else:
        raise ValueError(domain)
    return np.asarray(v, np.float64)


def shape_st(min_dims=0, max_dims=3, min_side=0, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def layout_st(shape):
    if len(shape) >= 2:
        return st.sampled_from("cts")
    if len(shape) == 1:
        return st.sampled_from("cs")
    return st.just("c")


@st.composite
def arr(draw, shape, dtype, domain="real", grad=True, layout=True, rng=None):
    rng = rng or np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    lay = draw(layout_st(shape)) if layout else "c"
    return Arr(values(rng, shape, dtype, domain), dtype, lay, grad=grad and dtype in FLOATS)


def dim_st(ndim, allow_bad=True):
    """A dim for a tensor of `ndim` dims (0-d tensors take 0 / -1); one draw in ten is out of range."""
    n = max(ndim, 1)
    good = st.integers(-n, n - 1)
    if not allow_bad:
        return good
    return st.one_of(good, good, good, good, good, good, good, good, good, st.sampled_from([n, -n - 1]))


def bcast_shape(draw, shape):
    """A shape that broadcasts with `shape`: each trailing dim kept or 1, possibly fewer or more dims."""
    out = [draw(st.sampled_from([s, 1])) for s in shape]
    drop = draw(st.integers(0, len(out)))
    out = out[drop:]
    if draw(st.integers(0, 4)) == 0:
        out = [draw(st.integers(1, 3))] + out
    return tuple(out)


def _dtype(draw, dtypes):
    return draw(st.sampled_from(dtypes))


def scalar_for(draw, dtype, domain):
    """A Python scalar operand: an int, a float or a bool, within the domain."""
    kind = draw(st.sampled_from(["int", "float", "float", "bool"] if domain in ("real", "nonneg", "small", "prob")
                                else ["int", "float"]))
    if kind == "bool":
        return draw(st.booleans())
    lo, hi = {"real": (-3, 3), "pos": (1, 3), "nonneg": (0, 3), "unit": (-1, 1), "nonzero": (1, 3),
              "small": (-1, 1), "ge1": (2, 3), "prob": (0, 1), "bits": (0, 7), "shift": (0, 3)}[domain]
    if kind == "int":
        v = draw(st.integers(lo, hi))
        if domain == "nonzero" and v == 0:
            v = 1
        return v
    v = draw(st.sampled_from([0.5, 1.5, 2.25, 0.25]))
    if domain == "unit":
        v = v / 3
    if domain in ("real", "small", "nonzero") and draw(st.booleans()):
        v = -v
    return v


# ---------------------------------------------------------------- families
@st.composite
def unary(draw, domain="real", dtypes=ALL_DTYPES, extra=None, max_dims=3):
    """x, then whatever `extra(draw, x)` returns as (more args, kwargs)."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    shape = draw(shape_st(max_dims=max_dims))
    x = draw(arr(shape, _dtype(draw, dtypes), domain))
    more, kw = extra(draw, x) if extra else ((), {})
    return Case([x, *more], kw, seed)


@st.composite
def binary(draw, da="real", db=None, dtypes=NUMERIC, dtypes_b=None, scalars=True, extra=None, grad_b=True,
           scalar_first=False):
    """x and `other`: same shape, broadcastable, a 0-d tensor (possibly another dtype) or a Python scalar."""
    db = db or da
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    shape = draw(shape_st())
    dt = _dtype(draw, dtypes)
    x = draw(arr(shape, dt, da, rng=rng))
    kinds = ["same", "bcast", "bcast", "0d"] + (["scalar", "scalar"] if scalars else [])
    kind = draw(st.sampled_from(kinds))
    mixed = draw(st.integers(0, 3)) == 0
    dt_b = _dtype(draw, dtypes_b or dtypes) if mixed or dtypes_b else dt
    if kind == "scalar":
        other = scalar_for(draw, dt, db)
    else:
        oshape = shape if kind == "same" else () if kind == "0d" else bcast_shape(draw, shape)
        other = draw(arr(oshape, dt_b, db, grad=grad_b, rng=rng))
    if scalar_first and kind != "scalar" and draw(st.booleans()):
        x, other = other, x
    more, kw = extra(draw, x, other) if extra else ((), {})
    return Case([x, other, *more], kw, seed)


@st.composite
def nary(draw, n, domains, dtypes=FLOATS, extra=None, bcast=True):
    """n tensors of one shape (some of them broadcast), one dtype or mixed."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    shape = draw(shape_st())
    dt = _dtype(draw, dtypes)
    out = [draw(arr(shape, dt, domains[0], rng=rng))]
    for i in range(1, n):
        s = bcast_shape(draw, shape) if bcast and draw(st.booleans()) else shape
        out.append(draw(arr(s, dt, domains[i], rng=rng)))
    more, kw = extra(draw, *out) if extra else ((), {})
    return Case([*out, *more], kw, seed)


def ndim_of(a):
    return np.ndim(a.values)


def shape_of(a):
    return tuple(np.shape(a.values))


@st.composite
def reduction(draw, domain="real", dtypes=NUMERIC, dim="optional", keepdim=True, tuple_dims=True,
              dtype_kw=(), extra=None, min_dims=0, distinct=False):
    """x with dim (None / an int / a tuple of ints), keepdim, optionally dtype=."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    shape = draw(shape_st(min_dims=min_dims))
    dt = _dtype(draw, dtypes)
    x = draw(arr(shape, dt, domain, rng=rng))
    if distinct and dt != "bool":
        n = int(np.prod(shape))
        v = rng.permutation(n).reshape(shape).astype(np.float64) - n // 2
        x.values = v * 0.5 if dt in FLOATS else v.astype(np.int64)
    kw = {}
    args = []
    nd = len(shape)
    choice = draw(st.sampled_from(["none", "int", "int", "tuple"] if dim == "optional" and tuple_dims else
                                  ["none", "int", "int"] if dim == "optional" else ["int"]))
    if choice == "int":
        d = draw(dim_st(nd))
        if draw(st.booleans()):
            kw["dim"] = d
        else:
            args.append(d)
    elif choice == "tuple" and nd >= 1:
        k = draw(st.integers(1, nd))
        kw["dim"] = tuple(draw(st.permutations(range(nd)))[:k])
    if keepdim and "dim" in kw or args:
        if keepdim and draw(st.booleans()):
            kw["keepdim"] = True
    if dtype_kw and draw(st.integers(0, 3)) == 0:
        kw["dtype"] = DT(draw(st.sampled_from(dtype_kw)))
    if extra:
        more_args, more_kw = extra(draw, x)
        args += list(more_args)
        kw.update(more_kw)
    return Case([x, *args], kw, seed)


@st.composite
def custom(draw, fn):
    """A one-off generator: `fn(draw, rng)` returns (args, kwargs)."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    args, kw = fn(draw, rng)
    return Case(args, kw, seed)


def tensor_st(draw, rng, shape=None, dtypes=NUMERIC, domain="real", grad=True, min_dims=0, max_dims=3, max_side=4,
              min_side=0):
    if shape is None:
        shape = draw(shape_st(min_dims=min_dims, max_dims=max_dims, max_side=max_side, min_side=min_side))
    return draw(arr(tuple(shape), _dtype(draw, dtypes), domain, grad=grad, rng=rng))


def index_arr(rng, shape, high, dtype="int64"):
    return Arr(rng.integers(0, max(high, 1), size=shape).astype(np.int64) if high > 0 else
               np.zeros(shape, np.int64), dtype)
