"""No MindSpore-native attribute answers under a torch name.

`torch.Tensor is mindspore.Tensor`: every public torch.Tensor name that MindSpore's class already carries must be
decided in `mindnlp_shim.torch._tensor_audit` (implemented with torch's semantics, kept because MindSpore's
answer is torch's, or refused). The audit is recomputed here from the class before and after the shim installs,
and each implemented name is compared with real torch (values, dtypes, shapes, gradients).
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from mindnlp_shim.torch import _tensor_audit as audit
from conftest import REPO_ROOT, SUBPROCESS_FLAG, real_torch, subprocess_fallback
from test_ops_parity import LOW, Case, Fixed, check, ints, params, pos, randn

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(4321)

# In a fresh interpreter: MindSpore's Tensor class before and after the whole shim is imported; a public
# torch.Tensor name whose class attribute is the same object afterwards is still MindSpore's own.
_AUDIT_SCRIPT = r"""
import inspect, json, sys
sys.path.insert(0, sys.argv[1])
import mindspore
T = mindspore.Tensor
before = {n: inspect.getattr_static(T, n) for n in dir(T)}
import mindnlp_shim.torch as mt
for sub in ("nn", "autograd", "optim", "amp", "linalg", "fft", "special", "utils.data", "distributions"):
    __import__("mindnlp_shim.torch." + sub)
after = {n: inspect.getattr_static(T, n) for n in dir(T)}
import torch
names = [n for n in dir(torch.Tensor) if not n.startswith("_")]
own = sorted(n for n in names if n in before and n in after and after[n] is before[n])
functions = sorted(n for n in dir(mt) if not n.startswith("_") and hasattr(torch, n) and callable(getattr(mt, n))
                   and not isinstance(getattr(mt, n), type)
                   and (getattr(getattr(mt, n), "__module__", None) or "").startswith("mindspore"))
