"""The op table: every op the shim binds, with the generator of its arguments.

`SPECS` maps an op's base name (torch's name) to a `Spec`; `table()` derives one entry per bound name from
`_bindings.METHODS`, `INPLACE`, `DUNDERS`, `INPLACE_DUNDERS`, the functions `torch.*` exports and
`torch.nn.functional`. Names that have no generator are listed in `NOT_GENERATED` with the reason;
`unlisted()` names any bound op that is in neither (a test fails on it).
"""
import inspect

import numpy as np
from hypothesis import strategies as st

from . import gens as g
from .gens import F32_64, FLOATS, INTS, INTS_BOOL, NUMERIC, Arr, DT
from .harness import ALL_DTYPES


class Spec:
    """gen: strategy of Case. grad: compare gradients of float leaves. meta: compare shape and dtype only
    (random values). tol / grad_tol: {dtype: (rtol, atol)} where an op's result is legitimately less exact
    than one rounding (each use says why)."""

    def __init__(self, gen, grad=True, meta=False, tol=None, grad_tol=None, method_gen=None):
        self.gen, self.grad, self.meta, self.tol, self.grad_tol = gen, grad, meta, tol, grad_tol
        self.method_gen = method_gen  # where Tensor.<name> takes other arguments than torch.<name>


class Op:
    def __init__(self, id, kind, name, spec, gen=None):
        self.id, self.kind, self.name, self.spec = id, kind, name, spec
        self.gen = gen if gen is not None else spec.gen
        self.inplace = kind in ("inplace", "inplace_dunder")
        self.grad, self.meta, self.tol, self.grad_tol = spec.grad, spec.meta, spec.tol, spec.grad_tol

    def call(self, T, args, kwargs):
        if self.kind == "function":
            return getattr(T, self.name)(*args, **kwargs)
        if self.kind == "functional":
            return getattr(T.nn.functional, self.name)(*args, **kwargs)
        if self.kind in ("method", "inplace"):
            return getattr(args[0], self.name)(*args[1:], **kwargs)
        # dunders take exactly their operands
        return getattr(args[0], self.name)(*args[1:])

    def __repr__(self):
        return self.id


# ---------------------------------------------------------------- helpers for extras
def kw_maybe(draw, name, strategy):
    return {name: draw(strategy)} if draw(st.booleans()) else {}


def dim_kw(draw, x, name="dim", positional=True):
    d = draw(g.dim_st(g.ndim_of(x)))
    if positional and draw(st.booleans()):
        return (d,), {}
    return (), {name: d}


def sorted_distinct(rng, shape, dtype):
    n = int(np.prod(shape))
    v = rng.permutation(n).reshape(shape) - n // 2
    return (v * 0.5 if dtype in FLOATS else v).astype(np.float64 if dtype in FLOATS else np.int64)


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1e30])


def special_values(draw, rng, dtypes=FLOATS):
    shape = draw(g.shape_st(min_dims=1))
    dt = draw(st.sampled_from(dtypes))
    if dt in FLOATS:
        v = rng.choice(SPECIAL, size=shape)
    else:
        v = g.values(rng, shape, dt, "real")
    return Arr(v, dt, draw(g.layout_st(shape)), grad=False)


# ---------------------------------------------------------------- pointwise
UNARY_FLOAT = {  # name -> value domain; torch computes these in float (ints promote to the default dtype)
    "exp": "real", "exp2": "real", "expm1": "real", "sin": "real", "cos": "real", "atan": "real", "arctan": "real",
    "sinh": "real", "cosh": "real", "tanh": "real", "sigmoid": "real", "erf": "real", "erfc": "real",
    "log": "pos", "log2": "pos", "log10": "pos", "log1p": "pos", "sqrt": "pos", "rsqrt": "pos", "asin": "unit",
    "acos": "unit", "arcsin": "unit", "arccos": "unit", "erfinv": "unit", "tan": "unit", "reciprocal": "nonzero",
}
UNARY_ANY = {  # keep the input dtype where torch does
    "neg": "real", "negative": "real", "abs": "real", "absolute": "real", "sign": "real", "sgn": "real",
    "floor": "real", "ceil": "real", "trunc": "real", "fix": "real", "frac": "real", "square": "real",
    "relu": "real",
}

SPECS = {}
for _n, _d in UNARY_FLOAT.items():
    SPECS[_n] = Spec(g.unary(_d, ALL_DTYPES))
for _n, _d in UNARY_ANY.items():
    SPECS[_n] = Spec(g.unary(_d, ALL_DTYPES))
SPECS["round"] = Spec(g.unary("real", ALL_DTYPES, extra=lambda d, x: ((), kw_maybe(d, "decimals", st.integers(0, 2))
                                                                       if x.dtype in FLOATS else {})))
SPECS["logical_not"] = Spec(g.unary("real", ALL_DTYPES))
SPECS["bitwise_not"] = Spec(g.unary("bits", ALL_DTYPES))
for _n in ("isnan", "isinf", "isfinite", "isneginf", "isposinf"):
    SPECS[_n] = Spec(g.custom(lambda d, rng: ([special_values(d, rng, NUMERIC)], {})))


def _nan_to_num(d, rng):
    x = special_values(d, rng, FLOATS)
    kw = {}
    for k in ("nan", "posinf", "neginf"):
        if d(st.booleans()):
            kw[k] = d(st.sampled_from([0.0, 1.5, -3.0]))
    return [x], kw


SPECS["nan_to_num"] = Spec(g.custom(_nan_to_num), grad=False)


def _clamp_extra(d, x):
    form = d(st.sampled_from(["both", "min", "max", "tensor", "pos"]))
    lo, hi = d(st.sampled_from([-1, -0.5, 0])), d(st.sampled_from([0.5, 1, 2]))
    if form == "both":
        return (), {"min": lo, "max": hi}
    if form == "min":
        return (), {"min": lo}
    if form == "max":
        return (), {"max": hi}
    if form == "pos":
        return (lo, hi), {}
    rng = np.random.default_rng(d(st.integers(0, 99)))
    return (), {"min": g.Arr(g.values(rng, g.shape_of(x)[-1:], x.dtype, "small"), x.dtype, grad=False)}


SPECS["clamp"] = SPECS["clip"] = Spec(g.unary("real", NUMERIC, extra=_clamp_extra))
SPECS["clamp_min"] = Spec(g.unary("real", NUMERIC, extra=lambda d, x: ((d(st.sampled_from([-1, 0.5, 0])),), {})))
SPECS["clamp_max"] = Spec(g.unary("real", NUMERIC, extra=lambda d, x: ((d(st.sampled_from([-1, 0.5, 0])),), {})))


def _alpha(d, x, o):
    return (), kw_maybe(d, "alpha", st.sampled_from([2, -1, 0.5]))


def _rounding(d, x, o):
    return (), kw_maybe(d, "rounding_mode", st.sampled_from([None, "floor", "trunc"]))


SPECS["add"] = Spec(g.binary("real", dtypes=ALL_DTYPES, extra=_alpha))
SPECS["sub"] = SPECS["subtract"] = Spec(g.binary("real", dtypes=NUMERIC, extra=_alpha))
SPECS["rsub"] = Spec(g.binary("real", dtypes=NUMERIC, extra=_alpha))
SPECS["mul"] = SPECS["multiply"] = Spec(g.binary("real", dtypes=ALL_DTYPES))
SPECS["div"] = SPECS["divide"] = Spec(g.binary("real", "nonzero", dtypes=NUMERIC, extra=_rounding))
SPECS["true_divide"] = Spec(g.binary("real", "nonzero", dtypes=NUMERIC))
SPECS["floor_divide"] = Spec(g.binary("real", "nonzero", dtypes=NUMERIC), grad=False)
SPECS["remainder"] = Spec(g.binary("real", "nonzero", dtypes=NUMERIC))
SPECS["fmod"] = Spec(g.binary("real", "nonzero", dtypes=NUMERIC))
SPECS["pow"] = Spec(g.binary("pos", "small", dtypes=NUMERIC, scalar_first=False))
for _n in ("maximum", "minimum", "fmax", "fmin"):
    SPECS[_n] = Spec(g.binary("real", dtypes=ALL_DTYPES))
SPECS["atan2"] = SPECS["arctan2"] = Spec(g.binary("real", "nonzero", dtypes=NUMERIC))
SPECS["hypot"] = Spec(g.binary("real", "nonzero", dtypes=FLOATS))
for _n in ("eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal"):
    SPECS[_n] = Spec(g.binary("small", dtypes=ALL_DTYPES))
for _n in ("logical_and", "logical_or", "logical_xor"):
    SPECS[_n] = Spec(g.binary("small", dtypes=ALL_DTYPES))
for _n in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    SPECS[_n] = Spec(g.binary("bits", dtypes=INTS_BOOL + ("float32",), dtypes_b=INTS_BOOL))
SPECS["bitwise_left_shift"] = Spec(g.binary("bits", "shift", dtypes=INTS))
SPECS["isclose"] = Spec(g.binary("small", dtypes=NUMERIC, extra=lambda d, x, o: (
    (), {**kw_maybe(d, "rtol", st.sampled_from([1e-5, 0.1])), **kw_maybe(d, "atol", st.sampled_from([1e-8, 0.5])),
         **kw_maybe(d, "equal_nan", st.booleans())})))
SPECS["allclose"] = Spec(g.binary("small", dtypes=NUMERIC, extra=lambda d, x, o: (
    (), kw_maybe(d, "atol", st.sampled_from([1e-8, 0.5])))))
SPECS["equal"] = Spec(g.binary("small", dtypes=ALL_DTYPES, scalars=False))


def _masked_fill(d, rng):
    x = g.tensor_st(d, rng, dtypes=ALL_DTYPES)
    mask = Arr(rng.random(g.bcast_shape(d, g.shape_of(x))) < 0.5, "bool")
    v = d(st.sampled_from(["scalar", "0d"]))
    value = g.scalar_for(d, x.dtype, "real") if v == "scalar" else Arr(np.array(1.5), d(st.sampled_from(FLOATS)),
                                                                            grad=False)
    return [x, mask, value], {}


SPECS["masked_fill"] = Spec(g.custom(_masked_fill))


def _where(d, rng, method=False):
    shape = d(g.shape_st())
    cond = Arr(rng.random(g.bcast_shape(d, shape)) < 0.5, "bool")
    if not method and d(st.integers(0, 5)) == 0:
        return [Arr(g.values(rng, shape, d(st.sampled_from(ALL_DTYPES)), "small"), "float32")], {}
    dt = d(st.sampled_from(ALL_DTYPES))
    x = d(g.arr(shape, dt, rng=rng))
    y = d(st.sampled_from(["t", "b", "s"]))
    y = d(g.arr(g.bcast_shape(d, shape), d(st.sampled_from([dt, dt, "float32", "int64"])), rng=rng)) \
        if y != "s" else g.scalar_for(d, dt, "real")
    return ([x, cond, y] if method else [cond, x, y]), {}


SPECS["where"] = Spec(g.custom(_where), method_gen=g.custom(lambda d, rng: _where(d, rng, True)))


def _lerp(d, rng):
    dt = d(st.sampled_from(FLOATS))
    shape = d(g.shape_st())
    x = d(g.arr(shape, dt, rng=rng))
    end = d(g.arr(g.bcast_shape(d, shape), dt, rng=rng))
    w = d(st.sampled_from([0.3, 1.5])) if d(st.booleans()) else d(g.arr(g.bcast_shape(d, shape), dt, "prob",
                                                                         rng=rng))
    return [x, end, w], {}


