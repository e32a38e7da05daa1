"""Integer semantics against real torch: Python numbers written into integer dtypes (range checks, wrapping of
negatives into unsigned types), Python ints compared with narrow integer tensors (cast to the tensor's dtype
first), exact wrapping integer powers, all/any of uint8, rounding functions of integers, complex fills. Each call
gives torch's dtype and values, or an error where torch raises one."""
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _set(t, index, value):
    t[index] = value
    return t


CALLS = {
    "tensor 1.7 int64": lambda T: T.tensor([1.7, -1.7], dtype=T.int64),
    "tensor 300 uint8": lambda T: T.tensor([300], dtype=T.uint8),
    "tensor 300 uint8 scalar": lambda T: T.tensor(300, dtype=T.uint8),
    "tensor -255 uint8": lambda T: T.tensor([-255, -1], dtype=T.uint8),
    "tensor -256 uint8": lambda T: T.tensor([-256], dtype=T.uint8),
    "tensor 128 int8": lambda T: T.tensor([128], dtype=T.int8),
    "tensor -128 int8": lambda T: T.tensor([-128, 127], dtype=T.int8),
    "tensor 2**31 int32": lambda T: T.tensor([2**31], dtype=T.int32),
    "tensor 1e10 int32": lambda T: T.tensor([1e10], dtype=T.int32),
    "tensor 2**63": lambda T: T.tensor([2**63]),
    "tensor 2**63 - 1": lambda T: T.tensor([2**63 - 1, -2**63]),
    "tensor 1e5 float16": lambda T: T.tensor([1e5], dtype=T.float16),
    "tensor 2 bool": lambda T: T.tensor([2, 0], dtype=T.bool),
    "full 300 uint8": lambda T: T.full((2,), 300, dtype=T.uint8),
    "full -200 uint8": lambda T: T.full((2,), -200, dtype=T.uint8),
    "full 1.7 int64": lambda T: T.full((2,), 1.7, dtype=T.int64),
    "full 1j": lambda T: T.full((2,), 1j),
    "full 2": lambda T: T.full((2,), 2),
    "full_like 300 uint8": lambda T: T.full_like(T.zeros(2, dtype=T.uint8), 300),
    "new_full 40000 int16": lambda T: T.zeros(1, dtype=T.int16).new_full((1,), 40000),
    "fill_ 300 uint8": lambda T: T.zeros(2, dtype=T.uint8).fill_(300),
    "fill_ -3 uint8": lambda T: T.zeros(2, dtype=T.uint8).fill_(-3),
    "fill_ 1.7 int64": lambda T: T.zeros(2, dtype=T.int64).fill_(1.7),
    "setitem 300 uint8": lambda T: _set(T.zeros(2, dtype=T.uint8), 0, 300),
    "setitem -1 uint8": lambda T: _set(T.zeros(2, dtype=T.uint8), 0, -1),
    "setitem 2**40 int32": lambda T: _set(T.zeros(2, dtype=T.int32), 1, 2**40),
    "setitem 1.7 int64": lambda T: _set(T.zeros(2, dtype=T.int64), 0, 1.7),
    "setitem slice 128 int8": lambda T: _set(T.zeros(3, dtype=T.int8), slice(0, 2), 128),
    "clamp uint8 max 300": lambda T: T.tensor([1, 2], dtype=T.uint8).clamp(max=300),
    "clamp int8 min -129": lambda T: T.tensor([1, 2], dtype=T.int8).clamp(min=-129),
    "clamp int64 max 2.5": lambda T: T.tensor([1, 5]).clamp(max=2.5),
    "int8 < 200": lambda T: T.tensor([1, -100], dtype=T.int8) < 200,
    "int8 == 257": lambda T: T.tensor([1, 2], dtype=T.int8) == 257,
    "uint8 == 257": lambda T: T.tensor([1, 2], dtype=T.uint8) == 257,
    "uint8 < -1": lambda T: T.tensor([1, 255], dtype=T.uint8) < -1,
    "uint8 >= -255": lambda T: T.tensor([1, 0], dtype=T.uint8) >= -255,
    "int32 < 2**40": lambda T: T.tensor([1, -1], dtype=T.int32) < 2**40,
    "200 > int8": lambda T: 200 > T.tensor([1, -100], dtype=T.int8),
    "torch.eq uint8 256": lambda T: T.eq(T.tensor([0, 1], dtype=T.uint8), 256),
    "int16 ne 70000": lambda T: T.tensor([4464, 0], dtype=T.int16).ne(70000),
    "uint8 < 1.5": lambda T: T.tensor([1, 2], dtype=T.uint8) < 1.5,
    "uint8 + 300": lambda T: T.tensor([1], dtype=T.uint8) + 300,
    "int ** -1": lambda T: T.tensor([2]) ** -1,
    "int pow tensor -1": lambda T: T.tensor([2, 1, -1, -1]).pow(T.tensor([-1, -3, -3, -2])),
    "int ** 40": lambda T: T.tensor([2, 3]) ** 40,
    "int ** 41": lambda T: T.tensor([3, -3]) ** 41,
    "uint8 ** 9": lambda T: T.tensor([2, 3], dtype=T.uint8) ** 9,
    "int8 ** 3": lambda T: T.tensor([7, -7], dtype=T.int8) ** 3,
    "2 ** int": lambda T: 2 ** T.tensor([3, 70]),
    "int ** 0": lambda T: T.tensor([0, 5]) ** 0,
    "0-d int ** 2": lambda T: T.tensor(3) ** 2,
    "0-d int8 pow 0-d": lambda T: T.tensor(3, dtype=T.int8).pow(T.tensor(5)),
    "int32 pow int64": lambda T: T.tensor([3], dtype=T.int32).pow(T.tensor([20])),
    "any uint8": lambda T: T.tensor([1, 0], dtype=T.uint8).any(),
    "all uint8 dim": lambda T: T.tensor([[1, 0], [2, 3]], dtype=T.uint8).all(1),
    "any uint8 keepdim": lambda T: T.tensor([[1, 0]], dtype=T.uint8).any(1, keepdim=True),
    "all uint8 empty": lambda T: T.zeros(0, dtype=T.uint8).all(),
    "any int8": lambda T: T.any(T.tensor([1, 0], dtype=T.int8)),
    "ceil int": lambda T: T.tensor([3, -3]).ceil(),
    "floor uint8": lambda T: T.tensor([3], dtype=T.uint8).floor(),
    "trunc int32": lambda T: T.tensor([3], dtype=T.int32).trunc(),
    "round int": lambda T: T.tensor([3]).round(),
    "ceil bool": lambda T: T.tensor([True]).ceil(),
    "floor bool": lambda T: T.tensor([True]).floor(),
}