print(json.dumps({"own": own, "torch_names": names, "ms_functions": functions}))
"""


@pytest.fixture(scope="module")
def audit_result():
    proc = subprocess.run([sys.executable, "-c", _AUDIT_SCRIPT, REPO_ROOT], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GLOG_v": "3"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _decided():
    return {**audit.IMPLEMENTED, **audit.PROPERTIES, **audit.INPLACE, **audit.KEPT, **audit.REFUSED}


def test_no_torch_name_is_left_with_mindspore_meaning(audit_result):
    undecided = sorted(set(audit_result["own"]) - set(audit.KEPT))
    assert not undecided, f"MindSpore's own attributes under torch names, not in _tensor_audit: {undecided}"


def test_registry_tables_are_disjoint_torch_names():
    tables = [audit.IMPLEMENTED, audit.PROPERTIES, audit.INPLACE, audit.KEPT, audit.REFUSED]
    seen = {}
    for table in tables:
        for name in table:
            assert name not in seen, f"{name} is decided twice"
            seen[name] = table
    torch_names = set(dir(rt.Tensor))
    assert set(seen) <= torch_names, sorted(set(seen) - torch_names)


def test_installed_objects_are_the_registry_ones():
    import inspect

    for name, fn in audit.IMPLEMENTED.items():
        assert inspect.getattr_static(mt.Tensor, name) is fn, name
    for name, fn in audit.PROPERTIES.items():
        assert inspect.getattr_static(mt.Tensor, name).fget is fn, name


def test_no_torch_function_is_a_mindspore_function(audit_result):
    assert audit_result["ms_functions"] == []


def test_torch_functions_of_audited_names_are_the_shim_ones():
    for name, fn in {**audit.IMPLEMENTED, **audit.PROPERTIES}.items():
        if name.startswith("_") or not callable(getattr(rt, name, None)) or name in ("real", "imag"):
            continue
        ours = getattr(mt, name, None)
        assert ours is not None, f"torch.{name} is missing"
        assert ours.__module__.startswith("mindnlp_shim"), f"torch.{name} is {ours.__module__}'s"


@pytest.mark.parametrize("name", sorted(audit.REFUSED))
def test_refused_names_raise_not_implemented(name):
    x = mt.tensor(np.eye(3, dtype=np.float32))
    with pytest.raises(NotImplementedError, match=f"torch.Tensor.{name} is not supported by mindnlp-shim on "
                                                  f"MindSpore: "):
        getattr(x, name)()


# ---------------------------------------------------------------- kept MindSpore attributes behave like torch's
def test_kept_dtype_ndim():
    for T in (mt, rt):
        x = T.tensor(np.zeros((2, 3, 4), np.float32))
        assert str(x.dtype) == "torch.float32" and x.ndim == 3 and type(x.ndim) is int
    assert mt.tensor([1]).dtype is mt.int64


def test_kept_data_ptr_and_storage_offset():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    m, r = mt.tensor(arr), rt.tensor(arr)
    assert isinstance(m.data_ptr(), int) and m.data_ptr() != 0
    assert m.data_ptr() != mt.tensor(arr).data_ptr()
    assert m.storage_offset() == r.storage_offset() == 0
    assert m[1].storage_offset() == r[1].storage_offset()
    assert m[1].data_ptr() - m.data_ptr() == r[1].data_ptr() - r.data_ptr()


def test_kept_register_hook():
    results = []
    for T in (mt, rt):
        w = T.tensor([1.0, 2.0], requires_grad=True)
        handle = w.register_hook(lambda g: g * 2)
        (w * 3).sum().backward()
        first = w.grad.numpy().copy()
        handle.remove()
        w.grad = None
        (w * 3).sum().backward()
        results.append((first, w.grad.numpy().copy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 1, 5), (2, 3, 1, 1), (1, 3, 4, 5), (2, 3, 4, 5, 6)])
def test_is_contiguous_takes_memory_format(shape):
    answers = []
    for T in (mt, rt):
        x = T.tensor(np.zeros(shape, np.float32))
        answers.append((x.is_contiguous(), x.is_contiguous(memory_format=T.contiguous_format),
                        x.is_contiguous(memory_format=T.channels_last),
                        x.is_contiguous(memory_format=T.channels_last_3d)))
    assert answers[0] == answers[1]


# ---------------------------------------------------------------- properties
def test_real_imag_are_properties():
    arr = randn(2, 3)
    carr = (arr + 1j * randn(2, 3)).astype(np.complex64)
    for T in (mt, rt):
        x = T.tensor(arr)
        assert x.real is x or np.array_equal(x.real.numpy(), arr)  # torch: a real tensor's real part is itself
        with pytest.raises(RuntimeError):
            x.imag
        z = T.tensor(carr)
        np.testing.assert_array_equal(z.real.numpy(), carr.real)
        np.testing.assert_array_equal(z.imag.numpy(), carr.imag)
        assert str(z.imag.dtype) == "torch.float32"


# ---------------------------------------------------------------- parity with real torch
def unit(*shape):
    return (_rng.random(shape) * 0.9 + 0.05).astype(np.float32)


def distinct(*shape):
    """Distinct values (order statistics then pick one element, as torch does)."""
    return (_rng.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 2).astype(np.float32)


def with_nan(arr, where):
    arr = arr.copy()
    arr[where] = np.nan
    return arr


def spd(n):
    a = _rng.standard_normal((n, n)).astype(np.float32)
    return (a @ a.T + n * np.eye(n, dtype=np.float32)).astype(np.float32)


def chol(n):
    """A lower Cholesky factor, as an input of its own (MindSpore has no CPU gradient kernel for cholesky)."""
    return np.linalg.cholesky(spd(n)).astype(np.float32)


def _in_place(method):
    """A copy of x (in place on a leaf is an error in torch), written in place, and the write's result."""

    def fn(T, x, *args):
        y = x * 1
        out = getattr(y, method[0])(*method[1](T, *args))
        assert out is y
        return y

    return fn


SVD_PARTS = lambda T, r: (r.S, r.U @ T.diag_embed(r.S) @ r.V.mT, r.U.abs(), r.V.abs())  # noqa: E731

