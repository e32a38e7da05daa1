"""Building identical inputs for the shim and real torch, running one call on both, and comparing the results.

A generated case is a list of positional arguments and a dict of keyword arguments in which tensors are `Arr`
specs (NumPy values, a torch dtype name, a memory layout) and dtypes are `DT` markers; `build` turns them into
tensors of one framework. `compare_case` runs the call on real torch and on the shim and raises `Disagreement`
(with a `kind`) at the first difference.
"""
import math
import warnings

import numpy as np

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
INT_DTYPES = ("int64", "int32")
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool",)

# values: (rtol, atol) per result dtype; float32 allows a few ulp, half precision one or two of its own ulp
TOLERANCE = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-3, 2e-3),
             "bfloat16": (1.6e-2, 1.6e-2)}


class Disagreement(AssertionError):
    """The shim and real torch differ; `kind` is one of KINDS."""

    def __init__(self, kind, message):
        super().__init__(f"[{kind}] {message}")
        self.kind = kind


KINDS = ("raises", "no-raise", "exception-type", "type", "shape", "dtype", "value", "grad", "inplace")


class Arr:
    """A tensor argument: `values` (NumPy, float64 / int64 / bool), a torch dtype name and a layout.

    layout: "c" contiguous, "t" a transposed view of a contiguous tensor (ndim >= 2), "s" a strided slice
    (every other element of the last dim). `grad`: a float leaf that requires grad (the layout's base)."""

    def __init__(self, values, dtype, layout="c", grad=False):
        self.values, self.dtype, self.layout, self.grad = values, dtype, layout, grad

    def __repr__(self):
        v = np.array2string(np.asarray(self.values), precision=4, threshold=20)
        return f"Arr({self.dtype}, shape={tuple(np.shape(self.values))}, layout={self.layout}, grad={self.grad}, {v})"


