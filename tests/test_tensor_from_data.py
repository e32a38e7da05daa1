"""torch.tensor() of lists that hold tensors or NumPy values, against real torch: each tensor in a list is one
number (a list of two-element tensors is an error, not a stack; `[tensor([1]), tensor([2])]` has shape (2,)),
and the dtype is torch's promotion of every element's own dtype (`[float16 tensor, 2]` is float16,
`[uint8 tensor, int8 tensor]` int16, `[np.float64(1.5)]` float64), not NumPy's. Each call gives torch's dtype,
shape and values, or an error where torch raises one."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


CALLS = {
    # a tensor in a list is one number, whatever its number of dimensions
    "one-element 1-d tensors": lambda T: T.tensor([T.tensor([1]), T.tensor([2])]),
    "one-element 2-d tensors": lambda T: T.tensor([T.tensor([[1.5]]), T.tensor([[2.5]])]),
    "0-d tensors": lambda T: T.tensor([T.tensor(1.5), T.tensor(2.5)]),
    "0-d tensors nested with ints": lambda T: T.tensor([[T.tensor(1), 2], [3, T.tensor(4)]]),
    "0-d int32 tensors nested": lambda T: T.tensor([[T.tensor(1, dtype=T.int32)], [T.tensor(2, dtype=T.int32)]]),
    # ... so a tensor of several elements (or none) is an error
    "two-element int tensors": lambda T: T.tensor([T.tensor([1, 2]), T.tensor([3, 4])]),
    "two-element float tensors": lambda T: T.tensor([T.tensor([1., 2.]), T.tensor([3., 4.])]),
    "one two-element tensor": lambda T: T.tensor([T.tensor([1, 2])]),
    "tuple of a two-element tensor": lambda T: T.tensor((T.tensor([1., 2.]),)),
    "as_tensor of two-element tensors": lambda T: T.as_tensor([T.tensor([1, 2]), T.tensor([3, 4])]),
    "empty tensor": lambda T: T.tensor([T.tensor([])]),
    "bool tensor of two": lambda T: T.tensor([T.tensor([True, False])]),
    # an integral or bool result reads a tensor as an index: a float tensor is refused
    "float tensor into int64": lambda T: T.tensor([T.tensor(1.7)], dtype=T.int64),
    "float tensor into bool": lambda T: T.tensor([T.tensor(1.7)], dtype=T.bool),
    "int tensor into float32": lambda T: T.tensor([T.tensor(3)], dtype=T.float32),
    "int tensor 300 into uint8": lambda T: T.tensor([T.tensor(300)], dtype=T.uint8),
    "float64 1e6 into float16": lambda T: T.tensor([T.tensor(1e6, dtype=T.float64)], dtype=T.float16),
    # the dtype: torch's promotion of the elements' own dtypes
    "bool tensor with int": lambda T: T.tensor([T.tensor(True), 2]),
    "int8 tensor with int": lambda T: T.tensor([T.tensor(1, dtype=T.int8), 2]),
    "float16 tensor with int": lambda T: T.tensor([T.tensor(1.5, dtype=T.float16), 2]),
    "float16 tensor with float": lambda T: T.tensor([T.tensor(1.5, dtype=T.float16), 2.5]),
    "float64 tensor with float": lambda T: T.tensor([T.tensor(1.5, dtype=T.float64), 2.5]),
    "bfloat16 tensor with int": lambda T: T.tensor([T.tensor(1.5, dtype=T.bfloat16), 2]),
    "bfloat16 with float16 tensors": lambda T: T.tensor([T.tensor(1., dtype=T.bfloat16),
                                                         T.tensor(1., dtype=T.float16)]),
    "uint8 with int8 tensors": lambda T: T.tensor([T.tensor(200, dtype=T.uint8), T.tensor(-1, dtype=T.int8)]),
    "uint8 tensor with True": lambda T: T.tensor([T.tensor(3, dtype=T.uint8), True]),
    "float32 tensor with 1j": lambda T: T.tensor([T.tensor(3.), 1j]),
    "float64 tensor with 1j": lambda T: T.tensor([T.tensor(3., dtype=T.float64), 1j]),
    # NumPy values keep their own dtype inside a list too
    "np.float64 in a list": lambda T: T.tensor([np.float64(1.5)]),
    "np.int8 in a list": lambda T: T.tensor([np.int8(1), np.int8(-3)]),
    "np.uint8 in a list": lambda T: T.tensor([np.uint8(1)]),
    "np.bool_ in a list": lambda T: T.tensor([np.bool_(True)]),
    "np.float16 with int": lambda T: T.tensor([np.float16(1.5), 2]),
    "np.float16 with np.float32": lambda T: T.tensor([np.float16(1), np.float32(2)]),
    "np.float32 with float": lambda T: T.tensor([np.float32(1), 2.5]),
    "np.float32 with int32 tensor": lambda T: T.tensor([np.float32(1.5), T.tensor(2, dtype=T.int32)]),
    "np.complex64 in a list": lambda T: T.tensor([np.complex64(1 + 2j)]),
    "np.int64 300 into uint8": lambda T: T.tensor([np.int64(300)], dtype=T.uint8),
    "int32 arrays in a list": lambda T: T.tensor([np.array([1, 2], dtype=np.int32), np.array([3, 4], np.int32)]),
    "float64 arrays in a list": lambda T: T.tensor([np.array([1., 2.]), np.array([3., 4.])]),
    "float16 array with floats": lambda T: T.tensor([np.array([1, 2], dtype=np.float16), [2.5, 1]]),
    # unchanged: plain Python numbers, and a tensor given alone
    "Python ints and floats": lambda T: T.tensor([[1, 2.5], [True, 4]]),
    "empty lists": lambda T: T.tensor([[], []]),
    "a tensor alone": lambda T: T.tensor(T.tensor([1, 2], dtype=T.int16)),
    "None in a list": lambda T: T.tensor([T.tensor(1), None]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_tensor_from_data_matches_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)


def test_a_list_of_rows_is_refused_with_torchs_message():
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        mt.tensor([mt.tensor([1, 2]), mt.tensor([3, 4])])
    with pytest.raises(ValueError, match="only one element tensors"):
        mt.tensor([mt.tensor([1., 2.]), mt.tensor([3., 4.])])


_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "complex64")
_NUMPY_TYPES = (np.bool_, np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64)

# one element of the data, described so that both libraries can build it: ("py", value), ("np", type index,
# value), or ("tensor", dtype, value, shape) with a shape of one element (or two, which must be refused)
_python = st.tuples(st.just("py"), st.sampled_from([True, False, 0, 3, -7, 250, 2.5, -0.75, 1e6, 1 + 2j]))
_numpy = st.tuples(st.just("np"), st.integers(0, len(_NUMPY_TYPES) - 1), st.sampled_from([0, 1, 3, 100]))
_tensor = st.tuples(st.just("tensor"), st.sampled_from(_DTYPES[:-1]), st.sampled_from([0, 1, 2, 5, 100]),
                    st.sampled_from([(), (1,), (1, 1), (2,)]))


def _element(T, spec):
    if spec[0] == "py":
        return spec[1]
    if spec[0] == "np":
        return _NUMPY_TYPES[spec[1]](spec[2])
    _, dtype, value, shape = spec
    return T.full(shape, value, dtype=getattr(T, dtype))


def _built(T, rows, dtype):
    data = [[_element(T, spec) for spec in row] for row in rows]
    try:
        value = T.tensor(data, dtype=None if dtype is None else getattr(T, dtype))
    except Exception:  # noqa: BLE001
        return ("error",)
    return ("value", str(value.dtype).replace("torch.", ""), tuple(value.shape), repr(value.tolist()))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(width=st.integers(1, 3), elements=st.lists(st.one_of(_python, _numpy, _tensor), min_size=6, max_size=6),
       rows=st.integers(1, 2), dtype=st.none() | st.sampled_from(_DTYPES))
def test_lists_of_tensors_numpy_values_and_numbers_match_torch(width, elements, rows, dtype):
    table = [elements[r * width:(r + 1) * width] for r in range(rows)]
    assert _built(mt, table, dtype) == _built(rt, table, dtype)


# Python numbers written one by one into the dtype, each by its own type: an int wraps into an unsigned type
# (-7 is 249 in uint8, also beside a float), a float must fit and is truncated, NaN and inf fit no integer
_NUMBERS = st.sampled_from([0, 1, -7, -129, -255, -256, 300, 2 ** 31, 2 ** 63, 2 ** 64, True, False, 1.5, -0.5,
                            -7.0, 255.9, -128.0, float("nan"), float("inf"), -0.0, 1e6])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numbers=st.lists(_NUMBERS, min_size=1, max_size=4), shape=st.sampled_from(["scalar", "list", "rows"]),
       dtype=st.none() | st.sampled_from(_DTYPES))
def test_python_numbers_into_each_dtype_match_torch(numbers, shape, dtype):
    data = {"scalar": numbers[0], "list": numbers, "rows": [[x] for x in numbers]}[shape]

    def built(T):
        return outcome(lambda T: T.tensor(data, dtype=None if dtype is None else getattr(T, dtype)), T)

    assert built(mt) == built(rt)