def _outcome(T, name):
    try:
        value = CALLS[name](T)
    except Exception:  # noqa: BLE001  (torch's exception types differ by call; raising is what is compared)
        return ("error",)
    return ("value", str(value.dtype).replace("torch.", ""), tuple(value.shape), np.asarray(value.numpy()).tolist())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_integer_semantics_match_torch(name):
    assert _outcome(mt, name) == _outcome(rt, name)


_DTYPES = ("int8", "uint8", "int16", "int32", "int64")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtype=st.sampled_from(_DTYPES), value=st.integers(-2**40, 2**40) | st.integers(-300, 300),
       op=st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]), reflected=st.booleans(), seed=st.integers(0, 999))
def test_comparison_with_any_python_int(dtype, value, op, reflected, seed):
    """A Python int beside an integer tensor is cast to the tensor's dtype (wrapping) before comparing."""
    info = np.iinfo(dtype)
    values = np.random.default_rng(seed).integers(info.min, int(info.max) + 1, 6).astype(dtype)
    results = []
    for T in (rt, mt):
        x = T.from_numpy(values.copy())
        # (reflected: Python's `value < x` asks the tensor, as x > value)
        out = getattr(operator, op)(value, x) if reflected else getattr(T, op)(x, value)
        results.append(np.asarray(out.numpy()).tolist())
    assert results[1] == results[0]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtype=st.sampled_from(_DTYPES), value=st.integers(-2**33, 2**33) | st.floats(-1e3, 1e3, allow_nan=False),
       how=st.sampled_from(["tensor", "full", "fill_"]))
def test_python_number_written_into_integer_dtype(dtype, value, how):
    """tensor(), full() and fill_() take a Python number into an integer dtype as torch does: truncated, negatives
    wrapped into unsigned types, an error past the dtype's range."""
    outcomes = []
    for T in (rt, mt):
        d = getattr(T, dtype)
        try:
            if how == "tensor":
                out = T.tensor([value], dtype=d)
            elif how == "full":
                out = T.full((1,), value, dtype=d)
            else:
                out = T.zeros(1, dtype=d).fill_(value)
            outcomes.append(np.asarray(out.numpy()).tolist())
        except (RuntimeError, ValueError, OverflowError):
            outcomes.append("error")
    assert outcomes[1] == outcomes[0], (dtype, value, how)