SPECS["lerp"] = Spec(g.custom(_lerp))
_value = lambda d, *a: ((), kw_maybe(d, "value", st.sampled_from([0.5, 2, -1])))  # noqa: E731
SPECS["addcmul"] = Spec(g.nary(3, ["real", "real", "real"], FLOATS, extra=_value))
SPECS["addcdiv"] = Spec(g.nary(3, ["real", "real", "nonzero"], FLOATS, extra=_value))

# ---------------------------------------------------------------- reductions
SPECS["sum"] = Spec(g.reduction("real", ALL_DTYPES, dtype_kw=("float64", "float32", "int64")))
SPECS["nansum"] = Spec(g.reduction("real", NUMERIC, dtype_kw=("float64",)))
SPECS["mean"] = Spec(g.reduction("real", ALL_DTYPES, dtype_kw=("float64", "float32")))
SPECS["prod"] = Spec(g.reduction("small", ALL_DTYPES, tuple_dims=False, dtype_kw=("float64", "int64")))
SPECS["amax"] = SPECS["amin"] = Spec(g.reduction("real", ALL_DTYPES, distinct=True))
SPECS["all"] = SPECS["any"] = Spec(g.reduction("small", ALL_DTYPES))
SPECS["argmax"] = SPECS["argmin"] = Spec(g.reduction("real", NUMERIC, tuple_dims=False, distinct=True))
SPECS["count_nonzero"] = Spec(g.reduction("small", ALL_DTYPES, keepdim=False))
SPECS["logsumexp"] = Spec(g.reduction("real", NUMERIC, dim="required"))


def _maxmin(d, rng):
    if d(st.integers(0, 3)) == 0:  # torch.max(input, other): maximum
        c = d(g.binary("real", dtypes=NUMERIC, scalars=False))
        return c.args, c.kwargs
    c = d(g.reduction("real", ALL_DTYPES, tuple_dims=False, distinct=True))
    return c.args, c.kwargs


SPECS["max"] = SPECS["min"] = Spec(g.custom(_maxmin))


def _aminmax(d, rng):
    c = d(g.reduction("real", NUMERIC, tuple_dims=False, distinct=True))
    kw = dict(c.kwargs)
    if len(c.args) > 1:
        kw["dim"] = c.args[1]
    return c.args[:1], kw


SPECS["aminmax"] = Spec(g.custom(_aminmax))


def _correction(d, x):
    form = d(st.sampled_from(["none", "corr", "unbiased"]))
    if form == "corr":
        return (), {"correction": d(st.sampled_from([0, 1, 2]))}
    if form == "unbiased":
        return (), {"unbiased": d(st.booleans())}
    return (), {}


for _n in ("var", "std", "var_mean", "std_mean"):
    SPECS[_n] = Spec(g.reduction("real", FLOATS, extra=_correction))
for _n in ("cumsum", "cumprod"):
    SPECS[_n] = Spec(g.reduction("small", ALL_DTYPES, dim="required", keepdim=False,
                                 dtype_kw=("float64", "int64")))
for _n in ("softmax", "log_softmax"):
    SPECS[_n] = Spec(g.reduction("real", FLOATS + INTS, dim="required", keepdim=False,
                                 dtype_kw=("float64", "float32")))


def _norm(d, x):
    return (), {**kw_maybe(d, "p", st.sampled_from(["fro", 1, 2, 3.0])),
                **kw_maybe(d, "dtype", st.sampled_from([DT("float64")]))}


SPECS["norm"] = Spec(g.reduction("nonzero", FLOATS, extra=_norm))


def _topk(d, rng):
    x = d(g.reduction("real", NUMERIC, dim="required", keepdim=False, distinct=True, tuple_dims=False))
    v = x.args[0]
    dim = x.args[1] if len(x.args) > 1 else x.kwargs.get("dim", -1)
    shape = g.shape_of(v) or (1,)
    size = shape[dim] if -len(shape) <= dim < len(shape) else 1
    k = d(st.integers(0, size + (1 if d(st.integers(0, 9)) == 0 else 0)))
    kw = {"dim": dim, **kw_maybe(d, "largest", st.booleans())}
    return [v, k], kw


SPECS["topk"] = Spec(g.custom(_topk))


def _sort_kw(d, x):
    return (), {**kw_maybe(d, "descending", st.booleans()), **kw_maybe(d, "stable", st.booleans())}


SPECS["sort"] = SPECS["argsort"] = Spec(g.reduction("real", NUMERIC, dim="required", keepdim=False,
                                                    distinct=True, extra=_sort_kw))


def _unique(d, rng, consecutive=False):
    x = g.tensor_st(d, rng, dtypes=NUMERIC + ("bool",), domain="small")
    if x.dtype in FLOATS:
        x.values = np.round(x.values * 2) / 2
    kw = {**kw_maybe(d, "return_inverse", st.booleans()), **kw_maybe(d, "return_counts", st.booleans())}
    if d(st.integers(0, 3)) == 0 and g.ndim_of(x) >= 1:
        kw["dim"] = d(g.dim_st(g.ndim_of(x), allow_bad=False))
    return [x], kw


SPECS["unique"] = Spec(g.custom(_unique), grad=False)
SPECS["unique_consecutive"] = Spec(g.custom(lambda d, rng: _unique(d, rng, True)), grad=False)


def _diff(d, x):
    return (), {**kw_maybe(d, "n", st.integers(1, 2)), **kw_maybe(d, "dim", g.dim_st(g.ndim_of(x)))}


SPECS["diff"] = Spec(g.unary("real", NUMERIC + ("bool",), extra=_diff))

# ---------------------------------------------------------------- linear algebra
MM_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64")
MM_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)}  # k-term dot products: rounding accumulates


def _mats(d, rng, shapes, dt=None, domains=None):
    dt = dt or d(st.sampled_from(MM_DTYPES))
    return [d(g.arr(s, dt, (domains or ["real"] * len(shapes))[i], rng=rng)) for i, s in enumerate(shapes)]


def _matmul(d, rng):
    n, k, m, b = (d(st.integers(0, 3)) for _ in range(4))
    form = d(st.sampled_from(["1-1", "1-2", "2-1", "2-2", "3-2", "2-3", "3-3", "bad"]))
    shapes = {"1-1": [(k,), (k,)], "1-2": [(k,), (k, m)], "2-1": [(n, k), (k,)], "2-2": [(n, k), (k, m)],
              "3-2": [(b, n, k), (k, m)], "2-3": [(n, k), (b, k, m)], "3-3": [(b, n, k), (1, k, m)],
              "bad": [(n, k), (k + 1, m)]}[form]
    return _mats(d, rng, shapes), {}


SPECS["matmul"] = Spec(g.custom(_matmul), tol=MM_TOL, grad_tol=MM_TOL)
_dims = lambda d: [d(st.integers(0, 3)) for _ in range(4)]  # noqa: E731
SPECS["mm"] = Spec(g.custom(lambda d, rng: (lambda n, k, m, b: (_mats(d, rng, [(n, k), (k, m)]), {}))(*_dims(d))),
                   tol=MM_TOL, grad_tol=MM_TOL)
SPECS["bmm"] = Spec(g.custom(lambda d, rng: (lambda n, k, m, b: (_mats(d, rng, [(b, n, k), (b, k, m)]), {}))(
    *_dims(d))), tol=MM_TOL, grad_tol=MM_TOL)


def _beta_alpha(d):
    return {**kw_maybe(d, "beta", st.sampled_from([0, 0.5, 2])), **kw_maybe(d, "alpha", st.sampled_from([0.5, 2]))}


def _addmm(d, rng, batched):
    n, k, m, b = _dims(d)
    out = (b, n, m) if batched else (n, m)
    inp = d(st.sampled_from([out, out[-1:], ()]))
    mats = _mats(d, rng, [inp, (b, n, k) if batched else (n, k), (b, k, m) if batched else (k, m)])
    return mats, _beta_alpha(d)


SPECS["addmm"] = Spec(g.custom(lambda d, rng: _addmm(d, rng, False)), tol=MM_TOL, grad_tol=MM_TOL)
SPECS["baddbmm"] = Spec(g.custom(lambda d, rng: _addmm(d, rng, True)), tol=MM_TOL, grad_tol=MM_TOL)
SPECS["outer"] = Spec(g.custom(lambda d, rng: (_mats(d, rng, [(d(st.integers(0, 4)),), (d(st.integers(0, 4)),)]),
                                               {})))
SPECS["dot"] = Spec(g.custom(lambda d, rng: (lambda k: (_mats(d, rng, [(k,), (k,)]), {}))(d(st.integers(0, 5)))),
                    tol=MM_TOL, grad_tol=MM_TOL)


def _einsum(d, rng):
    eq, shapes = d(st.sampled_from([
        ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]), ("ii->i", [(3, 3)]),
        ("ij->ji", [(2, 3)]), ("i,i->", [(4,), (4,)]), ("i,j->ij", [(2,), (3,)]), ("bhqd,bhkd->bhqk",
                                                                                   [(1, 2, 3, 4), (1, 2, 2, 4)]),
        ("ij->", [(2, 3)]), ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)])]))
    return [eq, *_mats(d, rng, shapes, dt=d(st.sampled_from(FLOATS)))], {}


SPECS["einsum"] = Spec(g.custom(_einsum), tol=MM_TOL, grad_tol=MM_TOL)


def _cross(d, rng):
    shape = tuple(d(g.shape_st(max_dims=2, min_side=1))) + (3,)
    a, b = _mats(d, rng, [shape, shape], dt=d(st.sampled_from(FLOATS + INTS)))
    return [a, b], kw_maybe(d, "dim", st.sampled_from([-1, len(shape) - 1]))


SPECS["cross"] = Spec(g.custom(_cross))

# ---------------------------------------------------------------- shape
def _x(d, rng, dtypes=ALL_DTYPES, **kw):
    return g.tensor_st(d, rng, dtypes=dtypes, **kw)


def _reshape_target(d, shape):
    n = int(np.prod(shape))
    target = list(d(st.permutations(list(shape)))) if shape else []
    if target and d(st.booleans()):  # merge two neighbours
        i = d(st.integers(0, len(target) - 1))
        target[i:i + 2] = [int(np.prod(target[i:i + 2]))]
    if d(st.booleans()):
        target = target + [1]
    if target and n > 0 and d(st.booleans()):
        target[d(st.integers(0, len(target) - 1))] = -1
    if d(st.integers(0, 9)) == 0:
        target = target + [2]  # wrong number of elements
    return tuple(target)


def _reshape(d, rng):
    x = _x(d, rng)
    t = _reshape_target(d, g.shape_of(x))
    return [x, *t] if d(st.booleans()) else [x, t], {}


SPECS["reshape"] = SPECS["view"] = Spec(g.custom(_reshape))
SPECS["reshape"].method_gen = g.custom(_reshape)
SPECS["torch.reshape"] = Spec(g.custom(lambda d, rng: (lambda a: ([a[0][0], tuple(a[0][1:]) if len(a[0]) != 2 or
                                                                    not isinstance(a[0][1], tuple) else a[0][1]],
                                                                   {}))(_reshape(d, rng))))


def _as_other(d, rng):
    x = _x(d, rng)
    t = _reshape_target(d, g.shape_of(x))
    return [x, Arr(np.zeros([abs(s) if s != -1 else 1 for s in t]), "float32", grad=False)], {}


SPECS["view_as"] = SPECS["reshape_as"] = Spec(g.custom(_as_other))


def _two_dims(d, rng):
    x = _x(d, rng)
    return [x, d(g.dim_st(g.ndim_of(x))), d(g.dim_st(g.ndim_of(x)))], {}


SPECS["transpose"] = SPECS["swapaxes"] = SPECS["swapdims"] = Spec(g.custom(_two_dims))
SPECS["t"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, max_dims=d(st.sampled_from([0, 1, 2, 2, 3])))], {})))


