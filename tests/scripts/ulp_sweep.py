"""Accuracy of the shim's transcendental ops, in float32 ulps against real torch (whose CPU kernels are SLEEF's).

    GLOG_v=3 .venv/bin/python tests/scripts/ulp_sweep.py [--points 1000000] [--only log,exp] [--markdown]

For every case, a dense sweep of float32 inputs (uniform in the bit pattern between the domain's ends, so every
binade gets its share, plus the exactly representable powers of two) is computed three ways: MindSpore's own
kernel (`raw`), the shim's torch function (`shim`), and real torch. Each is run on one large tensor (kernels
vectorise from a few elements up) and on many 5-element tensors (`small`). The table gives the largest ulp
distance to real torch for each, and real torch's own distance to the float64 result rounded to float32
(`torch/f64`), the yardstick for "as accurate as torch". The case table is shared with
tests/test_numerics_ulp.py.
"""
import argparse
import os
import sys

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)
os.environ.setdefault("GLOG_v", "3")

SMALL = 5  # elements per tensor in the small-tensor run
SMALL_POINTS = 2000


# ---------------------------------------------------------------- ulps
def _ordered(a):
    """float32 bit patterns as integers that order like the floats (-0.0 and 0.0 both 0)."""
    i = np.ascontiguousarray(a, dtype=np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def ulp_distance(a, b):
    """Elementwise distance in float32 ulps; equal infinities and NaN against NaN count 0, NaN against a number
    counts 2**31."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    d = np.abs(_ordered(a) - _ordered(b))
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    d[nan_a & nan_b] = 0
    d[nan_a ^ nan_b] = 2 ** 31
    return d


def bit_sweep(lo, hi, n):
    """n float32 values between lo and hi, evenly spaced in the ordered bit pattern (every binade sampled), plus
    the powers of two and their negatives inside [lo, hi]."""
    a, b = _ordered(np.float32([lo, hi]))
    k = np.unique(np.linspace(a, b, n).round().astype(np.int64))
    bits = np.where(k < 0, (-k) | 0x80000000, k).astype(np.uint32)
    x = bits.view(np.float32)
    p2 = np.float32(2.0) ** np.arange(-126, 128, dtype=np.float32)
    p2 = np.concatenate([p2, -p2])
    x = np.concatenate([x, p2[(p2 >= lo) & (p2 <= hi)]])
    return np.ascontiguousarray(x[np.isfinite(x)], dtype=np.float32)


# ---------------------------------------------------------------- cases
class Case:
    """`torch_fn(T, *inputs)` runs with T = real torch or the shim; `raw_fn(ms, ops, *inputs)` is the MindSpore
    kernel the shim used before its accuracy fixes (None where that is the same call as the shim's)."""

    def __init__(self, name, domain, torch_fn, raw_fn=None, bound=1, other=None):
        self.name, self.domain, self.torch_fn, self.raw_fn = name, domain, torch_fn, raw_fn
        # max ulp to real torch the shim must meet (tests/test_numerics_ulp.py); None: a known gap, measured only
        self.bound = bound
        self.other = other  # second-operand maker for binary ops: other(x) -> array

    def inputs(self, n):
        x = bit_sweep(*self.domain, n)
        return (x,) if self.other is None else (x, self.other(x))


def _u(name):
    return lambda T, x: getattr(T, name)(x)


def _raw(name):
    return lambda ms, ops, x: getattr(ops, name)(x)


def _f(name, **kw):
    return lambda T, x: getattr(T.nn.functional, name)(x, **kw)


def _rows(fn):
    """Row-wise ops see the sweep as rows of 128."""
    def op(*args):
        x = args[-1]
        n = x.shape[0] // 128 * 128
        return fn(*args[:-1], x[:n].reshape(-1, 128)).reshape(-1)
    return op


def _other_uniform(lo, hi, seed=7):
    return lambda x: np.random.default_rng(seed).uniform(lo, hi, x.shape).astype(np.float32)


BIG = 3.0e38
CASES = [
    Case("log", (1e-38, BIG), _u("log"), _raw("log")),
    Case("log2", (1e-38, BIG), _u("log2"), _raw("log2")),
    Case("log10", (1e-38, BIG), _u("log10"), _raw("log10")),
    Case("log1p", (-0.999999, BIG), _u("log1p"), _raw("log1p")),
    Case("exp", (-104.0, 88.7), _u("exp"), _raw("exp")),
    Case("exp2", (-149.0, 127.9), _u("exp2"), _raw("exp2")),
    Case("expm1", (-104.0, 88.7), _u("expm1"), _raw("expm1")),
    Case("sqrt", (0.0, BIG), _u("sqrt"), _raw("sqrt")),
    Case("rsqrt", (1e-37, BIG), _u("rsqrt"), _raw("rsqrt")),
    Case("sin", (-1e4, 1e4), _u("sin"), _raw("sin")),
    Case("cos", (-1e4, 1e4), _u("cos"), _raw("cos")),
    Case("tan", (-1e4, 1e4), _u("tan"), _raw("tan")),
    Case("asin", (-1.0, 1.0), _u("asin"), _raw("asin")),
    Case("acos", (-1.0, 1.0), _u("acos"), _raw("acos")),
    Case("atan", (-BIG, BIG), _u("atan"), _raw("atan")),
    Case("sinh", (-89.0, 89.0), _u("sinh"), _raw("sinh")),
    Case("cosh", (-89.0, 89.0), _u("cosh"), _raw("cosh")),
    Case("tanh", (-20.0, 20.0), _u("tanh"), _raw("tanh")),
    Case("sigmoid", (-104.0, 90.0), _u("sigmoid"), _raw("sigmoid")),
    Case("erf", (-10.0, 10.0), _u("erf"), _raw("erf")),
    Case("erfc", (-10.0, 10.0), _u("erfc"), _raw("erfc")),
    Case("erfinv", (-0.999999, 0.999999), _u("erfinv"), _raw("erfinv"), bound=None),
    Case("pow(x, y)", (1e-3, 1e3), lambda T, x, y: T.pow(x, y), lambda ms, ops, x, y: ops.pow(x, y),
         other=_other_uniform(-4.0, 4.0)),
    Case("pow(x, 0.5)", (0.0, BIG), lambda T, x: T.pow(x, 0.5), lambda ms, ops, x: ops.pow(x, 0.5), bound=2),
    Case("pow(x, 2.5)", (1e-10, 1e10), lambda T, x: T.pow(x, 2.5), lambda ms, ops, x: ops.pow(x, 2.5)),
    Case("pow(x, -1.5)", (1e-10, 1e10), lambda T, x: T.pow(x, -1.5), lambda ms, ops, x: ops.pow(x, -1.5)),
    Case("atan2(y, x)", (-1e6, 1e6), lambda T, y, x: T.atan2(y, x), lambda ms, ops, y, x: ops.atan2(y, x),
         other=_other_uniform(-1e3, 1e3)),
    Case("softmax", (-30.0, 30.0), _rows(lambda T, x: T.softmax(x, -1)),
         _rows(lambda ms, ops, x: ops.softmax(x, -1)), bound=None),
    Case("log_softmax", (-30.0, 30.0), _rows(lambda T, x: T.log_softmax(x, -1)),
         _rows(lambda ms, ops, x: ops.log_softmax(x, -1)), bound=None),
    Case("logsumexp", (-30.0, 30.0), _rows(lambda T, x: T.logsumexp(x, -1)),
         _rows(lambda ms, ops, x: ops.logsumexp(x, -1)), bound=None),
    Case("gelu", (-20.0, 20.0), _f("gelu"), bound=None),
    Case("gelu(tanh)", (-20.0, 20.0), _f("gelu", approximate="tanh"), bound=None),
    Case("silu", (-104.0, 90.0), _f("silu"), bound=None),
    Case("softplus", (-104.0, 90.0), _f("softplus"), bound=2),
    Case("logsigmoid", (-104.0, 90.0), _f("logsigmoid"), bound=2),
    Case("mish", (-30.0, 30.0), _f("mish"), bound=2),
    Case("elu", (-30.0, 30.0), _f("elu")),
]


# ---------------------------------------------------------------- measuring
def _shim():
    import mindnlp_shim.torch as mt
    return mt


def _as_numpy(out):
    return out.asnumpy() if hasattr(out, "asnumpy") else out.numpy()


def run_torch(T, case, arrays, chunk=None):
    """The case's function on `arrays` with T real torch or the shim; chunk=k runs it on tensors of k elements."""
    make = (lambda a: T.from_numpy(np.ascontiguousarray(a)))
    if chunk is None:
        return _as_numpy(case.torch_fn(T, *map(make, arrays))).astype(np.float32)
    n = arrays[0].shape[0] // chunk * chunk
    return np.concatenate([_as_numpy(case.torch_fn(T, *(make(a[i:i + chunk]) for a in arrays)))
                           for i in range(0, n, chunk)]).astype(np.float32)


def run_raw(case, arrays, chunk=None):
    import mindspore
    from mindspore import ops

    if case.raw_fn is None:
        return None
    make = (lambda a: mindspore.Tensor(np.ascontiguousarray(a)))
    if chunk is None:
        return case.raw_fn(mindspore, ops, *map(make, arrays)).asnumpy()
    n = arrays[0].shape[0] // chunk * chunk
    return np.concatenate([case.raw_fn(mindspore, ops, *(make(a[i:i + chunk]) for a in arrays)).asnumpy()
                           for i in range(0, n, chunk)])


def _small_inputs(arrays):
    rng = np.random.default_rng(3)
    idx = np.sort(rng.choice(arrays[0].shape[0], size=min(SMALL_POINTS, arrays[0].shape[0]), replace=False))
    # the powers of two (appended last by bit_sweep) always take part
    idx = np.unique(np.concatenate([idx, np.arange(max(0, arrays[0].shape[0] - 60), arrays[0].shape[0])]))
    return tuple(a[idx] for a in arrays)


_TINY = np.finfo(np.float32).tiny


def score(got, ref, f64, args):
    """Max ulp distance of `got` to real torch's `ref`. Where torch itself is more than 1 ulp from the float64
    result (`f64`, e.g. its sinh overflows to inf at 88.73), the distance to that result counts instead.
    Subnormal inputs and results are left out: MindSpore's CPU kernels flush them to zero (reported apart)."""
    d = ulp_distance(got, ref)
    torch_off = ulp_distance(ref, f64) > 1
    d = np.where(torch_off, np.minimum(d, ulp_distance(got, f64)), d)
    keep = np.ones(d.shape, bool)
    for v in (ref, f64) + tuple(a[:ref.shape[0]] for a in args):
        keep &= (np.abs(v) >= _TINY) | (v == 0) | ~np.isfinite(v)
    return int(d[keep].max())


def measure(case, points, rt):
    """{column: max ulp to real torch} for one case."""
    mt = _shim()
    arrays = case.inputs(points)
    ref = run_torch(rt, case, arrays)
    f64 = run_torch(rt, case, tuple(a.astype(np.float64) for a in arrays)).astype(np.float32)
    small = _small_inputs(arrays) if case.name not in ("softmax", "log_softmax", "logsumexp") else None
    args = arrays if ref.shape[0] == arrays[0].shape[0] else ()
    row = {"points": arrays[0].size, "torch/f64": int(ulp_distance(ref, f64)[np.abs(f64) >= _TINY].max())}
    raw = run_raw(case, arrays)
    row["raw"] = None if raw is None else score(raw, ref, f64, args)
    row["shim"] = score(run_torch(mt, case, arrays), ref, f64, args)
    if small is not None:
        ref_small = run_torch(rt, case, small, SMALL)
        f64_small = run_torch(rt, case, tuple(a.astype(np.float64) for a in small), SMALL).astype(np.float32)
        n = ref_small.shape[0]
        raw_small = run_raw(case, small, SMALL)
        row["raw small"] = None if raw_small is None else score(raw_small, ref_small, f64_small,
                                                                 tuple(a[:n] for a in small))
        row["shim small"] = score(run_torch(mt, case, small, SMALL), ref_small, f64_small,
                                  tuple(a[:n] for a in small))
    return row


COLUMNS = ("raw", "raw small", "shim", "shim small", "torch/f64")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--only", default="")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    import torch as rt  # real torch: this script never installs the import hook

    rt.set_num_threads(1)
    only = set(filter(None, args.only.split(",")))
    if args.markdown:
        print("| function | domain | " + " | ".join(COLUMNS) + " |")
        print("|---|---|" + "---|" * len(COLUMNS))
    for case in CASES:
        if only and case.name not in only:
            continue
        row = measure(case, args.points, rt)
        cells = ["-" if row.get(c) is None else str(row[c]) for c in COLUMNS]
        dom = f"[{case.domain[0]:g}, {case.domain[1]:g}]"
        if args.markdown:
            print(f"| {case.name} | {dom} | " + " | ".join(cells) + " |", flush=True)
        else:
            print(f"{case.name:14s} {dom:22s} " + " ".join(f"{c}={v}" for c, v in zip(COLUMNS, cells)), flush=True)


if __name__ == "__main__":
    main()
