"""Integer and bool tensors given to ops that MindSpore's kernels serve only for floats, against real torch:
float-valued functions (sin, exp, log, sigmoid, erfinv, ...) compute them in the default float dtype; the float
tests (isnan, isinf, isfinite, isposinf, isneginf) answer without a kernel; activations without an integer kernel
(gelu, silu, elu, softplus, hardshrink, ...) raise as torch's do; round keeps integers; the one-tensor form of
repeat_interleave counts; dequantize gives float32. Also logit with eps above 0.5 and hardshrink of NaN."""
import math

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "bool")
FLOAT_VALUED = ("exp", "expm1", "log", "log2", "log10", "log1p", "rsqrt", "sin", "cos", "tan", "asin", "acos",
                "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "erfinv")
FLOAT_TESTS = ("isnan", "isinf", "isfinite", "isposinf", "isneginf")
FLOAT_ONLY_ACTIVATIONS = ("gelu", "silu", "elu", "selu", "celu", "softplus", "logsigmoid", "mish", "hardswish",
                          "hardsigmoid", "leaky_relu", "softshrink", "hardshrink")


def _integers(T, dtype):
    values = [True, False, True, True] if dtype == "bool" else [0, 1, 3, 100]
    return T.tensor(values, dtype=getattr(T, dtype))


def _described(value):
    return str(value.dtype).replace("torch.", ""), tuple(value.shape), value.tolist()


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", FLOAT_VALUED)
def test_float_valued_function_of_integers_is_computed_in_float(name, dtype):
    ours = _described(getattr(mt, name)(_integers(mt, dtype)))
    theirs = _described(getattr(rt, name)(_integers(rt, dtype)))
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6, atol=1e-7)
    method = _described(getattr(_integers(mt, dtype), name)())
    assert method[:2] == ours[:2]
    np.testing.assert_array_equal(method[2], ours[2])


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", FLOAT_TESTS)
def test_float_test_of_integers_answers(name, dtype):
    assert _described(getattr(mt, name)(_integers(mt, dtype))) == _described(getattr(rt, name)(_integers(rt, dtype)))


@pytest.mark.parametrize("dtype", ("uint8", "int32", "int64", "bool"))
@pytest.mark.parametrize("name", FLOAT_ONLY_ACTIVATIONS)
def test_activation_without_integer_kernel_raises(name, dtype):
    with pytest.raises(NotImplementedError):
        getattr(rt.nn.functional, name)(_integers(rt, dtype))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        getattr(mt.nn.functional, name)(_integers(mt, dtype))


def _logit_eps(T, eps):
    x = T.tensor([0.3, 0.5, 0.9, 0.45, 0.55, 0.6], requires_grad=True)
    out = T.logit(x, eps=eps)
    out.sum().backward()
    return out.tolist(), x.grad.tolist()


CALLS = {
    "round uint8": lambda T: T.round(T.tensor([1, 5, 255], dtype=T.uint8)),
    "round int64": lambda T: T.tensor([-3, 7]).round(),
    "round int64 decimals": lambda T: T.round(T.tensor([15]), decimals=-1),
    "round bool": lambda T: T.round(T.tensor([True])),
    "repeat_interleave counts": lambda T: T.repeat_interleave(T.tensor([1, 0, 3])),
    "repeat_interleave int32 counts": lambda T: T.repeat_interleave(T.tensor([2, 1], dtype=T.int32)),
    "repeat_interleave no counts": lambda T: T.repeat_interleave(T.tensor([], dtype=T.int64)),
    "repeat_interleave float counts": lambda T: T.repeat_interleave(T.tensor([1.0, 2.0])),
    "repeat_interleave 2-d counts": lambda T: T.repeat_interleave(T.tensor([[1, 2]])),
    "repeat_interleave negative count": lambda T: T.repeat_interleave(T.tensor([-1, 2])),
    "repeat_interleave output_size": lambda T: T.repeat_interleave(T.tensor([1, 2]), output_size=3),
    "repeat_interleave wrong output_size": lambda T: T.repeat_interleave(T.tensor([1, 2]), output_size=4),
    "Tensor.repeat_interleave without repeats": lambda T: T.tensor([1, 2]).repeat_interleave(),
    "Tensor.repeat_interleave": lambda T: T.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0),
    "dequantize float64": lambda T: T.dequantize(T.tensor([1.5], dtype=T.float64)),
    "dequantize int64": lambda T: T.tensor([1, 2]).dequantize(),
    "dequantize float32": lambda T: T.tensor([0.25]).dequantize(),
    "hardshrink NaN": lambda T: T.hardshrink(T.tensor([math.nan, 0.3, -0.7, 2.0, 0.5, -0.5]), 0.5),
    "Tensor.hardshrink NaN": lambda T: T.tensor([math.nan, -0.4, 0.4]).hardshrink(0.4),
    "F.hardshrink NaN": lambda T: T.nn.functional.hardshrink(T.tensor([math.nan, 1.0])),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_integer_edge_matches_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)


@pytest.mark.parametrize("eps", [0.6, 0.5, 0.45, 0.2, None])
def test_logit_bounds_values_as_torch(eps):
    """Below eps the value is eps's logit, above 1 - eps that of 1 - eps, in that order (so with eps > 0.5 a
    value between the two bounds gets eps's); the gradient is 0 outside [eps, 1 - eps]."""
    ours, theirs = _logit_eps(mt, eps), _logit_eps(rt, eps)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-7, atol=0)