def _permute(d, rng):
    x = _x(d, rng)
    p = list(d(st.permutations(range(g.ndim_of(x)))))
    if p and d(st.booleans()):
        p[0] -= g.ndim_of(x)
    if d(st.integers(0, 9)) == 0:
        p = p + [0]
    return ([x, *p] if d(st.booleans()) else [x, tuple(p)]), {}


SPECS["permute"] = Spec(g.custom(_permute), method_gen=g.custom(_permute))
SPECS["torch.permute"] = Spec(g.custom(lambda d, rng: (lambda a: ([a[0][0], tuple(a[0][1:]) if len(a[0]) != 2 or
                                                                    not isinstance(a[0][1], tuple) else a[0][1]],
                                                                   {}))(_permute(d, rng))))


def _movedim(d, rng):
    x = _x(d, rng, min_dims=1)
    nd = g.ndim_of(x)
    if d(st.booleans()):
        return [x, d(g.dim_st(nd)), d(g.dim_st(nd))], {}
    k = d(st.integers(1, nd))
    return [x, tuple(d(st.permutations(range(nd)))[:k]), tuple(d(st.permutations(range(nd)))[:k])], {}


SPECS["movedim"] = SPECS["moveaxis"] = Spec(g.custom(_movedim))
SPECS["unsqueeze"] = Spec(g.custom(lambda d, rng: (lambda x: ([x, d(g.dim_st(g.ndim_of(x) + 1))], {}))(_x(d, rng))))


def _squeeze(d, rng):
    x = _x(d, rng, max_side=2)
    nd = g.ndim_of(x)
    form = d(st.sampled_from(["none", "int", "tuple"]))
    if form == "int":
        return [x, d(g.dim_st(nd))], {}
    if form == "tuple" and nd:
        return [x, tuple(d(st.permutations(range(nd)))[:d(st.integers(1, nd))])], {}
    return [x], {}


SPECS["squeeze"] = Spec(g.custom(_squeeze))


def _flatten(d, rng):
    x = _x(d, rng)
    nd = g.ndim_of(x)
    kw = {**kw_maybe(d, "start_dim", g.dim_st(nd)), **kw_maybe(d, "end_dim", g.dim_st(nd))}
    return [x], kw


SPECS["flatten"] = Spec(g.custom(_flatten))


def _unflatten(d, rng):
    x = _x(d, rng, min_dims=1)
    dim = d(g.dim_st(g.ndim_of(x), allow_bad=False))
    n = g.shape_of(x)[dim]
    sizes = d(st.sampled_from([(n,), (1, n), (n, 1), (-1, 1), (n, -1) if n else (0, 1)]))
    if n == 4 and d(st.booleans()):
        sizes = (2, 2)
    return [x, dim, sizes], {}


SPECS["unflatten"] = Spec(g.custom(_unflatten))


def _expand_sizes(d, shape):
    out = [d(st.sampled_from([s, -1] + ([2, 3] if s == 1 else []))) for s in shape]
    if d(st.booleans()):
        out = [d(st.integers(0, 2))] + out
    return tuple(out)


def _expand(d, rng):
    x = _x(d, rng, max_side=3)
    s = _expand_sizes(d, g.shape_of(x))
    return ([x, *s] if d(st.booleans()) and s else [x, s]), {}


SPECS["expand"] = Spec(g.custom(_expand))
SPECS["broadcast_to"] = Spec(g.custom(lambda d, rng: (lambda x: (
    [x, tuple(s if s != -1 else g.shape_of(x)[i - (len(s_) - g.ndim_of(x))] for i, (s, s_) in
              enumerate(zip(_expand_sizes(d, g.shape_of(x)), [0] * 9)) if True)], {}))(_x(d, rng, max_side=3))))


def _broadcast_to(d, rng):
    x = _x(d, rng, max_side=3)
    shape = g.shape_of(x)
    target = tuple(d(st.sampled_from([s, 2, 3])) if s == 1 else s for s in shape)
    if d(st.booleans()):
        target = (2,) + target
    return [x, target], {}


SPECS["broadcast_to"] = Spec(g.custom(_broadcast_to))
SPECS["expand_as"] = Spec(g.custom(lambda d, rng: (lambda a: ([a[0][0], Arr(np.zeros(a[0][1]), "float32",
                                                                             grad=False)], {}))(_broadcast_to(d, rng))))


def _repeat(d, rng, tile=False):
    x = _x(d, rng, max_side=3)
    nd = g.ndim_of(x)
    reps = tuple(d(st.integers(0, 2)) for _ in range(d(st.integers(0 if tile else max(nd, 1) - 1 if nd else 0,
                                                                     nd + 1))))
    if tile:
        return [x, reps], {}
    return ([x, *reps] if d(st.booleans()) and reps else [x, reps]), {}


SPECS["repeat"] = Spec(g.custom(_repeat))
SPECS["tile"] = Spec(g.custom(lambda d, rng: _repeat(d, rng, True)))


def _repeat_interleave(d, rng):
    x = _x(d, rng, max_side=3)
    nd = g.ndim_of(x)
    if d(st.booleans()) and nd:
        dim = d(g.dim_st(nd, allow_bad=False))
        reps = Arr(rng.integers(0, 3, size=g.shape_of(x)[dim]), "int64")
        return [x, reps], {"dim": dim}
    return [x, d(st.integers(0, 3))], kw_maybe(d, "dim", g.dim_st(nd))


SPECS["repeat_interleave"] = Spec(g.custom(_repeat_interleave))


def _split(d, rng, form):
    x = _x(d, rng, min_dims=1, max_side=5)
    dim = d(g.dim_st(g.ndim_of(x)))
    n = g.shape_of(x)[dim] if -g.ndim_of(x) <= dim < g.ndim_of(x) else 3
    if form == "sections":
        return [x, d(st.integers(1, 3))], {"dim": dim}
    if form == "sizes":
        a = d(st.integers(0, n))
        sizes = [a, n - a] if d(st.integers(0, 9)) else [a, n - a + 1]
        return [x, sizes], {"dim": dim}
    if d(st.booleans()):
        return [x, d(st.integers(1, 3))], {"dim": dim}
    a = d(st.integers(0, n))
    return [x, [a, n - a]], {"dim": dim}


SPECS["split"] = Spec(g.custom(lambda d, rng: _split(d, rng, "either")))
SPECS["split_with_sizes"] = Spec(g.custom(lambda d, rng: _split(d, rng, "sizes")))
SPECS["chunk"] = Spec(g.custom(lambda d, rng: _split(d, rng, "sections")))


def _tensor_split(d, rng):
    x = _x(d, rng, min_dims=1, max_side=5)
    dim = d(g.dim_st(g.ndim_of(x)))
    if d(st.booleans()):
        return [x, d(st.integers(1, 4))], {"dim": dim}
    return [x, sorted(d(st.lists(st.integers(0, 5), max_size=3)))], {"dim": dim}


SPECS["tensor_split"] = Spec(g.custom(_tensor_split))
SPECS["unbind"] = Spec(g.custom(lambda d, rng: (lambda x: ([x], kw_maybe(d, "dim", g.dim_st(g.ndim_of(x)))))(
    _x(d, rng, min_dims=1))))


def _narrow(d, rng):
    x = _x(d, rng, min_dims=1, max_side=5)
    dim = d(g.dim_st(g.ndim_of(x)))
    n = g.shape_of(x)[dim] if -g.ndim_of(x) <= dim < g.ndim_of(x) else 2
    start = d(st.integers(-n, n)) if n else 0
    length = d(st.integers(0, n - (start % n if n else 0) + (1 if d(st.integers(0, 9)) == 0 else 0)))
    return [x, dim, start, length], {}


SPECS["narrow"] = Spec(g.custom(_narrow))


def _select(d, rng):
    x = _x(d, rng, min_dims=1, max_side=4)
    dim = d(g.dim_st(g.ndim_of(x)))
    n = g.shape_of(x)[dim] if -g.ndim_of(x) <= dim < g.ndim_of(x) else 2
    return [x, dim, d(st.integers(-n, n - 1)) if n else 0], {}


SPECS["select"] = Spec(g.custom(_select))


def _flip(d, rng):
    x = _x(d, rng)
    nd = g.ndim_of(x)
    dims = tuple(d(st.permutations(range(nd)))[:d(st.integers(0, nd))])
    return ([x, *dims] if d(st.booleans()) and dims else [x, dims]), {}


SPECS["flip"] = Spec(g.custom(_flip), method_gen=g.custom(_flip))
SPECS["torch.flip"] = Spec(g.custom(lambda d, rng: (lambda a: ([a[0][0], tuple(a[0][1:]) if len(a[0]) != 2 or
                                                                 not isinstance(a[0][1], tuple) else a[0][1]], {}))(
    _flip(d, rng))))


def _roll(d, rng):
    x = _x(d, rng)
    nd = g.ndim_of(x)
    if d(st.booleans()) or not nd:
        return [x, d(st.integers(-3, 3))], {}
    k = d(st.integers(1, nd))
    return [x, tuple(d(st.integers(-3, 3)) for _ in range(k)), tuple(d(st.permutations(range(nd)))[:k])], {}


SPECS["roll"] = Spec(g.custom(_roll))
SPECS["tril"] = SPECS["triu"] = Spec(g.custom(lambda d, rng: (
    [_x(d, rng, min_dims=d(st.sampled_from([1, 2, 2, 3])))], kw_maybe(d, "diagonal", st.integers(-2, 2)))))


def _diagonal(d, rng):
    x = _x(d, rng, min_dims=2)
    nd = g.ndim_of(x)
    kw = {**kw_maybe(d, "offset", st.integers(-2, 2))}
    if d(st.booleans()):
        a, b = d(st.permutations(range(nd)))[:2]
        kw.update(dim1=a, dim2=b)
    return [x], kw


SPECS["diagonal"] = Spec(g.custom(_diagonal))
SPECS["contiguous"] = Spec(g.custom(lambda d, rng: ([_x(d, rng)], {})))
SPECS["clone"] = SPECS["detach"] = SPECS["contiguous"]
SPECS["diag"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, min_dims=1, max_dims=2)],
                                              kw_maybe(d, "diagonal", st.integers(-2, 2)))))
SPECS["atleast_1d"] = SPECS["contiguous"]


def _tensors(d, rng, same_shape=False, min_dims=0):
    shape = d(g.shape_st(min_dims=min_dims))
    dt = d(st.sampled_from(ALL_DTYPES))
    out = []
    for _ in range(d(st.integers(1, 3))):
        s = list(shape)
        if not same_shape and s and d(st.booleans()):
            s[0] = d(st.integers(0, 3))
        out.append(d(g.arr(tuple(s), d(st.sampled_from([dt, dt, dt, "float32", "int64"])), rng=rng)))
    return out


def _cat(d, rng):
    ts = _tensors(d, rng, min_dims=1)
    return [ts], kw_maybe(d, "dim", st.sampled_from([0, 0, -1]))


SPECS["cat"] = SPECS["concat"] = SPECS["concatenate"] = Spec(g.custom(_cat))
SPECS["stack"] = Spec(g.custom(lambda d, rng: ([_tensors(d, rng, same_shape=True)],
                                               kw_maybe(d, "dim", st.sampled_from([0, -1, 1])))))
SPECS["hstack"] = SPECS["vstack"] = Spec(g.custom(lambda d, rng: ([_tensors(d, rng)], {})))
SPECS["broadcast_tensors"] = Spec(g.custom(lambda d, rng: (lambda x: (
    [x, d(g.arr(g.bcast_shape(d, g.shape_of(x)), x.dtype, rng=rng))], {}))(_x(d, rng))))