CASES = [
    # elementwise
    Case("acosh", lambda T, x: x.acosh(), pos(3, 4) + 1),
    Case("arccosh", lambda T, x: T.arccosh(x), pos(3, 4) + 1),
    Case("asinh", lambda T, x: x.asinh(), randn(3, 4), dtypes=LOW),
    Case("arcsinh", lambda T, x: x.arcsinh(), randn(3, 4)),
    Case("atanh", lambda T, x: x.atanh(), randn(3, 4) * 0.3),
    Case("arctanh", lambda T, x: T.arctanh(x), randn(3, 4) * 0.3),
    Case("arccos", lambda T, x: x.arccos(), randn(3, 4) * 0.3),
    Case("arcsin", lambda T, x: x.arcsin(), randn(3, 4) * 0.3),
    Case("arctan", lambda T, x: x.arctan(), randn(3, 4)),
    Case("arctan2", lambda T, x, y: x.arctan2(y), randn(3, 4), randn(3, 4)),
    Case("acosh_int", lambda T, x: x.acosh(), Fixed(ints(1, 5, 3, 4))),
    Case("deg2rad", lambda T, x: x.deg2rad(), randn(3, 4)),
    Case("rad2deg", lambda T, x: x.rad2deg(), randn(3, 4)),
    Case("deg2rad_int", lambda T, x: T.deg2rad(x), Fixed(ints(-90, 90, 5))),
    Case("digamma", lambda T, x: x.digamma(), pos(3, 4) + 0.5),
    Case("lgamma", lambda T, x: x.lgamma(), pos(3, 4) + 0.5),
    Case("i0", lambda T, x: x.i0(), randn(3, 4)),
    Case("sinc", lambda T, x: x.sinc(), randn(3, 4), tol=(1e-5, 5e-5)),  # (the gradient cancels near integers)
    Case("logit", lambda T, x: x.logit(), unit(3, 4)),
    Case("logit_eps", lambda T, x: T.logit(x, eps=0.2), unit(3, 4)),
    Case("mvlgamma", lambda T, x: x.mvlgamma(3), pos(3, 4) + 1.5),
    Case("hardshrink", lambda T, x: x.hardshrink(0.4), randn(3, 4)),
    Case("positive", lambda T, x: x.positive(), randn(3, 4)),
    Case("xlogy", lambda T, x, y: x.xlogy(y), np.where(_rng.random((3, 4)) < 0.3, 0, randn(3, 4))
         .astype(np.float32), pos(3, 4)),
    Case("xlogy_scalar", lambda T, x: T.xlogy(2, x), pos(3, 4), dtypes=LOW),
    Case("xlogy_edges", lambda T, x, y: x.xlogy(y), Fixed(np.array([0, 0, 0, 1, 2], np.float32)),
         Fixed(np.array([0, np.inf, np.nan, 0, np.inf], np.float32))),
    Case("logaddexp", lambda T, x, y: x.logaddexp(y), randn(3, 4) * 3, randn(3, 4), dtypes=LOW),
    Case("logaddexp2", lambda T, x, y: x.logaddexp2(y), randn(3, 4) * 3, randn(3, 4)),
    Case("logaddexp_inf", lambda T, x: x.logaddexp(x), Fixed(np.array([-np.inf, np.inf, 0.0], np.float32))),
    Case("copysign", lambda T, x, y: x.copysign(y), randn(3, 4), randn(3, 4)),
    Case("copysign_scalar", lambda T, x: x.copysign(-1.0), randn(3, 4)),
    # (exponents >= 0: torch's own gradient is 0 for negative integer exponents, as 2 ** -k is taken in integers)
    Case("ldexp", lambda T, x, e: x.ldexp(e), randn(3, 4), Fixed(ints(0, 4, 3, 4))),
    Case("ldexp_values", lambda T, x, e: x.ldexp(e), randn(3, 4), Fixed(ints(-3, 4, 3, 4)), grad=False),
    Case("float_power", lambda T, x, y: x.float_power(y), pos(3, 4), randn(3, 4)),
    Case("float_power_scalar", lambda T, x: T.float_power(x, 2), randn(3, 4)),
    Case("igamma", lambda T, a, x: a.igamma(x), pos(3, 4), pos(3, 4), grad=False),
    Case("igammac", lambda T, a, x: a.igammac(x), pos(3, 4), pos(3, 4), grad=False),
    Case("heaviside", lambda T, x, v: x.heaviside(v),
         Fixed(np.array([-1.5, 0.0, 2.0, 0.0], np.float32)), Fixed(np.array([0.5, 0.25, 0.5, 1.0], np.float32))),
    Case("gcd", lambda T, a, b: a.gcd(b), Fixed(ints(-30, 30, 10)), Fixed(ints(0, 30, 10))),
    Case("lcm", lambda T, a, b: T.lcm(a, b), Fixed(ints(-30, 30, 10)), Fixed(ints(0, 30, 10))),
    Case("nextafter", lambda T, a, b: a.nextafter(b), Fixed(randn(6)), Fixed(randn(6))),
    Case("signbit", lambda T, x: x.signbit(), Fixed(np.array([-1.0, -0.0, 0.0, 2.0, -np.inf], np.float32))),
    Case("bitwise_left_shift", lambda T, a, b: a.bitwise_left_shift(b), Fixed(ints(-20, 20, 6)),
         Fixed(ints(0, 4, 6))),
    Case("bitwise_right_shift", lambda T, a, b: a.bitwise_right_shift(b), Fixed(ints(-20, 20, 6)),
         Fixed(ints(0, 4, 6))),
    Case("conj_real", lambda T, x: x.conj(), randn(3, 4)),
    Case("angle", lambda T, x: x.angle(), Fixed(np.array([-2.0, 0.0, 3.0, -0.5], np.float32))),
    Case("angle_complex", lambda T, z: z.angle(), Fixed((randn(4) + 1j * randn(4)).astype(np.complex64))),
    Case("conj_complex", lambda T, z: z.conj() + 0, Fixed((randn(4) + 1j * randn(4)).astype(np.complex64))),
    Case("isreal", lambda T, z: z.isreal(), Fixed(np.array([1 + 0j, 1 + 1j, 2.0], np.complex64))),
    Case("isreal_real", lambda T, x: x.isreal(), randn(3), grad=False),
    Case("view_as_real", lambda T, z: T.view_as_real(z), Fixed((randn(4) + 1j * randn(4)).astype(np.complex64))),
    # order statistics
    Case("median", lambda T, x: x.median(), distinct(3, 4)),
    Case("median_even", lambda T, x: T.median(x), distinct(4, 2)),
    Case("median_dim", lambda T, x: x.median(1), distinct(3, 4), dtypes=LOW),
    Case("median_dim0_keepdim", lambda T, x: x.median(0, keepdim=True), distinct(4, 3)),
    Case("median_ties", lambda T, x: x.median(1), Fixed(np.array([[1, 1, 1, 2], [3, 0, 3, 3]], np.float32))),
    Case("median_nan", lambda T, x: (x.median(), x.median(1)), Fixed(with_nan(distinct(3, 4), (1, 2)))),
    Case("median_int", lambda T, x: (x.median(), x.median(0)), Fixed(ints(0, 100, 5, 3))),
    Case("nanmedian", lambda T, x: (x.nanmedian(), x.nanmedian(1)), Fixed(with_nan(distinct(3, 5), (1, 2)))),
    Case("nanmedian_grad", lambda T, x: x.nanmedian(0), distinct(5, 3)),
    Case("kthvalue", lambda T, x: x.kthvalue(2, 1), distinct(3, 4), dtypes=LOW),
    Case("kthvalue_default_dim", lambda T, x: T.kthvalue(x, 3, keepdim=True), distinct(2, 3, 4)),
    Case("msort", lambda T, x: x.msort(), distinct(4, 3), dtypes=LOW),
    Case("cummax", lambda T, x: x.cummax(1), randn(3, 5), dtypes=LOW),
    Case("cummin", lambda T, x: x.cummin(0), randn(4, 3)),
    Case("cummax_ties_nan", lambda T, x: T.cummax(x, 0),
         Fixed(np.array([1, 1, 0, 2, 2, np.nan, 3, np.nan], np.float32))),
    Case("cummin_ties", lambda T, x: x.cummin(1), Fixed(np.array([[3, 1, 1, 2, 0, 0]], np.float32))),
    Case("cummin_int", lambda T, x: x.cummin(0), Fixed(ints(0, 5, 6))),
    Case("logcumsumexp", lambda T, x: x.logcumsumexp(1), randn(3, 5)),
    Case("quantile", lambda T, x: x.quantile(0.3), randn(3, 5)),
    Case("quantile_dim_q", lambda T, x, q: x.quantile(q, dim=1, keepdim=True), randn(3, 5),
         Fixed(np.array([0.1, 0.5, 0.85], np.float32))),
    Case("quantile_lower", lambda T, x: x.quantile(0.3, 0, interpolation="lower"), randn(6, 2)),
    Case("quantile_higher", lambda T, x: x.quantile(0.3, 0, interpolation="higher"), randn(6, 2)),
    Case("quantile_midpoint", lambda T, x: x.quantile(0.3, 0, interpolation="midpoint"), randn(6, 2)),
    Case("quantile_nearest", lambda T, x: x.quantile(0.5, 1, interpolation="nearest"), randn(2, 4)),
    Case("quantile_nan", lambda T, x: x.quantile(0.5, 1), Fixed(with_nan(randn(3, 4), (0, 1)))),
    Case("nanquantile", lambda T, x: x.nanquantile(0.4, 1), Fixed(with_nan(randn(3, 5), (0, 1)))),
    Case("nanquantile_grad", lambda T, x: T.nanquantile(x, 0.25), randn(3, 5)),
    Case("nanmean", lambda T, x: (x.nanmean(), x.nanmean(1, keepdim=True)), Fixed(with_nan(randn(3, 4), (1, 1)))),
    Case("nanmean_grad", lambda T, x: x.nanmean(0), randn(3, 4), dtypes=LOW),
    Case("bincount", lambda T, x: x.bincount(), Fixed(ints(0, 6, 20))),
    Case("bincount_weights", lambda T, x, w: T.bincount(x, w, minlength=9), Fixed(ints(0, 6, 20)),
         Fixed(randn(20))),
    Case("histc", lambda T, x: x.histc(bins=7), randn(50), grad=False),
    Case("histc_range", lambda T, x: T.histc(x, bins=5, min=-1, max=1), randn(50), grad=False),
    Case("cov", lambda T, x: x.cov(), randn(3, 6)),
    Case("cov_weights", lambda T, x, f, a: T.cov(x, correction=0, fweights=f, aweights=a), randn(2, 5),
         Fixed(ints(1, 4, 5)), Fixed(pos(5))),
    Case("renorm", lambda T, x: x.renorm(2, 0, 1.0), randn(3, 4)),
    Case("renorm_p1_dim1", lambda T, x: T.renorm(x, 1, 1, 2.0), randn(3, 4)),
    # matrices
    Case("diag_matrix", lambda T, x: (x.diag(), T.diag(x)), randn(3, 4), dtypes=LOW),
    Case("diag_matrix_offsets", lambda T, x: (x.diag(1), x.diag(-2)), randn(3, 4)),
    Case("diag_vector", lambda T, x: (x.diag(), T.diag(x, 2), x.diag(-1)), randn(3), dtypes=LOW),
    Case("diagflat", lambda T, x: (x.diagflat(), T.diagflat(x, -1)), randn(2, 2)),
    Case("diag_embed", lambda T, x: (T.diag_embed(x), T.diag_embed(x, 1, 0, 2)), randn(2, 3)),
    Case("svd", lambda T, x: SVD_PARTS(T, x.svd()), randn(4, 3), tol=(1e-4, 1e-5)),
    Case("svd_wide", lambda T, x: SVD_PARTS(T, T.svd(x)), randn(3, 5), tol=(1e-4, 1e-5)),
    Case("svd_values_only", lambda T, x: x.svd(compute_uv=False), randn(4, 3)),
    Case("det", lambda T, x: x.det(), randn(3, 3)),
    Case("det_batched", lambda T, x: T.det(x), randn(2, 3, 3)),
    Case("logdet", lambda T, x: x.logdet(), spd(3)),
    Case("logdet_negative", lambda T, x: x.logdet(), Fixed(np.diag([1.0, -2.0, 3.0]).astype(np.float32))),
    Case("slogdet", lambda T, x: x.slogdet(), randn(3, 3)),
    Case("inverse", lambda T, x: x.inverse(), spd(3)),
    Case("trace", lambda T, x: x.trace(), randn(3, 4), dtypes=LOW),
    Case("trace_int", lambda T, x: x.trace(), Fixed(ints(0, 9, 3, 3, dtype=np.int32))),
    Case("inner", lambda T, x, y: x.inner(y), randn(2, 3), randn(4, 3)),
    Case("ger", lambda T, x, y: x.ger(y), randn(3), randn(4)),
    Case("addmv", lambda T, b, m, v: b.addmv(m, v, beta=0.5, alpha=2), randn(3), randn(3, 4), randn(4)),
    Case("addr", lambda T, b, x, y: T.addr(b, x, y, alpha=3), randn(3, 4), randn(3), randn(4)),
    Case("addbmm", lambda T, b, x, y: b.addbmm(x, y, beta=2), randn(3, 4), randn(2, 3, 5), randn(2, 5, 4)),
    Case("addmv_beta0_nan", lambda T, b, m, v: b.addmv(m, v, beta=0), Fixed(np.full(3, np.nan, np.float32)),
         randn(3, 4), randn(4)),
    Case("adjoint", lambda T, x: (x.adjoint(), x.mH), randn(2, 3, 4)),
    Case("matrix_power", lambda T, x: (x.matrix_power(3), x.matrix_power(0), T.matrix_power(x, 1)), randn(3, 3)),
    Case("matrix_power_negative", lambda T, x: x.matrix_power(-2), spd(3), tol=(1e-4, 1e-5)),
    Case("cholesky", lambda T, x: (x.cholesky(), x.cholesky(upper=True)), Fixed(spd(3))),
    Case("cross", lambda T, x, y: x.cross(y, dim=1), randn(2, 3), randn(2, 3)),
    Case("cholesky_inverse", lambda T, L: (L.cholesky_inverse(), T.cholesky_inverse(L.mT, upper=True)), chol(3),
         tol=(1e-4, 1e-5)),
    Case("cholesky_solve", lambda T, b, L: (b.cholesky_solve(L), T.cholesky_solve(b, L.mT, True)), randn(3, 2),
         chol(3), tol=(1e-4, 1e-5)),
    Case("triangular_solve", lambda T, b, a: (b.triangular_solve(a), T.triangular_solve(b, a, upper=False),
                                             b.triangular_solve(a, transpose=True, unitriangular=True)),
         randn(3, 2), spd(3), tol=(1e-4, 1e-5)),
    Case("linalg_det_inv_power", lambda T, x: (T.linalg.det(x), T.linalg.slogdet(x), T.linalg.inv(x),
                                               T.linalg.matrix_power(x, 2)), spd(3)),
    Case("linalg_svd", lambda T, x: (lambda r: (r.S, r.U @ T.diag_embed(r.S) @ r.Vh, r.U.abs(), r.Vh.abs()))(
        T.linalg.svd(x, full_matrices=False)), randn(4, 3), tol=(1e-4, 1e-5)),
    Case("linalg_svd_full", lambda T, x: tuple(t.shape for t in T.linalg.svd(x)), Fixed(randn(4, 3))),
    Case("linalg_svdvals", lambda T, x: T.linalg.svdvals(x), randn(3, 5), tol=(1e-4, 1e-5)),
    Case("special", lambda T, x, y: (T.special.gammaln(x), T.special.digamma(x), T.special.psi(x), T.special.i0(x),
                                     T.special.logit(x / 4), T.special.sinc(x), T.special.xlogy(x, y)),
         pos(3, 4) + 0.5, pos(3, 4)),
    Case("special_gammainc", lambda T, a, x: (T.special.gammainc(a, x), T.special.gammaincc(a, x)), pos(3, 4),
         pos(3, 4), grad=False),
    # placement
    Case("index_put", lambda T, x, v: x.index_put((T.tensor([0, 2]), T.tensor([1, 3])), v), randn(3, 4),
         randn(2), dtypes=LOW),
    Case("index_put_accumulate", lambda T, x, v: T.index_put(x, (T.tensor([0, 0, 2]),), v, accumulate=True),
         randn(3, 4), randn(3, 4)),
    Case("index_put_", _in_place(("index_put_", lambda T, v: ((T.tensor([1, -1]),), v))), randn(3, 4), randn(4)),
    Case("index_put_mask", lambda T, x: x.index_put((x > 0,), T.tensor(0.0)), randn(3, 4)),
    Case("index_put_int", lambda T, x: x.index_put_((T.tensor([0, 1]), T.tensor([2, 0])), T.tensor(7)),
         Fixed(ints(0, 5, 3, 4))),
    Case("index_copy_", _in_place(("index_copy_", lambda T, s: (1, T.tensor([3, 0]), s))), randn(3, 4),
         randn(3, 2)),
    Case("put_", _in_place(("put_", lambda T, s: (T.tensor([[0, 5], [-1, 5]]), s, True))), randn(3, 4),
         randn(2, 2)),
    Case("take", lambda T, x: x.take(T.tensor([[0, -1], [5, 5]])), randn(3, 4), dtypes=LOW),
    Case("diagonal_scatter", lambda T, x, s: x.diagonal_scatter(s, 1), randn(3, 4), randn(3)),
    Case("select_scatter", lambda T, x, s: T.select_scatter(x, s, 1, -1), randn(3, 4), randn(3)),
    Case("slice_scatter", lambda T, x, s: x.slice_scatter(s, 1, 0, None, 2), randn(3, 4), randn(3, 2)),
    Case("fill_diagonal_", _in_place(("fill_diagonal_", lambda T: (5.0,))), randn(3, 4), dtypes=LOW),
    Case("fill_diagonal_wrap", _in_place(("fill_diagonal_", lambda T: (2.0, True))), randn(7, 3)),
    Case("ravel", lambda T, x: x.t().ravel(), randn(3, 4)),
    Case("fliplr_flipud", lambda T, x: (x.fliplr(), x.flipud(), T.fliplr(x)), randn(3, 4)),
    Case("hsplit", lambda T, x: (x.hsplit(2), T.hsplit(x, [1, 3])), randn(3, 4)),
    Case("vsplit_dsplit", lambda T, x: (x.vsplit([1]), x.dsplit(2)), randn(2, 3, 4)),
    Case("rot90", lambda T, x: (x.rot90(), x.rot90(2), x.rot90(3), x.rot90(-1, [1, 0])), randn(3, 4), dtypes=LOW),
    Case("rot90_dims", lambda T, x: T.rot90(x, 1, (0, 2)), randn(2, 3, 4)),
    Case("unfold", lambda T, x: (x.unfold(1, 2, 1), x.unfold(0, 2, 2), x.unfold(-1, 4, 3)), randn(4, 5), dtypes=LOW),
    Case("sum_to_size", lambda T, x: (x.sum_to_size(3, 1), x.sum_to_size((1, 4)), x.sum_to_size(4)),
         randn(2, 3, 4)),
]


