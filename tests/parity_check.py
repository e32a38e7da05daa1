"""One comparison of an op between real torch and the shim: identical inputs built from NumPy arrays, then the
result's type, dtype, shape and values (complex results by their real and imaginary parts; tuples and named
tuples element by element) and the gradients of sum(real(out) * w + imag(out) * v) for fixed random w, v.

    check(rt, mt, lambda T, a, b: T.linalg.solve(a, b), [A, B], "float32")
"""
import numpy as np

TOL = {"float64": (1e-9, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-3, 2e-3),
       "complex64": (1e-5, 1e-6), "complex128": (1e-9, 1e-12)}
for _int in ("int64", "int32", "bool"):  # integer inputs give default-dtype (float32) results
    TOL[_int] = TOL["float32"]


def _tensors(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [out]


def _loss(T, out, seed):
    rng = np.random.default_rng(seed)
    total = None
    for o in _tensors(out):
        if not (o.is_floating_point() or o.is_complex()) or not o.requires_grad:
            continue
        w = T.tensor(rng.standard_normal(tuple(o.shape)))
        term = (T.real(o).double() * w).sum()
        if o.is_complex():
            term = term + (T.imag(o).double() * T.tensor(rng.standard_normal(tuple(o.shape)))).sum()
        total = term if total is None else total + term
    return total


def _as_dtype(a, dtype):
    """A float array in `dtype`, a complex one in the complex dtype of `dtype`'s precision."""
    if np.iscomplexobj(a):
        return a.astype(np.complex128 if np.dtype(dtype) == np.float64 else np.complex64)
    return a.astype(dtype)


def run(T, fn, arrays, dtype, grad):
    leaves = [T.tensor(_as_dtype(np.asarray(a), dtype)) if isinstance(a, np.ndarray) else a for a in arrays]
    if grad:
        for leaf in leaves:
            if isinstance(leaf, T.Tensor) and (leaf.is_floating_point() or leaf.is_complex()):
                leaf.requires_grad_()
    out = fn(T, *leaves)
    grads = None
    if grad:
        loss = _loss(T, out, 7)
        assert loss is not None, "grad=True but no output requires grad"
        loss.backward()
        grads = [_numpy(leaf.grad) if isinstance(leaf, T.Tensor) and leaf.grad is not None else None
                 for leaf in leaves]
    return out, grads


def _numpy(t):
    t = t.detach()
    return (t.resolve_conj() if hasattr(t, "resolve_conj") else t).numpy()  # (torch's lazy conjugate views)


def _values(t):
    return _numpy(t) if hasattr(t, "detach") else np.asarray(t)


def _close(m, r, tol, what):
    m, r = np.asarray(m), np.asarray(r)
    assert m.shape == r.shape, f"{what}: shape {m.shape} != torch's {r.shape}"
    rtol, atol = tol
    if np.iscomplexobj(r) or np.iscomplexobj(m):
        np.testing.assert_allclose(m.real.astype(np.float64), r.real.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=what + " (real part)")
        np.testing.assert_allclose(m.imag.astype(np.float64), r.imag.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=what + " (imaginary part)")
    elif r.dtype.kind in "biu":
        np.testing.assert_array_equal(m, r, err_msg=what)
    else:
        np.testing.assert_allclose(m.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=atol, err_msg=what)


def compare(m_out, r_out, tol, what="result"):
    if isinstance(r_out, (tuple, list)):
        assert isinstance(m_out, (tuple, list)) and len(m_out) == len(r_out), f"{what}: {type(m_out)} vs {r_out}"
        if hasattr(r_out, "_fields"):
            assert getattr(m_out, "_fields", None) == r_out._fields, f"{what}: fields differ"
        for i, (m, r) in enumerate(zip(m_out, r_out)):
            compare(m, r, tol, f"{what}[{i}]")
        return
    if not hasattr(r_out, "dtype"):
        assert m_out == r_out, f"{what}: {m_out!r} != torch's {r_out!r}"
        return
    assert str(m_out.dtype) == str(r_out.dtype), f"{what}: dtype {m_out.dtype} != torch's {r_out.dtype}"
    assert tuple(m_out.shape) == tuple(r_out.shape), f"{what}: shape {tuple(m_out.shape)} != {tuple(r_out.shape)}"
    _close(_values(m_out), _values(r_out), tol, what)


def check(rt, mt, fn, arrays, dtype, grad=True, tol=None):
    """Compare fn(T, *inputs) between real torch (rt) and the shim (mt); float inputs get `dtype`."""
    tol = tol or TOL[np.dtype(dtype).name]
    r_out, r_grads = run(rt, fn, arrays, dtype, grad)
    m_out, m_grads = run(mt, fn, arrays, dtype, grad)
    compare(m_out, r_out, tol)
    for i, (m, r) in enumerate(zip(m_grads or (), r_grads or ())):
        if r is None:
            assert m is None or not np.any(m), f"grad[{i}]: torch has none, the shim {m}"
            continue
        if m is None:  # torch's zero gradient (round, sign, ...) where the shim has none: the same derivative
            assert not np.any(r), f"grad[{i}]: the shim has none, torch {r}"
            continue
        assert m.dtype == r.dtype, f"grad[{i}]: dtype {m.dtype} != torch's {r.dtype}"
        _close(m, r, tol, f"grad[{i}]")
    return r_out


def assert_outputs_and_grads_close(ours, theirs, rtol, atol):
    """For modules that summarise a run as (outputs, grads): outputs as (values, dtype name, shape) triples must
    agree in dtype and shape and be close; grads (arrays, or None where a leaf got none) must be missing alike,
    and agree in dtype and be close where present."""
    (m_outs, m_grads), (r_outs, r_grads) = ours, theirs
    assert len(m_outs) == len(r_outs)
    for (mv, md, ms), (rv, rd, rs) in zip(m_outs, r_outs):
        assert (md, ms) == (rd, rs)
        np.testing.assert_allclose(mv, rv, rtol=rtol, atol=atol)
    assert len(m_grads) == len(r_grads)
    for mg, rg in zip(m_grads, r_grads):
        assert (mg is None) == (rg is None)
        if rg is not None:
            assert mg.dtype == rg.dtype, f"gradient dtype {mg.dtype} != torch's {rg.dtype}"
            np.testing.assert_allclose(mg, rg, rtol=rtol, atol=atol)