SPECS["meshgrid"] = Spec(g.custom(lambda d, rng: (
    [d(g.arr((d(st.integers(0, 3)),), "float32", rng=rng)), d(g.arr((d(st.integers(0, 3)),), "float32", rng=rng))],
    {"indexing": d(st.sampled_from(["ij", "xy"]))})))


def _view_as_dtype(d, rng):
    x = _x(d, rng, dtypes=("float32", "int32", "float16", "bfloat16"), min_dims=1)
    x.grad = False
    same = {"float32": ["int32"], "int32": ["float32"], "float16": ["bfloat16"], "bfloat16": ["float16"]}
    return [x, DT(d(st.sampled_from(same[x.dtype])))], {}


SPECS["view_as_dtype"] = Spec(g.custom(_view_as_dtype), grad=False)
SPECS["rsub"] = SPECS["rsub"]

# ---------------------------------------------------------------- indexing
def _index_select(d, rng):
    x = _x(d, rng, min_dims=1)
    dim = d(g.dim_st(g.ndim_of(x)))
    n = g.shape_of(x)[dim] if -g.ndim_of(x) <= dim < g.ndim_of(x) else 1
    idx = g.index_arr(rng, (d(st.integers(0, 4)),), n, d(st.sampled_from(["int64", "int32"])))
    return [x, dim, idx], {}


SPECS["index_select"] = Spec(g.custom(_index_select))


def _gather_like(d, rng, unique=False):
    x = _x(d, rng, min_dims=1, min_side=1)
    nd = g.ndim_of(x)
    dim = d(g.dim_st(nd, allow_bad=False))
    shape = g.shape_of(x)
    ishape = tuple(d(st.integers(1 if unique else 0, s)) for s in shape)
    if unique:
        # distinct indices along dim (a scatter with repeated indices has no defined winner)
        full = np.argsort(rng.random(shape), axis=dim)
        idx = np.take(full, range(ishape[dim]), axis=dim)
        idx = idx[tuple(slice(0, s) for s in ishape)]
    else:
        idx = rng.integers(0, shape[dim], size=ishape)
    return x, dim, Arr(idx.astype(np.int64), "int64")


SPECS["gather"] = Spec(g.custom(lambda d, rng: (lambda x, dim, idx: ([x, dim, idx], {}))(*_gather_like(d, rng))))


def _take_along_dim(d, rng):
    x, dim, idx = _gather_like(d, rng)
    return [x, idx], {"dim": dim}


SPECS["take_along_dim"] = Spec(g.custom(_take_along_dim))


def _scatter(d, rng, add=False):
    x, dim, idx = _gather_like(d, rng, unique=not add)
    if not add and d(st.booleans()):
        return [x, dim, idx], {"value": d(st.sampled_from([1.5, -2, 0]))}
    src = d(g.arr(g.shape_of(idx), x.dtype, rng=rng))
    return [x, dim, idx, src], {}


SPECS["scatter"] = Spec(g.custom(_scatter))
SPECS["scatter_add"] = Spec(g.custom(lambda d, rng: _scatter(d, rng, True)))


def _index_add(d, rng, fill=False):
    x = _x(d, rng, min_dims=1, min_side=1, dtypes=NUMERIC)
    nd = g.ndim_of(x)
    dim = d(g.dim_st(nd, allow_bad=False))
    shape = g.shape_of(x)
    k = d(st.integers(0, shape[dim]))
    idx = Arr(rng.permutation(shape[dim])[:k].astype(np.int64), "int64")
    if fill:
        return [x, dim, idx, d(st.sampled_from([1.5, -2, 0]))], {}
    src_shape = shape[:dim % nd] + (k,) + shape[dim % nd + 1:]
    return [x, dim, idx, d(g.arr(src_shape, x.dtype, rng=rng))], kw_maybe(d, "alpha", st.sampled_from([2, -1]))


SPECS["index_add"] = Spec(g.custom(_index_add))
SPECS["index_fill"] = Spec(g.custom(lambda d, rng: _index_add(d, rng, True)))


def _masked_select(d, rng):
    x = _x(d, rng)
    return [x, Arr(rng.random(g.bcast_shape(d, g.shape_of(x))) < 0.5, "bool")], {}


SPECS["masked_select"] = Spec(g.custom(_masked_select))


def _masked_scatter(d, rng):
    x = _x(d, rng)
    mask = Arr(rng.random(g.bcast_shape(d, g.shape_of(x))) < 0.5, "bool")
    n = int(np.prod(g.shape_of(x))) + d(st.integers(0, 2))
    return [x, mask, d(g.arr((n,), x.dtype, rng=rng))], {}


SPECS["masked_scatter"] = Spec(g.custom(_masked_scatter))
SPECS["nonzero"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, domain="small")], kw_maybe(d, "as_tuple",
                                                                                         st.booleans()))))
SPECS["argwhere"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, domain="small")], {})))


def _isin(d, rng):
    x = _x(d, rng, dtypes=NUMERIC, domain="small")
    test = _x(d, rng, dtypes=(x.dtype,), domain="small") if d(st.booleans()) else d(st.integers(-1, 1))
    return [x, test], kw_maybe(d, "invert", st.booleans())


SPECS["isin"] = Spec(g.custom(_isin), grad=False)


def _bucketize(d, rng, search=False):
    dt = d(st.sampled_from(NUMERIC))
    x = _x(d, rng, dtypes=(dt,))
    bounds = np.sort(g.values(rng, (d(st.integers(0, 5)),), dt, "real"))
    kw = {**kw_maybe(d, "right", st.booleans()), **kw_maybe(d, "out_int32", st.booleans())}
    if search:
        return [Arr(bounds, dt), x], kw
    return [x, Arr(bounds, dt)], kw


SPECS["bucketize"] = Spec(g.custom(_bucketize), grad=False)
SPECS["searchsorted"] = Spec(g.custom(lambda d, rng: _bucketize(d, rng, True)), grad=False)

# ---------------------------------------------------------------- creation
def _size(d):
    s = d(g.shape_st())
    return s


def _creation(d, rng, fill=False):
    s = _size(d)
    args = [*s] if d(st.booleans()) and s else [s]
    if fill:
        args = [s, d(st.sampled_from([1.5, 2, True, -1]))]
    return args, kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in ALL_DTYPES]))


for _n in ("zeros", "ones"):
    SPECS[_n] = Spec(g.custom(_creation), grad=False)
SPECS["empty"] = Spec(g.custom(_creation), grad=False, meta=True)
SPECS["full"] = Spec(g.custom(lambda d, rng: _creation(d, rng, True)), grad=False)


def _like(d, rng, fill=False):
    x = _x(d, rng)
    args = [x, d(st.sampled_from([1.5, 2, -1]))] if fill else [x]
    return args, kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in ALL_DTYPES]))


for _n in ("zeros_like", "ones_like"):
    SPECS[_n] = Spec(g.custom(_like), grad=False)
SPECS["empty_like"] = Spec(g.custom(_like), grad=False, meta=True)
SPECS["full_like"] = Spec(g.custom(lambda d, rng: _like(d, rng, True)), grad=False)


def _arange(d, rng):
    form = d(st.sampled_from(["end", "start-end", "step"]))
    num = st.sampled_from([0, 1, 3, 5, 2.5, -2])
    if form == "end":
        args = [d(num)]
    elif form == "start-end":
        args = [d(num), d(num)]
    else:
        args = [d(num), d(num), d(st.sampled_from([1, 2, 0.5, -1]))]
    return args, kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in NUMERIC]))


SPECS["arange"] = Spec(g.custom(_arange), grad=False)


def _linspace(d, rng, log=False):
    args = [d(st.sampled_from([0, -1.5, 2])), d(st.sampled_from([1, 3.5, -2])), d(st.integers(0, 6))]
    kw = kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in F32_64 + INTS]))
    if log:
        kw.update(kw_maybe(d, "base", st.sampled_from([2.0, 10.0])))
    return args, kw


SPECS["linspace"] = Spec(g.custom(_linspace), grad=False)
SPECS["logspace"] = Spec(g.custom(lambda d, rng: _linspace(d, rng, True)), grad=False)
SPECS["eye"] = Spec(g.custom(lambda d, rng: ([d(st.integers(0, 4))] + ([d(st.integers(0, 4))] if d(st.booleans())
                                                                        else []),
                                             kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in ALL_DTYPES])))),
                    grad=False)


def _data(d, rng):
    form = d(st.sampled_from(["list", "nested", "scalar", "numpy", "bools"]))
    if form == "list":
        data = [d(st.sampled_from([1, 2.5, -3])) for _ in range(d(st.integers(0, 4)))]
    elif form == "nested":
        data = [[d(st.integers(-3, 3)) for _ in range(2)] for _ in range(d(st.integers(1, 3)))]
    elif form == "scalar":
        data = d(st.sampled_from([1, 2.5, True, -4]))
    elif form == "bools":
        data = [True, False]
    else:
        data = g.values(rng, d(g.shape_st()), d(st.sampled_from(["float32", "int64", "bool"])), "real")
        data = data.astype(np.float32) if data.dtype == np.float64 else data
    return [data], kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in ALL_DTYPES]))


for _n in ("tensor", "as_tensor", "asarray"):
    SPECS[_n] = Spec(g.custom(_data), grad=False)
SPECS["from_numpy"] = Spec(g.custom(lambda d, rng: ([g.values(rng, d(g.shape_st()), d(st.sampled_from(
    ["float64", "int64", "bool"])), "real").astype(d(st.sampled_from([np.float32, np.float64, np.int64, np.int32])))],
                                                    {})), grad=False)
SPECS["scalar_tensor"] = Spec(g.custom(lambda d, rng: ([d(st.sampled_from([1, 2.5, True]))], kw_maybe(
    d, "dtype", st.sampled_from([DT(n) for n in ALL_DTYPES])))), grad=False)

# ---------------------------------------------------------------- random: deterministic corners, else shape/dtype
SPECS["rand"] = SPECS["randn"] = Spec(g.custom(_creation), grad=False, meta=True)
SPECS["rand"] = Spec(g.custom(lambda d, rng: (lambda a: (a[0], kw_maybe(d, "dtype", st.sampled_from(
    [DT(n) for n in FLOATS]))))(_creation(d, rng))), grad=False, meta=True)
SPECS["randn"] = SPECS["rand"]
SPECS["rand_like"] = SPECS["randn_like"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=FLOATS)], {})),
                                                grad=False, meta=True)
SPECS["randint"] = Spec(g.custom(lambda d, rng: ([d(st.integers(0, 2)), d(st.integers(3, 5)), d(g.shape_st())],
                                                 kw_maybe(d, "dtype", st.sampled_from([DT(n) for n in NUMERIC])))),
                        grad=False, meta=True)
SPECS["randint_like"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=NUMERIC), d(st.integers(1, 5))], {})),
                             grad=False, meta=True)
SPECS["randperm"] = Spec(g.custom(lambda d, rng: ([d(st.integers(0, 6))], kw_maybe(
    d, "dtype", st.sampled_from([DT(n) for n in NUMERIC])))), grad=False, meta=True)
SPECS["normal"] = Spec(g.custom(lambda d, rng: (
    [Arr(g.values(rng, s, "float32", "real"), "float32"), Arr(g.values(rng, s, "float32", "pos"), "float32")]
    if (s := d(g.shape_st())) is not None and d(st.booleans()) else [0.0, 1.0, s], {})), grad=False, meta=True)


def _bernoulli(d, rng):
    """probabilities 0 and 1 only: the result is then deterministic"""
    x = _x(d, rng, dtypes=FLOATS, grad=False)
    x.values = (rng.random(g.shape_of(x)) < 0.5).astype(np.float64)
    if d(st.booleans()):
        return [x], {"p": d(st.sampled_from([0.0, 1.0]))}
    return [x], {}