@pytest.mark.parametrize("case,dtype", params(CASES))
def test_matches_torch(case, dtype):
    check(case, dtype)


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


def test_every_implemented_name_has_a_parity_case():
    with open(__file__) as f:
        text = f.read()
    start = text.index("CASES = [")
    sources = text[start:text.index("\n]\n", start)]  # the source of the case table
    for other in ("test_tensor_more_parity.py", "test_typed_storage.py"):  # (the QR family, lu_solve, lstsq;
        with open(__file__.replace("test_attribute_audit.py", other)) as f:  # storage(): compared there)
            sources += f.read()
    missing = [n for n in list(audit.IMPLEMENTED) + list(audit.INPLACE) + list(audit.PROPERTIES)
               if f".{n}(" not in sources and f"T.{n}(" not in sources and f".{n}," not in sources
               and f".{n})" not in sources and f'"{n}"' not in sources
               and n not in ("is_contiguous", "real", "imag")]
    assert not missing, missing


@pytest.mark.parametrize("call", [
    lambda T: T.tensor(randn(3, 4, 2)).diag(),
    lambda T: T.tensor(randn(3)).kthvalue(4),
    lambda T: T.tensor(randn(3)).quantile(1.5),
    lambda T: T.tensor(ints(0, 3, 3)).quantile(0.5),
    lambda T: T.tensor(randn(3)).half().quantile(0.5),
    lambda T: T.tensor(np.array([-1, 2])).bincount(),
    lambda T: T.tensor(randn(3)).unfold(0, 4, 1),
    lambda T: T.tensor(randn(3, 4)).rot90(1, (0, 0)),
    lambda T: T.tensor(randn(3, 4)).inverse(),
    lambda T: T.tensor(randn(3, 4)).sum_to_size(2, 4),
    lambda T: T.tensor(randn(3, 4)).hsplit(3),
    lambda T: T.tensor(randn(3)).imag,
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as real:
        call(rt)
    with pytest.raises(type(real.value)):
        call(mt)