_BIG = [5847555705260852960 // 7, -2795152987771172518, 9007199254740993, 2**62 + 1, -2**63 + 5, 123456789012345678]
EXACT_CALLS = {
    # MindSpore's CPU sum of int64 goes through float64: it saturated at -2^63 and dropped the digits past 2^53
    "int64 sum overflow": lambda T: T.tensor(_BIG).sum(),
    "int64 sum dim": lambda T: T.tensor([_BIG[:3], _BIG[3:]]).sum(1),
    "int64 sum keepdim dims": lambda T: T.tensor([_BIG[:3], _BIG[3:]]).sum((0, 1), keepdim=True),
    "int64 nansum": lambda T: T.nansum(T.tensor(_BIG)),
    "int64 trace": lambda T: T.tensor([_BIG[:2], _BIG[2:4]]).trace(),
    "int8 sum dim is int64": lambda T: T.tensor([[100, 100], [-128, 127]], dtype=T.int8).sum(1),
    "int32 sum dtype int16": lambda T: T.tensor([30000, 30000], dtype=T.int32).sum(dtype=T.int16),
    "sum dim out of range": lambda T: T.tensor([1, 2]).sum(3),
    # int64 remainder went through floating point: x % -7 gave numbers past -7
    "int64 % -7": lambda T: T.tensor(_BIG) % -7,
    "int64 fmod 1000": lambda T: T.fmod(T.tensor(_BIG), 1000),
    "int64 // 3": lambda T: T.tensor(_BIG) // 3,
    "int64 div trunc": lambda T: T.div(T.tensor(_BIG), -3, rounding_mode="trunc"),
    "int8 div trunc": lambda T: T.div(T.tensor([-7, 7, -128], dtype=T.int8), T.tensor([2, -2, -1], dtype=T.int8),
                                      rounding_mode="trunc"),
    "int8 % int8": lambda T: T.tensor([-7, 7, -128], dtype=T.int8) % T.tensor([3, -3, 5], dtype=T.int8),
    "uint8 // uint8": lambda T: T.tensor([250, 7], dtype=T.uint8) // T.tensor([3, 2], dtype=T.uint8),
    # torch keeps an integer dot's dtype, wrapping
    "int8 dot": lambda T: T.dot(T.tensor([100, 100], dtype=T.int8), T.tensor([3, 1], dtype=T.int8)),
    "int64 dot": lambda T: T.dot(T.tensor(_BIG[:3]), T.tensor([3, -1, 2])),
    # torch's lcm: |a / gcd * b| in C's int (narrow types) or the operands' type, wrapping
    "int8 lcm": lambda T: T.lcm(T.tensor([100, -90, 7], dtype=T.int8), T.tensor([3, 77, 11], dtype=T.int8)),
    "int32 lcm": lambda T: T.lcm(T.tensor([1900000604, 2**30 + 3], dtype=T.int32),
                                 T.tensor([3, 7], dtype=T.int32)),
    # MindSpore's Sign has no kernel for these
    "int8 sign": lambda T: T.tensor([-5, 0, 7], dtype=T.int8).sign(),
    "uint8 sign": lambda T: T.tensor([0, 7], dtype=T.uint8).sign(),
    "int16 sign": lambda T: T.sign(T.tensor([-5, 0, 7], dtype=T.int16)),
}


def _exact_outcome(T, name):
    try:
        value = EXACT_CALLS[name](T)
    except Exception:  # noqa: BLE001  (raising is what is compared)
        return ("error",)
    return ("value", str(value.dtype).replace("torch.", ""), tuple(value.shape), repr(value.tolist()))


@pytest.mark.parametrize("name", sorted(EXACT_CALLS))
def test_integer_results_are_exact_as_torch_s(name):
    assert _exact_outcome(mt, name) == _exact_outcome(rt, name)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtype=st.sampled_from(_DTYPES), seed=st.integers(0, 9999),
       op=st.sampled_from(["sum", "cumsum", "remainder", "fmod", "floor_divide", "trunc", "dot", "lcm"]))
def test_integer_ops_over_the_whole_range(dtype, seed, op):
    """Values drawn over the dtype's whole range: results wrap exactly as torch's."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    a = rng.integers(info.min, int(info.max) + 1, 16).astype(dtype)
    b = rng.integers(info.min, int(info.max) + 1, 16).astype(dtype)
    b[b == 0] = 1
    calls = {"sum": lambda T, x, y: x.sum(), "cumsum": lambda T, x, y: x.cumsum(0),
             "remainder": lambda T, x, y: x % y, "fmod": lambda T, x, y: T.fmod(x, y),
             "floor_divide": lambda T, x, y: x // y, "trunc": lambda T, x, y: T.div(x, y, rounding_mode="trunc"),
             "dot": lambda T, x, y: T.dot(x, y), "lcm": lambda T, x, y: T.lcm(x, y)}
    results = []
    for T in (rt, mt):
        out = calls[op](T, T.from_numpy(a.copy()), T.from_numpy(b.copy()))
        results.append((str(out.dtype).replace("torch.", ""), out.tolist()))
    assert results[1] == results[0]