SPECS["bernoulli"] = Spec(g.custom(_bernoulli), grad=False)


def _multinomial(d, rng):
    """one-hot rows (one category of probability 1): drawing one sample per row is deterministic"""
    rows, cats = d(st.integers(1, 3)), d(st.integers(1, 4))
    p = np.zeros((rows, cats))
    p[np.arange(rows), rng.integers(0, cats, size=rows)] = 1
    if d(st.booleans()):
        p = p[0]
    return [Arr(p, d(st.sampled_from(F32_64)), grad=False), 1], kw_maybe(d, "replacement", st.booleans())


SPECS["multinomial"] = Spec(g.custom(_multinomial), grad=False)

# ---------------------------------------------------------------- torch.nn.functional
FSPECS = {}


def _act(domain="real", **kw_strategies):
    def extra(d, x):
        return (), {k: d(v) for k, v in kw_strategies.items() if d(st.booleans())}

    return Spec(g.unary(domain, NUMERIC, extra=extra))


for _n in ("hardsigmoid", "hardswish", "logsigmoid", "mish", "relu", "relu6", "selu", "sigmoid", "silu", "softsign",
           "tanh"):
    FSPECS[_n] = _act()
FSPECS["celu"] = FSPECS["elu"] = _act(alpha=st.sampled_from([0.5, 2.0]))
FSPECS["gelu"] = _act(approximate=st.sampled_from(["none", "tanh"]))
FSPECS["hardtanh"] = _act(min_val=st.sampled_from([-2.0, -0.5]), max_val=st.sampled_from([0.5, 2.0]))
FSPECS["leaky_relu"] = _act(negative_slope=st.sampled_from([0.2, 0.01]))
FSPECS["softplus"] = _act(beta=st.sampled_from([0.5, 2.0]), threshold=st.sampled_from([1.0, 20.0]))
FSPECS["softmax"] = SPECS["softmax"]
FSPECS["log_softmax"] = SPECS["log_softmax"]
FSPECS["softmin"] = Spec(g.reduction("real", FLOATS, dim="required", keepdim=False, dtype_kw=("float64",)))


def _glu(d, rng):
    x = _x(d, rng, dtypes=FLOATS, min_dims=1)
    return [x], kw_maybe(d, "dim", g.dim_st(g.ndim_of(x)))


FSPECS["glu"] = Spec(g.custom(_glu))
LIN_DTYPES = ("float32", "float64", "float16", "bfloat16")


def _linear(d, rng):
    dt = d(st.sampled_from(LIN_DTYPES))
    i, o = d(st.integers(1, 4)), d(st.integers(1, 4))
    lead = d(g.shape_st(max_dims=2))
    x = d(g.arr(lead + (i,), dt, rng=rng))
    w = d(g.arr((o, i + (1 if d(st.integers(0, 9)) == 0 else 0)), dt, rng=rng))
    b = d(g.arr((o,), dt, rng=rng)) if d(st.booleans()) else None
    return [x, w, b], {}


FSPECS["linear"] = Spec(g.custom(_linear), tol=MM_TOL, grad_tol=MM_TOL)


def _bilinear(d, rng):
    dt = d(st.sampled_from(F32_64))
    n, i, j, o = (d(st.integers(1, 3)) for _ in range(4))
    a = [d(g.arr(s, dt, rng=rng)) for s in [(n, i), (n, j), (o, i, j)]]
    return a + ([d(g.arr((o,), dt, rng=rng))] if d(st.booleans()) else []), {}


FSPECS["bilinear"] = Spec(g.custom(_bilinear))


def _embedding(d, rng):
    v, e = d(st.integers(1, 5)), d(st.integers(1, 3))
    w = d(g.arr((v, e), d(st.sampled_from(FLOATS)), rng=rng))
    idx = Arr(rng.integers(0, v, size=d(g.shape_st(max_dims=2))), d(st.sampled_from(["int64", "int32"])))
    return [idx, w], kw_maybe(d, "padding_idx", st.integers(0, v - 1))


FSPECS["embedding"] = Spec(g.custom(_embedding))
NORM_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)}  # a mean and a variance rounded in half precision


def _layer_norm(d, rng, rms=False):
    dt = d(st.sampled_from(FLOATS))
    shape = d(g.shape_st(min_dims=1, min_side=1))
    x = d(g.arr(shape, dt, rng=rng))
    k = d(st.integers(1, len(shape)))
    ns = shape[-k:]
    w = d(g.arr(ns, dt, rng=rng)) if d(st.booleans()) else None
    if rms:
        return [x, ns, w], kw_maybe(d, "eps", st.sampled_from([1e-6, 1e-2]))
    b = d(g.arr(ns, dt, rng=rng)) if d(st.booleans()) else None
    return [x, ns, w, b], kw_maybe(d, "eps", st.sampled_from([1e-5, 1e-2]))


FSPECS["layer_norm"] = Spec(g.custom(_layer_norm), tol=NORM_TOL, grad_tol=NORM_TOL)
FSPECS["rms_norm"] = Spec(g.custom(lambda d, rng: _layer_norm(d, rng, True)), tol=NORM_TOL, grad_tol=NORM_TOL)


def _group_norm(d, rng):
    dt = d(st.sampled_from(FLOATS))
    groups = d(st.integers(1, 2))
    c = groups * d(st.integers(1, 2))
    x = d(g.arr((d(st.integers(1, 2)), c) + d(g.shape_st(max_dims=2, min_side=1)), dt, rng=rng))
    wb = [d(g.arr((c,), dt, rng=rng)), d(g.arr((c,), dt, rng=rng))] if d(st.booleans()) else []
    return [x, groups, *wb], {}


FSPECS["group_norm"] = Spec(g.custom(_group_norm), tol=NORM_TOL, grad_tol=NORM_TOL)


def _normalize(d, rng):
    x = _x(d, rng, dtypes=FLOATS, min_dims=1, domain="nonzero")
    return [x], {**kw_maybe(d, "p", st.sampled_from([1.0, 2.0])), **kw_maybe(d, "dim", g.dim_st(g.ndim_of(x)))}


FSPECS["normalize"] = Spec(g.custom(_normalize))


def _dropout(d, rng, name):
    x = _x(d, rng, dtypes=FLOATS, min_dims=1 if name == "dropout1d" else 0)
    if name in ("dropout1d", "dropout2d", "dropout3d"):
        x = d(g.arr((2, 2) + (2,) * {"dropout1d": 1, "dropout2d": 2, "dropout3d": 3}[name], x.dtype, rng=rng))
    form = d(st.sampled_from(["p0", "p1", "eval"]))
    if form == "eval":
        return [x], {"p": 0.5, "training": False}
    return [x], {"p": 0.0 if form == "p0" else 1.0, "training": True}


for _n in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
    FSPECS[_n] = Spec(g.custom(lambda d, rng, _n=_n: _dropout(d, rng, _n)))
FSPECS["alpha_dropout"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=FLOATS)], {
    "p": d(st.sampled_from([0.0, 0.5])), "training": False})))


def _reduction_kw(d):
    return kw_maybe(d, "reduction", st.sampled_from(["mean", "sum", "none"]))


def _pair_loss(d, rng, da="real", db="real"):
    dt = d(st.sampled_from(FLOATS))
    shape = d(g.shape_st())
    return [d(g.arr(shape, dt, da, rng=rng)), d(g.arr(shape, dt, db, rng=rng))], _reduction_kw(d)


FSPECS["mse_loss"] = FSPECS["l1_loss"] = Spec(g.custom(_pair_loss))
FSPECS["smooth_l1_loss"] = Spec(g.custom(lambda d, rng: (lambda a, k: (a, {**k, **kw_maybe(
    d, "beta", st.sampled_from([0.5, 2.0]))}))(*_pair_loss(d, rng))))
FSPECS["huber_loss"] = Spec(g.custom(lambda d, rng: (lambda a, k: (a, {**k, **kw_maybe(
    d, "delta", st.sampled_from([0.5, 2.0]))}))(*_pair_loss(d, rng))))
FSPECS["binary_cross_entropy"] = Spec(g.custom(lambda d, rng: _pair_loss(d, rng, "prob", "prob")))
FSPECS["binary_cross_entropy_with_logits"] = Spec(g.custom(lambda d, rng: (lambda a, k: (a, {**k, **(
    {"pos_weight": Arr(g.values(rng, g.shape_of(a[0])[-1:], a[0].dtype, "pos"), a[0].dtype, grad=False)}
    if d(st.booleans()) else {})}))(*_pair_loss(d, rng, "real", "prob"))))
FSPECS["kl_div"] = Spec(g.custom(lambda d, rng: (lambda a, k: (a, {**k, **kw_maybe(
    d, "log_target", st.booleans())}))(*_pair_loss(d, rng, "small", "prob"))))
FSPECS["margin_ranking_loss"] = Spec(g.custom(lambda d, rng: (lambda a, k: (a + [Arr(np.sign(g.values(
    rng, g.shape_of(a[0]), "float64", "nonzero")), a[0].dtype, grad=False)], {**k, **kw_maybe(
        d, "margin", st.sampled_from([0.0, 0.5]))}))(*_pair_loss(d, rng))))


def _cosine(d, rng):
    dt = d(st.sampled_from(FLOATS))
    shape = d(g.shape_st(min_dims=1, min_side=1))
    return [d(g.arr(shape, dt, rng=rng)), d(g.arr(g.bcast_shape(d, shape), dt, rng=rng))], \
        kw_maybe(d, "dim", st.sampled_from([-1, 0]))


FSPECS["cosine_similarity"] = Spec(g.custom(_cosine))


def _class_loss(d, rng, nll=False):
    dt = d(st.sampled_from(FLOATS))
    n, c = d(st.integers(0, 3)), d(st.integers(1, 4))
    extra = d(g.shape_st(max_dims=1, min_side=1)) if d(st.integers(0, 3)) == 0 else ()
    if d(st.integers(0, 5)) == 0:
        x = d(g.arr((c,), dt, rng=rng))  # unbatched
        tshape = ()
        extra = ()
    else:
        x = d(g.arr((n, c) + extra, dt, rng=rng))
        tshape = (n,) + extra
    kw = _reduction_kw(d)
    if not nll and d(st.integers(0, 3)) == 0:  # class probabilities
        t = Arr(rng.dirichlet(np.ones(c), size=tshape).reshape(tshape + (c,)) if tshape else rng.dirichlet(
            np.ones(c)), dt, grad=False)
        if extra:
            t = Arr(np.moveaxis(t.values, -1, 1), dt, grad=False)
    else:
        tv = rng.integers(0, c, size=tshape)
        if d(st.booleans()) and tv.size:
            tv.flat[0] = -100 if "ignore_index" not in kw else tv.flat[0]
        t = Arr(tv, "int64")
        if d(st.booleans()):
            kw["ignore_index"] = d(st.sampled_from([-100, 0]))
    if d(st.booleans()):
        kw["weight"] = Arr(g.values(rng, (c,), "float64", "pos"), dt, grad=False)
    if not nll and d(st.booleans()):
        kw["label_smoothing"] = d(st.sampled_from([0.1, 0.0]))
    if nll:
        x = Arr(x.values, x.dtype, x.layout, x.grad)
    return [x, t], kw


FSPECS["cross_entropy"] = Spec(g.custom(_class_loss))
FSPECS["nll_loss"] = Spec(g.custom(lambda d, rng: _class_loss(d, rng, True)))


def _one_hot(d, rng):
    n = d(st.integers(1, 4))
    idx = Arr(rng.integers(0, n, size=d(g.shape_st(max_dims=2))), "int64")
    return [idx], kw_maybe(d, "num_classes", st.integers(n, n + 2))


