"""torch's type promotion, generated: every binary op x dtype pair x operand form (dimensioned tensor, 0-d tensor,
Python scalar) against real torch's result dtype and values; in-place ops' acceptance of the result dtype; and
torch.result_type / promote_types / can_cast."""
import itertools
import warnings

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, 2, 2.5]
# op name -> operand dtypes it takes (torch refuses floats in bitwise ops, bools in sub)
OPS = {
    "add": DTYPES, "sub": DTYPES[1:], "mul": DTYPES, "div": DTYPES, "remainder": DTYPES[1:],
    "floor_divide": DTYPES[1:], "fmod": DTYPES[1:], "pow": DTYPES[1:], "maximum": DTYPES, "minimum": DTYPES,
    "atan2": DTYPES, "eq": DTYPES, "lt": DTYPES, "ne": DTYPES, "bitwise_and": DTYPES[:6],
    "bitwise_or": DTYPES[:6], "logical_and": DTYPES, "hypot": DTYPES[7:],
}
SCALAR_OPS = {"maximum", "minimum", "atan2", "hypot", "logical_and"}  # torch takes tensors only for these


def _array(dtype, zero_dim):
    values = np.array([1, 2, 3, 1], dtype=np.float64) if not zero_dim else np.array(2.0)
    return values.astype(dtype)


def _tensor(T, dtype, zero_dim):
    return T.from_numpy(np.ascontiguousarray(_array(dtype, zero_dim))) if not zero_dim else \
        T.tensor(_array(dtype, True).item(), dtype=getattr(T, dtype))


def _result(T, op, a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = getattr(T, op)(a, b)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__
    return out


def _compare(op, make_a, make_b):
    """'' when the shim matches real torch (both raise, or equal dtype and values), else what differs."""
    want = _result(rt, op, make_a(rt), make_b(rt))
    got = _result(mt, op, make_a(mt), make_b(mt))
    if isinstance(want, str):
        return "" if isinstance(got, str) else f"torch raises {want}, shim gives {got.dtype}"
    if isinstance(got, str):
        return f"torch gives {want.dtype}, shim raises {got}"
    if str(want.dtype).split(".")[-1] != str(got.dtype).split(".")[-1].replace("bool_", "bool"):
        return f"dtype {got.dtype} != torch {want.dtype}"
    w, g = want.numpy(), got.numpy()
    if w.dtype.kind == "f":
        ok = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=2e-3, atol=1e-3, equal_nan=True)
    else:
        ok = np.array_equal(g, w)
    return "" if ok else f"values {g} != torch {w}"


FORMS = ["dim-dim", "dim-0d", "0d-dim", "0d-0d"]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_tensor_operands(op, form):
    zero_a, zero_b = form.startswith("0d"), form.endswith("0d")
    bad = []
    for da, db in itertools.product(OPS[op], repeat=2):
        msg = _compare(op, lambda T: _tensor(T, da, zero_a), lambda T: _tensor(T, db, zero_b))
        if msg:
            bad.append(f"{op}({da}{'[0d]' * zero_a}, {db}{'[0d]' * zero_b}): {msg}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", sorted(set(OPS) - SCALAR_OPS))
def test_python_scalar_operands(op):
    bad = []
    for dt, s in itertools.product(OPS[op], SCALARS):
        if op in ("sub",) and s is True:
            continue
        for zero_dim in (False, True):
            msg = _compare(op, lambda T: _tensor(T, dt, zero_dim), lambda T: s)
            if msg:
                bad.append(f"{op}({dt}{'[0d]' * zero_dim}, {s!r}): {msg}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                                "__truediv__", "__rtruediv__", "__floordiv__", "__pow__", "__rpow__"])
def test_operators_with_scalars(op):
    bad = []
    for dt, s in itertools.product(DTYPES[1:], SCALARS[1:]):
        want = getattr(_tensor(rt, dt, False), op)(s)
        got = getattr(_tensor(mt, dt, False), op)(s)
        if str(want.dtype).split(".")[-1] != str(got.dtype).split(".")[-1]:
            bad.append(f"{dt}.{op}({s!r}): {got.dtype} != torch {want.dtype}")
        elif not np.allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=2e-3):
            bad.append(f"{dt}.{op}({s!r}): {got.numpy()} != torch {want.numpy()}")
    assert not bad, "\n".join(bad)


def test_measured_examples():
    x = mt.ones(3)
    assert (x + mt.tensor(0.1, dtype=mt.float64)).dtype == mt.float32
    assert (mt.ones(3, dtype=mt.int32) + mt.tensor(1, dtype=mt.int64)).dtype == mt.int32
    assert (mt.ones(3, dtype=mt.uint8) + mt.ones(3, dtype=mt.int8)).dtype == mt.int16
    assert (mt.ones(3, dtype=mt.int64) / mt.ones(3, dtype=mt.int64)).dtype == mt.float32


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "pow_", "remainder_", "maximum_"])
def test_inplace_result_dtypes(op):
    bad = []
    for da, db in itertools.product(DTYPES[1:], repeat=2):
        for zero_b in (False, True):
            outcomes = []
            for T in (rt, mt):
                a, b = _tensor(T, da, False), _tensor(T, db, zero_b)
                if not hasattr(a, op):
                    outcomes.append("missing")
                    continue
                try:
                    r = getattr(a, op)(b)
                    outcomes.append((str(r.dtype).split(".")[-1], r is a, np.round(a.numpy().astype(float), 2)
                                     .tolist()))
                except Exception:  # noqa: BLE001
                    outcomes.append("raises")
            if outcomes[0] != "missing" and outcomes[0] != outcomes[1]:
                bad.append(f"{da}.{op}({db}{'[0d]' * zero_b}): torch {outcomes[0]}, shim {outcomes[1]}")
    assert not bad, "\n".join(bad)


def test_half_receiver_accepts_float_result():
    x = mt.ones(3, dtype=mt.float16)
    assert x.add_(mt.ones(3)) is x and x.dtype == mt.float16 and x.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError):
        mt.ones(3, dtype=mt.int64).add_(mt.ones(3))


def test_result_type_promote_types_can_cast():
    names = DTYPES + ["bfloat16", "complex64", "complex128"]
    for a, b in itertools.product(names, repeat=2):
        ta, tb = getattr(rt, a), getattr(rt, b)
        ma, mb = getattr(mt, a), getattr(mt, b)
        assert str(mt.promote_types(ma, mb)).split(".")[-1] == str(rt.promote_types(ta, tb)).split(".")[-1], (a, b)
        assert mt.can_cast(ma, mb) == rt.can_cast(ta, tb), (a, b)
    for da, db in itertools.product(DTYPES, repeat=2):
        for za, zb in itertools.product((False, True), repeat=2):
            want = rt.result_type(_tensor(rt, da, za), _tensor(rt, db, zb))
            got = mt.result_type(_tensor(mt, da, za), _tensor(mt, db, zb))
            assert str(got).split(".")[-1] == str(want).split(".")[-1], (da, za, db, zb)
        for s in SCALARS:
            want = rt.result_type(_tensor(rt, da, False), s)
            assert str(mt.result_type(_tensor(mt, da, False), s)).split(".")[-1] == str(want).split(".")[-1]