class DT:
    """A dtype argument (`dtype=DT("float64")`)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"DT({self.name})"


class Case:
    def __init__(self, args, kwargs=None, seed=0):
        self.args, self.kwargs, self.seed = list(args), dict(kwargs or {}), seed

    def arrs(self):
        out = []

        def walk(v):
            if isinstance(v, Arr):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for x in v.values():
                    walk(x)

        walk(self.args)
        walk(self.kwargs)
        return out

    # ---- facts that known-disagreement conditions test
    def dtypes(self):
        return {a.dtype for a in self.arrs()}

    def has_0d(self):
        return any(np.ndim(a.values) == 0 for a in self.arrs())

    def has_empty(self):
        return any(np.size(a.values) == 0 for a in self.arrs())

    def has_scalar(self):
        return any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.args[1:])

    def __repr__(self):
        return f"Case(args={self.args!r}, kwargs={self.kwargs!r})"


_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
       "int32": np.int32, "bool": np.bool_}


def _tensor(T, arr):
    """The tensor of `arr` in framework T, and the leaf that gradients are read from (or None)."""
    v = np.asarray(arr.values)
    if arr.layout == "t" and v.ndim >= 2:
        v = np.ascontiguousarray(np.swapaxes(v, -1, -2))
    elif arr.layout == "s" and v.ndim >= 1:
        wide = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
        wide[..., ::2] = v
        v = wide
    if arr.dtype == "bfloat16":
        base = T.tensor(v.astype(np.float32)).to(T.bfloat16)
    else:
        base = T.tensor(v.astype(_NP[arr.dtype]))
    leaf = None
    if arr.grad and arr.dtype in FLOAT_DTYPES:
        base.requires_grad_()
        leaf = base
    t = base
    if arr.layout == "t" and np.ndim(arr.values) >= 2:
        t = base.transpose(-1, -2)
    elif arr.layout == "s" and np.ndim(arr.values) >= 1:
        t = base[..., ::2]
    return t, leaf


def build(T, value, leaves):
    if isinstance(value, Arr):
        t, leaf = _tensor(T, value)
        if leaf is not None:
            leaves.append(leaf)
        return t
    if isinstance(value, DT):
        return getattr(T, value.name)
    if isinstance(value, list):
        return [build(T, v, leaves) for v in value]
    if isinstance(value, tuple):
        return tuple(build(T, v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: build(T, v, leaves) for k, v in value.items()}
    return value


def is_tensor(x):
    return hasattr(x, "requires_grad") and hasattr(x, "dtype") and hasattr(x, "shape")


def flat_tensors(out):
    if is_tensor(out):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat_tensors(o)]
    return []


def _np(t):
    t = t.detach()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    try:
        return np.array(t.numpy())
    except RuntimeError:  # torch's ZeroTensor (a gradient known to be zero) has no NumPy view
        return np.zeros(tuple(t.shape), np.float32 if "float" in str(t.dtype) else np.int64)


def _dtype_name(dt):
    return str(dt).replace("torch.", "")


def compare_values(m, r, where, kind="value", tol=None, meta=False):
    """`m` (shim) against `r` (real torch), recursively through tuples, lists, namedtuples and Python values.
    meta: shapes and dtypes only (random values)."""
    if type(r).__name__ == "dtype":
        if _dtype_name(m) != _dtype_name(r):
            raise Disagreement(kind, f"{where}: {m} != torch {r}")
        return
    if is_tensor(r):
        if not is_tensor(m):
            raise Disagreement("type", f"{where}: torch gives a tensor, the shim {type(m).__name__}: {m!r}")
        if tuple(m.shape) != tuple(r.shape):
            raise Disagreement("shape", f"{where}: shape {tuple(m.shape)} != torch {tuple(r.shape)}")
        if _dtype_name(m.dtype) != _dtype_name(r.dtype):
            raise Disagreement("dtype", f"{where}: dtype {_dtype_name(m.dtype)} != torch {_dtype_name(r.dtype)}")
        if meta:
            return
        a, b = _np(m), _np(r)
        name = _dtype_name(r.dtype)
        if name in TOLERANCE:
            rtol, atol = (tol or {}).get(name, TOLERANCE[name])
            ok = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                i = np.argwhere(~ok)[0]
                raise Disagreement(kind, f"{where}: {int((~ok).sum())} of {ok.size} elements differ, e.g. at "
                                         f"{tuple(i)}: shim {a[tuple(i)]!r} torch {b[tuple(i)]!r} "
                                         f"(rtol {rtol}, atol {atol})")
        elif not np.array_equal(a, b):
            raise Disagreement(kind, f"{where}: values differ\nshim  {a!r}\ntorch {b!r}")
        return
    if isinstance(r, (tuple, list)):
        if not isinstance(m, (tuple, list)) or len(m) != len(r):
            raise Disagreement("type", f"{where}: torch gives {type(r).__name__} of {len(r)}, the shim {m!r}")
        for field in ("values", "indices", "mean", "std", "var"):
            if hasattr(r, field) and not hasattr(m, field):
                raise Disagreement("type", f"{where}: the shim's result has no .{field}")
        for i, (a, b) in enumerate(zip(m, r)):
            compare_values(a, b, f"{where}[{i}]", kind, tol, meta)
        return
    if isinstance(r, float):
        if not isinstance(m, (float, int)) or not (math.isclose(m, r, rel_tol=1e-6, abs_tol=1e-7) or
                                                   (math.isnan(m) and math.isnan(r))):
            raise Disagreement(kind, f"{where}: {m!r} != torch {r!r}")
        return
    if type(r).__name__ == "Size":
        if tuple(m) != tuple(r):
            raise Disagreement(kind, f"{where}: {m!r} != torch {r!r}")
        return
    if type(m) is not type(r) or m != r:
        raise Disagreement(kind, f"{where}: {m!r} ({type(m).__name__}) != torch {r!r} ({type(r).__name__})")


def _run(T, op, case, weights):
    """Calls op on framework T; returns (result, receiver, gradients of the float leaves, weights)."""
    leaves = []
    args = build(T, case.args, leaves)
    kwargs = build(T, case.kwargs, leaves)
    receiver = None
    if op.inplace:
        receiver = args[0]
        if receiver.requires_grad:
            # torch refuses in-place writes into a leaf that requires grad and into a view of one
            receiver = receiver.clone()
        args[0] = receiver
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = op.call(T, args, kwargs)
    grads = None
    if leaves and op.grad:
        outs = [o for o in flat_tensors(receiver if op.inplace else out)
                if o.requires_grad and str(o.dtype) in ("torch.float32", "torch.float64", "torch.float16",
                                                         "torch.bfloat16")]
        if outs:
            if weights is None:
                rng = np.random.default_rng(case.seed)
                weights = [rng.standard_normal(tuple(o.shape)) for o in outs]
            loss = None
            for o, w in zip(outs, weights):
                term = (o.float() * T.tensor(w.astype(np.float32))).sum()
                loss = term if loss is None else loss + term
            loss.backward()
            grads = [leaf.grad for leaf in leaves]
    return out, receiver, grads, weights


def _exc_family(exc):
    for cls in (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError):
        if isinstance(exc, cls):
            return cls
    return type(exc)


def compare_case(op, case, rt, mt):
    """Runs `op` on `case` with real torch and the shim; raises Disagreement at the first difference."""
    try:
        r_out, r_recv, r_grads, weights = _run(rt, op, case, None)
        r_exc = None
    except Exception as exc:  # noqa: BLE001  (whatever torch raises, the shim must raise too)
        r_exc = exc
    try:
        m_out, m_recv, m_grads, _ = _run(mt, op, case, None if r_exc else weights)
        m_exc = None
    except Exception as exc:  # noqa: BLE001
        m_exc = exc
    if r_exc is not None:
        if m_exc is None:
            raise Disagreement("no-raise", f"torch raises {type(r_exc).__name__}: {str(r_exc)[:300]}; "
                                           f"the shim returns")
        # torch's own errors: RuntimeError, IndexError (dims), TypeError (arguments), ValueError, NotImplemented
        if _exc_family(m_exc) is not _exc_family(r_exc) and not (
                isinstance(r_exc, RuntimeError) and isinstance(m_exc, RuntimeError)):
            raise Disagreement("exception-type", f"torch raises {type(r_exc).__name__}: {str(r_exc)[:200]}; "
                                                 f"the shim {type(m_exc).__name__}: {str(m_exc)[:200]}")
        return
    if m_exc is not None:
        raise Disagreement("raises", f"torch returns; the shim raises {type(m_exc).__name__}: {str(m_exc)[:400]}")
    compare_values(m_out, r_out, "output", tol=op.tol, meta=op.meta)
    if op.inplace:
        if m_out is not m_recv:
            raise Disagreement("inplace", "the in-place method does not return its receiver")
        compare_values(m_recv, r_recv, "receiver", tol=op.tol, meta=op.meta)
    if r_grads is not None:
        if m_grads is None:
            raise Disagreement("grad", "torch's result requires grad, the shim's does not")
        for i, (gm, gr) in enumerate(zip(m_grads, r_grads)):
            if gr is None or gm is None:
                other = gm if gr is None else gr
                if other is not None and _np(other).any():
                    raise Disagreement("grad", f"grad[{i}]: one side is None, the other nonzero")
            else:
                compare_values(gm, gr, f"grad[{i}]", "grad", op.grad_tol or op.tol)