FSPECS["one_hot"] = Spec(g.custom(_one_hot), grad=False)


def _pad(d, rng):
    mode = d(st.sampled_from(["constant", "constant", "reflect", "replicate"]))
    dt = d(st.sampled_from(FLOATS))
    if mode == "constant":
        x = _x(d, rng, dtypes=(dt,), min_dims=1)
        k = d(st.integers(1, g.ndim_of(x)))
        pads = tuple(d(st.integers(0, 2)) for _ in range(2 * k))
        return [x, pads], kw_maybe(d, "value", st.sampled_from([0.0, 1.5]))
    x = d(g.arr((1, 2) + tuple(d(st.integers(3, 4)) for _ in range(d(st.integers(1, 2)))), dt, rng=rng))
    pads = tuple(d(st.integers(0, 2)) for _ in range(2 * (g.ndim_of(x) - 2)))
    return [x, pads], {"mode": mode}


FSPECS["pad"] = Spec(g.custom(_pad))


def _unfold(d, rng):
    x = d(g.arr((d(st.integers(1, 2)), d(st.integers(1, 2)), d(st.integers(2, 4)), d(st.integers(2, 4))),
                d(st.sampled_from(F32_64)), rng=rng))
    return [x, d(st.sampled_from([1, 2, (2, 1)]))], {**kw_maybe(d, "stride", st.sampled_from([1, 2])),
                                                     **kw_maybe(d, "padding", st.sampled_from([0, 1])),
                                                     **kw_maybe(d, "dilation", st.sampled_from([1, 2]))}


FSPECS["unfold"] = Spec(g.custom(_unfold))


def _interpolate(d, rng):
    nd = d(st.sampled_from([1, 2]))
    x = d(g.arr((1, 2) + tuple(d(st.integers(1, 4)) for _ in range(nd)), d(st.sampled_from(F32_64)), rng=rng))
    mode = d(st.sampled_from(["nearest", {1: "linear", 2: "bilinear"}[nd]]))
    kw = {"mode": mode}
    if d(st.booleans()):
        kw["size"] = tuple(d(st.integers(1, 6)) for _ in range(nd))
    else:
        kw["scale_factor"] = d(st.sampled_from([2.0, 0.5, 3.0]))
    if mode != "nearest" and d(st.booleans()):
        kw["align_corners"] = d(st.booleans())
    return [x], kw


FSPECS["interpolate"] = Spec(g.custom(_interpolate))


def _conv(d, rng, nd):
    dt = d(st.sampled_from(F32_64))
    groups = d(st.sampled_from([1, 1, 2]))
    cin, cout = groups * d(st.integers(1, 2)), groups * d(st.integers(1, 2))
    k = tuple(d(st.integers(1, 3)) for _ in range(nd))
    x = d(g.arr((d(st.integers(1, 2)), cin) + tuple(d(st.integers(3, 5)) for _ in range(nd)), dt, rng=rng))
    w = d(g.arr((cout, cin // groups) + k, dt, rng=rng))
    b = d(g.arr((cout,), dt, rng=rng)) if d(st.booleans()) else None
    kw = {"groups": groups, **kw_maybe(d, "stride", st.sampled_from([1, 2])),
          **kw_maybe(d, "padding", st.sampled_from([0, 1] + (["same"] if nd == 1 else []))),
          **kw_maybe(d, "dilation", st.sampled_from([1, 2]))}
    if kw.get("padding") == "same":
        kw.pop("stride", None)
    return [x, w, b], kw


FSPECS["conv1d"] = Spec(g.custom(lambda d, rng: _conv(d, rng, 1)))
FSPECS["conv2d"] = Spec(g.custom(lambda d, rng: _conv(d, rng, 2)))
# a 3-d kernel's weight gradient sums up to a few hundred products whose rounding order differs from torch's
FSPECS["conv3d"] = Spec(g.custom(lambda d, rng: _conv(d, rng, 3)), grad_tol={"float32": (1e-5, 2e-5)})


def _pool1d(d, rng, maxpool=False):
    x = d(g.arr((d(st.integers(1, 2)), d(st.integers(1, 2)), d(st.integers(2, 6))), d(st.sampled_from(F32_64)),
                "real", rng=rng))
    if maxpool:
        x.values = g.values(rng, g.shape_of(x), "float64", "real") + np.arange(g.shape_of(x)[-1]) * 1e-3
    k = d(st.integers(1, 2))
    kw = {**kw_maybe(d, "stride", st.sampled_from([1, 2])), **kw_maybe(d, "padding", st.integers(0, k // 2)),
          **kw_maybe(d, "ceil_mode", st.booleans())}
    return [x, k], kw


FSPECS["avg_pool1d"] = Spec(g.custom(_pool1d))
FSPECS["max_pool1d"] = Spec(g.custom(lambda d, rng: _pool1d(d, rng, True)))
FSPECS["adaptive_avg_pool1d"] = Spec(g.custom(lambda d, rng: (
    [d(g.arr((1, 2, d(st.integers(1, 6))), d(st.sampled_from(F32_64)), rng=rng)), d(st.integers(1, 4))], {})))
FSPECS["adaptive_avg_pool2d"] = Spec(g.custom(lambda d, rng: (
    [d(g.arr((1, 2, d(st.integers(1, 5)), d(st.integers(1, 5))), d(st.sampled_from(F32_64)), rng=rng)),
     d(st.sampled_from([1, 2, (2, 3), (1, 1)]))], {})))


def _sdpa(d, rng):
    dt = d(st.sampled_from(FLOATS))
    b, h, lq, lk, e = (d(st.integers(1, 3)) for _ in range(5))
    q = d(g.arr((b, h, lq, e), dt, rng=rng))
    k = d(g.arr((b, h, lk, e), dt, rng=rng))
    v = d(g.arr((b, h, lk, e), dt, rng=rng))
    kw = {**kw_maybe(d, "scale", st.sampled_from([0.5, None]))}
    form = d(st.sampled_from(["none", "causal", "bool", "float"]))
    if form == "causal":
        kw["is_causal"] = True
    elif form == "bool":
        m = rng.random((lq, lk)) < 0.7
        m[:, 0] = True
        kw["attn_mask"] = Arr(m, "bool")
    elif form == "float":
        kw["attn_mask"] = Arr(g.values(rng, (lq, lk), "float64", "small"), dt, grad=False)
    return [q, k, v], kw


FSPECS["scaled_dot_product_attention"] = Spec(g.custom(_sdpa), tol=NORM_TOL, grad_tol=NORM_TOL)

# ---------------------------------------------------------------- queries on dtypes and shapes
SPECS["result_type"] = Spec(g.binary("small", dtypes=ALL_DTYPES), grad=False)
SPECS["promote_types"] = Spec(g.custom(lambda d, rng: ([DT(d(st.sampled_from(ALL_DTYPES))),
                                                        DT(d(st.sampled_from(ALL_DTYPES)))], {})), grad=False)
SPECS["broadcast_shapes"] = Spec(g.custom(lambda d, rng: (lambda s: (
    [s, g.bcast_shape(d, s) if d(st.integers(0, 5)) else s + (7,)], {}))(d(g.shape_st()))), grad=False)
SPECS["numel"] = SPECS["is_floating_point"] = SPECS["is_complex"] = SPECS["is_tensor"] = Spec(
    g.custom(lambda d, rng: ([_x(d, rng)], {})), grad=False)
SPECS["is_nonzero"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, max_dims=1, max_side=2, domain="small")], {})),
                           grad=False)

# ---------------------------------------------------------------- Tensor methods bound outside the tables
EXTRA_METHODS = {  # name -> Spec (in-place, the receiver compared afterwards)
    "fill_": Spec(g.custom(lambda d, rng: ([_x(d, rng)], {}) if False else (
        [_x(d, rng), d(st.sampled_from([1.5, -2, True, 0]))], {}))),
    "zero_": Spec(g.custom(lambda d, rng: ([_x(d, rng)], {}))),
    "normal_": Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=FLOATS, grad=False)], {})), meta=True, grad=False),
    "uniform_": Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=FLOATS, grad=False)], {})), meta=True, grad=False),
    "exponential_": Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=FLOATS, grad=False)], {})), meta=True,
                         grad=False),
    "random_": Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=NUMERIC, grad=False), 0, 5], {})), meta=True,
                    grad=False),
    "bernoulli_": Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=FLOATS, grad=False),
                                                 d(st.sampled_from([0.0, 1.0]))], {})), grad=False),
}

DUNDER_BASE = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub", "__mul__": "mul", "__rmul__": "mul",
    "__truediv__": "true_divide", "__rtruediv__": "true_divide", "__floordiv__": "floor_divide",
    "__rfloordiv__": "floor_divide", "__mod__": "remainder", "__rmod__": "remainder", "__pow__": "pow",
    "__rpow__": "pow", "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__pos__": "neg", "__invert__": "bitwise_not", "__and__": "bitwise_and", "__rand__": "bitwise_and",
    "__or__": "bitwise_or", "__ror__": "bitwise_or", "__xor__": "bitwise_xor", "__rxor__": "bitwise_xor",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__iadd__": "add", "__isub__": "sub", "__imul__": "mul", "__itruediv__": "true_divide",
    "__ifloordiv__": "floor_divide", "__imod__": "remainder", "__ipow__": "pow", "__iand__": "bitwise_and",
    "__ior__": "bitwise_or", "__ixor__": "bitwise_xor", "__lshift__": "bitwise_left_shift",
    "__rlshift__": "bitwise_left_shift", "__rshift__": "bitwise_right_shift", "__rrshift__": "bitwise_right_shift",
    "__ilshift__": "bitwise_left_shift", "__irshift__": "bitwise_right_shift",
}

# ---------------------------------------------------------------- what has no generator, and why
_SETTING = "a process setting or query, not an op on tensor data"
NOT_GENERATED = {
    **{f"torch.{n}": _SETTING for n in (
        "are_deterministic_algorithms_enabled", "compile", "get_autocast_dtype", "get_autocast_gpu_dtype",
        "get_default_device", "get_default_dtype", "get_float32_matmul_precision", "get_num_interop_threads",
        "get_num_threads", "get_rng_state", "initial_seed", "is_autocast_enabled",
        "is_deterministic_algorithms_warn_only_enabled", "is_grad_enabled",
        "is_inference_mode_enabled", "is_warn_always_enabled", "manual_seed", "seed", "set_default_device",
        "set_default_dtype", "set_float32_matmul_precision", "set_num_interop_threads", "set_num_threads",
        "set_printoptions", "set_rng_state", "use_deterministic_algorithms", "is_storage", "typename",
        "can_cast")},
    "torch.save": "file I/O (tests/test_serialization.py compares files with real torch)",
    "torch.load": "file I/O (tests/test_serialization.py compares files with real torch)",
    "Tensor.resize_": "deliberately unsupported (raises NotImplementedError: MindSpore tensors cannot change size "
                      "in place); tests/test_tensor_semantics.py",
    "torch.frombuffer": "reads raw memory, not tensor data (tests/test_ecosystem_api.py compares values and errors "
                        "with real torch)",
    "Tensor.to_dense": "the tensor itself or a cast: every shim tensor is strided (tests/test_ecosystem_api.py)",
    "torch.sparse_coo_tensor": "builds a sparse COO tensor, not a strided one (tests/test_sparse_coo.py compares "
                               "values, gradients and errors with real torch)",
}


def _torch_functions(mt):
    return sorted(n for n in dir(mt) if not n.startswith("_") and inspect.isfunction(getattr(mt, n)) and
                  getattr(getattr(mt, n), "__module__", "").startswith("mindnlp_shim"))


