"""`repr(tensor)` is real torch's to the character: tensors of every printable dtype, shape and value range
drawn by hypothesis, under drawn print options (precision, sci_mode, threshold, edgeitems, line width),
compared with real torch's repr of the same elements; and the suffixes (dtype, size, device, requires_grad,
grad_fn) and prefixes (Parameter) around them."""
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

_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool", "complex64"]
_SHAPES = [(), (0,), (2, 0), (1,), (5,), (3, 4), (2, 3, 4), (3, 1, 7), (40,), (12, 30), (1200,), (4, 5, 60)]
_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-5, -3e-5, 1e-9, 123456789.0, 1e9, -1e12, 3.25, 1000.0, 1001.5,
            float("nan"), float("inf"), float("-inf")]
_KIND = st.sampled_from(["integral", "unit", "wide", "special", "tiny"])


def _values(draw, size):
    """`size` float64 values of one drawn character: integral, within +-10, over many magnitudes, special
    values (nan, inf, -0.0, 1e9 ...), or tiny (which decide between fixed and scientific notation)."""
    kind = draw(_KIND)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if kind == "integral":
        return rng.integers(-300, 300, size).astype(np.float64)
    if kind == "unit":
        return rng.uniform(-10, 10, size)
    if kind == "wide":
        return rng.standard_normal(size) * 10.0 ** rng.integers(-6, 10, size)
    if kind == "tiny":
        return rng.uniform(-1, 1, size) * 1e-4
    return rng.choice(_SPECIAL, size)


@st.composite
def _printed(draw):
    dtype = draw(st.sampled_from(_DTYPES))
    shape = draw(st.sampled_from(_SHAPES))
    values = _values(draw, int(np.prod(shape, dtype=np.int64)))
    if dtype == "complex64":
        complex_values = np.empty(values.size, np.complex128)
        complex_values.real, complex_values.imag = values, _values(draw, values.size)
        values = complex_values
    elif dtype.startswith(("int", "uint")) or dtype == "bool":
        values = np.nan_to_num(values, nan=0.0, posinf=7.0, neginf=-7.0)
        values = np.clip(values, -100, 100) if dtype in ("int8", "uint8") else np.clip(values, -2e9, 2e9)
        values = np.abs(values) if dtype == "uint8" else values
        values = values != 0 if dtype == "bool" else values.astype(np.int64)
    options = dict(precision=draw(st.sampled_from([4, 4, 2, 0, 6])),
                   sci_mode=draw(st.sampled_from([None, None, True, False])),
                   threshold=draw(st.sampled_from([1000, 1000, 10, 50])),
                   edgeitems=draw(st.sampled_from([3, 3, 1, 2])),
                   linewidth=draw(st.sampled_from([80, 80, 40, 120])))
    return dtype, values.reshape(shape), options


def _repr(T, dtype, values, options):
    source = T.tensor(values.tolist()) if values.ndim else T.tensor(values.item())
    t = source.to(getattr(T, dtype))
    with T._tensor_str.printoptions(**options):
        return repr(t)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_printed())
def test_repr_of_drawn_tensors_under_drawn_print_options_is_torchs(case):
    dtype, values, options = case
    assert _repr(mt, dtype, values, options) == _repr(rt, dtype, values, options)


_SUFFIXED = [
    "T.ones(2, requires_grad=True)",
    "T.nn.Parameter(T.tensor([0.5, 2.0]))",
    "T.zeros(0)", "T.zeros(2, 0)", "T.zeros(0, dtype=T.int64)", "T.zeros(3, 0, dtype=T.bool)",
    "T.zeros(0, dtype=T.float64)", "T.tensor([], dtype=T.complex64)",
    "T.empty(2, 3, device='meta')", "T.empty(4, device='meta', dtype=T.int32)",
    "T.tensor(7)", "T.tensor(-0.0)", "T.tensor(float('nan'))", "T.tensor(1e-7)", "T.tensor(True)",
    "T.tensor([1.5, 2.0], dtype=T.float64)", "T.tensor([1, 2], dtype=T.int16)",
]


@pytest.mark.parametrize("expression", _SUFFIXED)
def test_repr_suffixes_and_prefixes_are_torchs(expression):
    assert repr(eval(expression, {"T": mt})) == repr(eval(expression, {"T": rt}))


@pytest.mark.parametrize("expression", ["T.tensor([1.5, 2.0])", "T.tensor([1.5, 2.0], dtype=T.float32)",
                                        "T.tensor([1+2j])", "T.zeros(0)", "T.zeros(0, dtype=T.float32)"])
def test_repr_names_the_dtype_against_the_default_dtype(expression):
    for T in (mt, rt):
        T.set_default_dtype(T.float64)
    try:
        assert repr(eval(expression, {"T": mt})) == repr(eval(expression, {"T": rt}))
    finally:
        for T in (mt, rt):
            T.set_default_dtype(T.float32)


@pytest.mark.parametrize("op", ["exp", "log", "tanh", "sigmoid", "sin", "sqrt", "abs", "neg", "sum"])
def test_repr_of_a_result_with_a_grad_fn_prints(op):
    # (the names inside grad_fn=<...> are the shim's autograd nodes, not torch's; the node's name() is a method)
    w = mt.full((2, 3), 0.5, requires_grad=True)
    y = getattr(w, op)()
    assert isinstance(y.grad_fn.name(), str)
    text = repr(y)
    assert text.startswith("tensor(") and ", grad_fn=<" in text
    assert text.split(", grad_fn=")[0] == repr(getattr(rt.full((2, 3), 0.5, requires_grad=True), op)()).split(
        ", grad_fn=")[0]


@pytest.mark.parametrize("expression", [
    "x.max(0)", "x.min(1)", "x.sort(1)", "x.topk(2)", "x.median(0)", "x.nanmedian(1)", "x.mode(0)", "x.kthvalue(1, 0)",
    "x.aminmax()", "x.cummax(0)", "x.cummin(1)", "T.frexp(x)", "T.slogdet(x[:2, :2])", "T.linalg.slogdet(x[:2, :2])",
    "T.histogram(x, 3)", "T.linalg.qr(x)", "T.linalg.inv_ex(x[:2, :2])"])
def test_reprs_of_named_results_are_torchs(expression):
    reprs, types = [], []
    for T in (mt, rt):
        result = eval(expression, {"T": T, "x": T.tensor([[1.5, -2.0, 3.0], [0.5, 2.0, -1.0]])})
        reprs.append(repr(result))
        types.append(type(result))
    assert reprs[0] == reprs[1]
    assert types[0].__name__ == types[1].__name__
    assert getattr(mt.return_types, types[0].__name__) is types[0]