def _functional_functions(mt):
    F = mt.nn.functional
    return sorted(n for n in dir(F) if not n.startswith("_") and inspect.isfunction(getattr(F, n)) and
                  getattr(getattr(F, n), "__module__", "").startswith("mindnlp_shim"))


def bound_names(mt):
    """Every bound op: Tensor methods, in-place variants, operators, torch.* functions, torch.nn.functional."""
    from mindnlp_shim.torch import _bindings as b

    names = [f"Tensor.{n}" for n in b.METHODS] + [f"Tensor.{n}_" for n in b.INPLACE]
    names += [f"Tensor.{n}" for n in list(b.DUNDERS) + list(b.INPLACE_DUNDERS)]
    names += [f"Tensor.{n}" for n in EXTRA_METHODS] + ["Tensor.resize_"]
    names += [f"torch.{n}" for n in _torch_functions(mt)]
    names += [f"F.{n}" for n in _functional_functions(mt)]
    return names


def table(mt):
    """One Op per bound name that has a generator."""
    from mindnlp_shim.torch import _bindings as b

    ops = []
    for n in b.METHODS:
        spec = SPECS.get(n)
        if spec:
            ops.append(Op(f"Tensor.{n}", "method", n, spec, spec.method_gen))
    for n in b.INPLACE:
        spec = SPECS.get(n)
        if spec:
            ops.append(Op(f"Tensor.{n}_", "inplace", n + "_", spec, spec.method_gen))
    for n in list(b.DUNDERS) + list(b.INPLACE_DUNDERS):
        spec = SPECS[DUNDER_BASE[n]]
        ops.append(Op(f"Tensor.{n}", "inplace_dunder" if n in b.INPLACE_DUNDERS else "dunder", n, spec))
    for n, spec in EXTRA_METHODS.items():
        ops.append(Op(f"Tensor.{n}", "inplace", n, spec))
    for n in _torch_functions(mt):
        spec = SPECS.get(f"torch.{n}") or SPECS.get(n)
        if spec:
            ops.append(Op(f"torch.{n}", "function", n, spec))
    for n in _functional_functions(mt):
        spec = FSPECS.get(n)
        if spec:
            ops.append(Op(f"F.{n}", "functional", n, spec))
    return ops


def unlisted(mt):
    have = {op.id for op in table(mt)}
    return [n for n in bound_names(mt) if n not in have and n not in NOT_GENERATED]

# ---------------------------------------------------------------- more math, statistics, matrices, placement
for _n, _d in {"acosh": "ge1", "arccosh": "ge1", "asinh": "real", "arcsinh": "real", "atanh": "unit",
               "arctanh": "unit", "deg2rad": "real", "rad2deg": "real", "digamma": "pos", "lgamma": "pos",
               "i0": "real", "sinc": "real", "logit": "prob", "signbit": "real", "positive": "real",
               "angle": "real", "conj": "real", "real": "real", "imag": "real", "isreal": "real",
               "view_as_real": "real", "ravel": "real", "msort": "real", "adjoint": "real"}.items():
    SPECS[_n] = Spec(g.unary(_d, ALL_DTYPES))
for _n, (_a, _b) in {"copysign": ("real", "real"), "float_power": ("pos", "small"), "heaviside": ("small", "real"),
                     "ldexp": ("real", "shift"), "logaddexp": ("real", "real"), "logaddexp2": ("real", "real"),
                     "nextafter": ("real", "real"), "xlogy": ("nonneg", "pos"), "igamma": ("pos", "pos"),
                     "igammac": ("pos", "pos")}.items():
    SPECS[_n] = Spec(g.binary(_a, _b, dtypes=NUMERIC))
for _n in ("gcd", "lcm"):
    SPECS[_n] = Spec(g.binary("real", dtypes=INTS, scalars=False))
SPECS["bitwise_right_shift"] = Spec(g.binary("bits", "shift", dtypes=INTS))
SPECS["hardshrink"] = Spec(g.unary("real", FLOATS, extra=lambda d, x: ((), kw_maybe(d, "lambd", st.sampled_from(
    [0.5, 1.0])))))
SPECS["mvlgamma"] = Spec(g.unary("ge1", FLOATS, extra=lambda d, x: ((), {"p": d(st.integers(1, 2))})))
for _n in ("cummax", "cummin", "logcumsumexp"):
    SPECS[_n] = Spec(g.reduction("real", NUMERIC, dim="required", keepdim=False, tuple_dims=False, distinct=True))
SPECS["median"] = SPECS["nanmedian"] = Spec(g.reduction("real", NUMERIC, tuple_dims=False, distinct=True))
SPECS["nanmean"] = Spec(g.reduction("real", FLOATS, dtype_kw=("float64",)))


def _kthvalue(d, rng):
    c = d(g.reduction("real", NUMERIC, dim="required", keepdim=True, tuple_dims=False, distinct=True))
    x = c.args[0]
    dim = c.args[1] if len(c.args) > 1 else c.kwargs.get("dim", -1)
    shape = g.shape_of(x) or (1,)
    n = shape[dim] if -len(shape) <= dim < len(shape) else 1
    kw = {k: v for k, v in c.kwargs.items() if k != "dim"}
    return [x, d(st.integers(1, max(n, 1))), dim], kw


SPECS["kthvalue"] = Spec(g.custom(_kthvalue))


def _quantile(d, rng):
    c = d(g.reduction("real", F32_64, tuple_dims=False, distinct=True))
    q = d(st.sampled_from([0.5, 0.25, 1.0])) if d(st.booleans()) else Arr(np.array([0.1, 0.9]), c.args[0].dtype)
    kw = dict(c.kwargs)
    if len(c.args) > 1:
        kw["dim"] = c.args[1]
    return [c.args[0], q], {**kw, **kw_maybe(d, "interpolation", st.sampled_from(["linear", "lower", "nearest",
                                                                                  "midpoint"]))}


SPECS["quantile"] = SPECS["nanquantile"] = Spec(g.custom(_quantile))
SPECS["cov"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=F32_64, min_dims=1, max_dims=2)],
                                             kw_maybe(d, "correction", st.sampled_from([0, 1])))))
SPECS["histc"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=F32_64, grad=False)], {
    "bins": d(st.integers(1, 5)), "min": -2.0, "max": 2.0})), grad=False)


def _bincount(d, rng):
    n = d(st.integers(0, 6))
    x = Arr(rng.integers(0, 5, size=n), "int64")
    w = Arr(g.values(rng, (n,), "float64", "real"), d(st.sampled_from(F32_64)), grad=False) \
        if d(st.booleans()) else None
    return [x], {"weights": w, **kw_maybe(d, "minlength", st.integers(0, 7))}


SPECS["bincount"] = Spec(g.custom(_bincount), grad=False)


def _square(d, rng, batch=False, spd=False):
    n = d(st.integers(1, 3))
    lead = (d(st.integers(1, 2)),) if batch and d(st.booleans()) else ()
    a = np.eye(n) * 2 + 0.3 * rng.standard_normal(lead + (n, n))
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + np.eye(n)
    return Arr(a, d(st.sampled_from(F32_64)), d(g.layout_st((n, n))))


LINALG_TOL = {"float32": (1e-4, 1e-5)}  # a factorization's rounding: several float32 ulps
SPECS["det"] = SPECS["logdet"] = SPECS["slogdet"] = SPECS["inverse"] = Spec(
    g.custom(lambda d, rng: ([_square(d, rng, True)], {})), tol=LINALG_TOL, grad_tol=LINALG_TOL)
SPECS["matrix_power"] = Spec(g.custom(lambda d, rng: ([_square(d, rng, True), d(st.integers(-1, 3))], {})),
                             tol=LINALG_TOL, grad_tol=LINALG_TOL)
SPECS["cholesky"] = Spec(g.custom(lambda d, rng: ([_square(d, rng, True, spd=True)],
                                                  kw_maybe(d, "upper", st.booleans()))),
                         tol=LINALG_TOL, grad_tol=LINALG_TOL)
SPECS["trace"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, dtypes=NUMERIC, min_dims=2, max_dims=2)], {})))
SPECS["addmv"] = Spec(g.custom(lambda d, rng: (lambda n, k: (_mats(d, rng, [d(st.sampled_from([(n,), ()])), (n, k),
                                                                             (k,)]), _beta_alpha(d)))(
    d(st.integers(0, 3)), d(st.integers(0, 3)))), tol=MM_TOL, grad_tol=MM_TOL)
SPECS["addr"] = Spec(g.custom(lambda d, rng: (lambda n, m: (_mats(d, rng, [d(st.sampled_from([(n, m), (m,)])), (n,),
                                                                            (m,)]), _beta_alpha(d)))(
    d(st.integers(0, 3)), d(st.integers(0, 3)))), tol=MM_TOL, grad_tol=MM_TOL)
SPECS["addbmm"] = Spec(g.custom(lambda d, rng: (lambda n, k, m, b: (_mats(d, rng, [d(st.sampled_from([(n, m), (m,)])),
                                                                                   (b, n, k), (b, k, m)]),
                                                                    _beta_alpha(d)))(*_dims(d))),
                       tol=MM_TOL, grad_tol=MM_TOL)
SPECS["ger"] = SPECS["outer"]
SPECS["inner"] = Spec(g.custom(lambda d, rng: (lambda k: (_mats(d, rng, [d(st.sampled_from([(k,), (2, k)])),
                                                                         d(st.sampled_from([(k,), (3, k)]))]), {}))(
    d(st.integers(0, 3)))), tol=MM_TOL, grad_tol=MM_TOL)
SPECS["diag_embed"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, min_dims=1)], kw_maybe(d, "offset",
                                                                                       st.integers(-1, 1)))))
SPECS["diagflat"] = Spec(g.custom(lambda d, rng: ([_x(d, rng)], kw_maybe(d, "offset", st.integers(-1, 1)))))
SPECS["fliplr"] = Spec(g.custom(lambda d, rng: ([_x(d, rng, min_dims=d(st.sampled_from([1, 2, 2])))], {})))
SPECS["flipud"] = Spec(g.custom(lambda d, rng: ([_x(d, rng)], {})))


def _hvdsplit(d, rng, nd):
    x = _x(d, rng, min_dims=nd, max_side=4)
    return [x, d(st.sampled_from([1, 2, [1, 2]]))], {}


SPECS["hsplit"] = Spec(g.custom(lambda d, rng: _hvdsplit(d, rng, 1)))
SPECS["vsplit"] = Spec(g.custom(lambda d, rng: _hvdsplit(d, rng, 2)))
SPECS["dsplit"] = Spec(g.custom(lambda d, rng: _hvdsplit(d, rng, 3)))


def _rot90(d, rng):
    x = _x(d, rng, min_dims=2)
    return [x, d(st.integers(-1, 3))], kw_maybe(d, "dims", st.sampled_from([(0, 1), (1, 0), (-1, -2)]))


SPECS["rot90"] = Spec(g.custom(_rot90))


def _renorm(d, rng):
    x = _x(d, rng, dtypes=F32_64, min_dims=1, min_side=1)
    return [x, d(st.sampled_from([1.0, 2.0])), d(g.dim_st(g.ndim_of(x), allow_bad=False)),
            d(st.sampled_from([0.5, 5.0]))], {}


SPECS["renorm"] = Spec(g.custom(_renorm))


def _index_copy(d, rng):
    a, kw = _index_add(d, rng)
    return a, {}


SPECS["index_copy"] = Spec(g.custom(_index_copy))


def _index_put(d, rng):
    x = _x(d, rng, min_dims=1, min_side=1)
    n = g.shape_of(x)[0]
    k = d(st.integers(0, n))
    acc = d(st.booleans())
    idx = rng.integers(0, n, size=k) if acc else rng.permutation(n)[:k]
    vals = d(g.arr((k,) + g.shape_of(x)[1:], x.dtype, rng=rng))
    return [x, (Arr(idx.astype(np.int64), "int64"),), vals], {"accumulate": acc}


SPECS["index_put"] = Spec(g.custom(_index_put))


def _put(d, rng):
    x = _x(d, rng, min_dims=1, min_side=1)
    n = int(np.prod(g.shape_of(x)))
    k = d(st.integers(0, n))
    acc = d(st.booleans())
    idx = rng.integers(-n, n, size=k) if acc else rng.permutation(n)[:k]
    return [x, Arr(idx.astype(np.int64), "int64"), d(g.arr((k,), x.dtype, rng=rng))], {"accumulate": acc}


SPECS["put"] = Spec(g.custom(_put))


def _take(d, rng):
    x = _x(d, rng, min_dims=0, min_side=1)
    n = int(np.prod(g.shape_of(x)))
    return [x, Arr(rng.integers(-n, n, size=d(g.shape_st(max_dims=2))).astype(np.int64), "int64")], {}


SPECS["take"] = Spec(g.custom(_take))


def _scatter_like(d, rng, kind):
    x = _x(d, rng, min_dims=2 if kind == "diagonal" else 1, min_side=1, max_side=4)
    shape, nd = g.shape_of(x), g.ndim_of(x)
    if kind == "select":
        dim = d(g.dim_st(nd, allow_bad=False))
        src_shape = shape[:dim % nd] + shape[dim % nd + 1:]
        return [x, d(g.arr(src_shape, x.dtype, rng=rng)), dim, d(st.integers(-shape[dim], shape[dim] - 1))], {}
    if kind == "slice":
        dim = d(g.dim_st(nd, allow_bad=False))
        n = shape[dim]
        start, step = d(st.integers(0, n)), d(st.integers(1, 2))
        k = len(range(start, n, step))
        src_shape = shape[:dim % nd] + (k,) + shape[dim % nd + 1:]
        return [x, d(g.arr(src_shape, x.dtype, rng=rng))], {"dim": dim, "start": start, "step": step}
    off = d(st.integers(-1, 1))
    k = len(np.diagonal(np.zeros(shape[:2]), off))
    return [x, d(g.arr(shape[2:] + (k,), x.dtype, rng=rng))], {"offset": off}


SPECS["select_scatter"] = Spec(g.custom(lambda d, rng: _scatter_like(d, rng, "select")))
SPECS["slice_scatter"] = Spec(g.custom(lambda d, rng: _scatter_like(d, rng, "slice")))
SPECS["diagonal_scatter"] = Spec(g.custom(lambda d, rng: _scatter_like(d, rng, "diagonal")))
NOT_GENERATED["torch.svd"] = ("singular vectors are unique only up to sign (and order among equal values); "
                              "tests/test_ops_parity.py compares reconstructions")


def _triangular(d, rng, upper):
    n = d(st.integers(1, 3))
    t = np.tril(0.3 * rng.standard_normal((n, n)), -1) + np.diag(rng.uniform(1.0, 2.0, n))
    return (t.T if upper else t), n


def _cholesky_solve(d, rng, kind):
    upper = d(st.booleans())
    t, n = _triangular(d, rng, upper)
    dt = d(st.sampled_from(F32_64))
    tri = Arr(t, dt)
    if kind == "inverse":
        return [tri], {"upper": upper}
    b = d(g.arr((n, d(st.integers(1, 2))), dt, rng=rng))
    if kind == "solve":
        return [b, tri], {"upper": upper}
    return [b, tri], {"upper": upper, **kw_maybe(d, "transpose", st.booleans())}


SPECS["cholesky_inverse"] = Spec(g.custom(lambda d, rng: _cholesky_solve(d, rng, "inverse")), tol=LINALG_TOL,
                                 grad_tol=LINALG_TOL)
SPECS["cholesky_solve"] = Spec(g.custom(lambda d, rng: _cholesky_solve(d, rng, "solve")), tol=LINALG_TOL,
                               grad_tol=LINALG_TOL)
SPECS["triangular_solve"] = Spec(g.custom(lambda d, rng: _cholesky_solve(d, rng, "triangular")), tol=LINALG_TOL,
                                 grad_tol=LINALG_TOL)


# torch.nn.functional ops compared with real torch (values and gradients, float32 and float64) in their own
# table of hand-picked cases: pooling windows, losses with index targets, norms with running statistics
NOT_GENERATED.update({f"F.{n}": "compared with real torch in tests/test_nn_more_parity.py's table" for n in (
    "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool2d",
    "avg_pool3d", "batch_norm", "celu_", "channel_shuffle", "cosine_embedding_loss", "elu_", "fold",
    "gaussian_nll_loss", "gumbel_softmax", "hardshrink", "hardtanh_", "hinge_embedding_loss", "instance_norm",
    "leaky_relu_", "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d_with_indices",
    "max_pool2d", "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices", "max_unpool1d",
    "max_unpool2d", "max_unpool3d", "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "native_channel_shuffle", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "poisson_nll_loss",
    "prelu", "relu_", "rrelu", "rrelu_", "selu_", "soft_margin_loss", "softshrink", "tanhshrink", "threshold",
    "threshold_", "triplet_margin_loss", "triplet_margin_with_distance_loss", "affine_grid", "grid_sample",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "upsample", "upsample_bilinear", "upsample_nearest")})
NOT_GENERATED["F.multi_head_attention_forward"] = "compared with real torch in tests/test_nn_multihead_attention.py"
NOT_GENERATED["F.embedding_bag"] = "compared with real torch in tests/test_nn_more_parity.py's table"


def _toplevel_forms():
    """torch.* spellings of other definitions, compositions of ops and settings (mindnlp_shim/torch/
    _function_forms.py, _ops/composites.py, _ops/aten_forms.py, _ops/inclusive_range.py, _process_settings.py,
    _control_flow.py, _symbolic_numbers.py) that no generator here covers: tests/test_toplevel_parity.py
    compares them."""
    import mindnlp_shim.torch as shim
    from mindnlp_shim.torch import _function_forms as forms
    from mindnlp_shim.torch._ops import composites

    names = set(forms.INPLACE_METHODS + forms.TENSOR_METHODS + forms.SETTINGS + forms.ATEN_FORMS) | {"range"}
    names |= set(forms.ALIASES) | {"get_device_module", "is_vulkan_available", "scatter_reduce",
                                   "lu_unpack", "lu", "lu_solve"}
    from mindnlp_shim.torch import _control_flow, _symbolic_numbers

    names |= set(_control_flow.__all__) | set(_symbolic_numbers.__all__)
    names |= {n for n, v in vars(composites).items()
              if inspect.isfunction(v) and v.__module__ == composites.__name__ and not n.startswith("_")}
    bound = {n for n in names if inspect.isfunction(vars(shim).get(n))
             and getattr(vars(shim)[n], "__module__", "").startswith("mindnlp_shim")}
    return {f"torch.{n}" for n in bound if n not in SPECS and f"torch.{n}" not in SPECS}


for _n in sorted(_toplevel_forms()):
    NOT_GENERATED.setdefault(_n, "compared with real torch in tests/test_toplevel_parity.py")

# ops with their own cases against real torch elsewhere (named in those modules' API_CENSUS tables)
NOT_GENERATED.update({
    "torch.hann_window": "a factory of window values: compared with real torch in tests/test_zoo_ops.py",
    "torch.stft": "complex output and framing arguments: compared with real torch in tests/test_zoo_ops.py",
    "F.ctc_loss": "lengths and targets must agree: compared with real torch in tests/test_zoo_ops.py and "
                  "tests/test_nn_module_parity.py",
    "F.grouped_mm": "offsets must partition the rows: compared with real torch in tests/test_zoo_decoder_ops.py",
})
NOT_GENERATED.update({
    "torch.mode": "ties decide the answer: compared with real torch in tests/test_tensor_method_parity.py",
    "torch.index_reduce": "the index must match source: compared with real torch in "
                          "tests/test_tensor_method_parity.py",
})
# operator-level forms of nn functions (mindnlp_shim/torch/_ops/aten_nn_forms.py) and torch.narrow_copy: positional
# flags, integer codes, several outputs; compared with real torch in tests/test_aten_nn_forms_parity.py
from mindnlp_shim.torch._ops import aten_nn_forms as _aten_nn_forms  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": "compared with real torch in tests/test_aten_nn_forms_parity.py"
                      for n in _aten_nn_forms.__all__ + ["narrow_copy"]})
from mindnlp_shim.torch import _autocast_settings  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": _SETTING + ": compared with real torch in tests/test_autocast_settings_parity.py"
                      for n in _autocast_settings.__all__})
from mindnlp_shim.torch._ops import recurrent as _recurrent  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": "a flat parameter list of a recurrent layer: compared with real torch in "
                                    "tests/test_aten_nn_forms_parity.py" for n in _recurrent.__all__})
NOT_GENERATED.update({f"torch.{n}": "compared with real torch in tests/test_toplevel_more_parity.py"
                      for n in ("empty_permuted", "qr", "vmap", "fork", "wait")})
from mindnlp_shim.torch._ops import small_functions as _small_functions  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": "compared with real torch in tests/test_small_functions_parity.py"
                      for n in _small_functions.__all__})
NOT_GENERATED["F.feature_alpha_dropout"] = "random masks: compared with real torch (seeded alike) in " \
                                           "tests/test_nn_module_parity.py"
NOT_GENERATED.update({f"torch.{n}": "compared with real torch in tests/test_toplevel_more_parity.py"
                      for n in ("sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size")})
NOT_GENERATED["torch.set_warn_always"] = _SETTING
NOT_GENERATED["torch.segment_reduce"] = "segment lengths must cover the data: compared with real torch in " \
                                        "tests/test_small_functions_parity.py"
NOT_GENERATED["torch.empty_strided"] = "uninitialised values: layouts compared with real torch in " \
                                       "tests/test_toplevel_more_parity.py"
from mindnlp_shim.torch import _removed_api  # noqa: E402
from mindnlp_shim.torch._ops import householder_factors as _householder_factors  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": "Householder factors (geqrf has no gradient, as in torch): compared with real "
                                    "torch in tests/test_tensor_more_parity.py" for n in _householder_factors.__all__})
NOT_GENERATED.update({f"torch.{n}": "removed from torch (RuntimeError): compared with real torch in "
                                    "tests/test_tensor_more_parity.py" for n in _removed_api.__all__})
from mindnlp_shim.torch._ops import strided_views as _strided_views  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": "sizes, strides and offsets address the storage: compared with real torch in "
                                    "tests/test_tensor_more_parity.py" for n in _strided_views.__all__})
NOT_GENERATED["torch.conj_physical_"] = "the in-place method's function form: compared with real torch in " \
                                        "tests/test_tensor_more_parity.py"
NOT_GENERATED["torch.istft"] = "a complex spectrogram and framing arguments: compared with real torch in " \
                               "tests/test_tensor_more_parity.py"
from mindnlp_shim.torch._ops import lowrank as _lowrank  # noqa: E402

NOT_GENERATED.update({f"torch.{n}": "random test matrix and singular vectors unique up to sign: compared with real "
                                    "torch (same seed) in tests/test_tensor_more_parity.py" for n in _lowrank.__all__})
NOT_GENERATED["torch.hash_tensor"] = "an integer hash (no gradient): compared with real torch in " \
                                     "tests/test_tensor_more_parity.py"
NOT_GENERATED["torch.dequantize"] = "the identity on float tensors: compared with real torch in " \
                                    "tests/test_tensor_more_parity.py"
NOT_GENERATED["torch.poisson"] = "random counts: compared with real torch (seeded alike, bit for bit) in " \
                                 "tests/test_tensor_more_parity.py"
