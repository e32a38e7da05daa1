"""torch's legacy tensor-type classes (torch.FloatTensor, torch.LongTensor, ...) against real PyTorch:
isinstance checks, construction, Tensor.type() names and Tensor.type(<class or name>) conversions."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

CLASSES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor", "BoolTensor"]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64"]


@pytest.mark.parametrize("name", CLASSES)
def test_class_attributes_match_torch(name):
    ours, theirs = getattr(mt, name), getattr(rt, name)
    assert repr(ours) == repr(theirs)
    assert ours.__module__ == theirs.__module__ == "torch"
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.is_cuda is theirs.is_cuda is False


@pytest.mark.parametrize("dtype", DTYPES)
def test_isinstance_and_type_names_match_torch(dtype):
    ours, theirs = mt.zeros(2, dtype=getattr(mt, dtype)), rt.zeros(2, dtype=getattr(rt, dtype))
    assert ours.type() == theirs.type()
    for name in CLASSES:
        assert isinstance(ours, getattr(mt, name)) == isinstance(theirs, getattr(rt, name)), name
    assert mt.typename(ours) == rt.typename(theirs)


@pytest.mark.parametrize("target", CLASSES)
def test_type_converts_to_a_class_or_its_name_like_torch(target):
    values = np.array([1.7, -2.0, 0.0], dtype=np.float32)
    for how in (lambda T: getattr(T, target), lambda T: "torch." + target):
        ours = mt.tensor(values).type(how(mt))
        theirs = rt.tensor(values).type(how(rt))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


def test_type_to_the_same_type_returns_the_tensor_itself_like_torch():
    for T in (mt, rt):
        x = T.ones(2)
        assert x.type(T.FloatTensor) is x and x.type("torch.FloatTensor") is x and x.type(T.float32) is x
        assert x.type(T.float64).dtype == T.float64


@pytest.mark.parametrize("bad", ["torch.Foo", int])
def test_type_refuses_unknown_types_like_torch(bad):
    messages = []
    for T in (mt, rt):
        with pytest.raises(ValueError) as info:
            T.ones(2).type(bad)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_type_conversion_is_differentiable():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x.type(mt.DoubleTensor) * mt.tensor([3.0, 5.0], dtype=mt.float64)).sum().backward()
    assert x.grad.tolist() == [3.0, 5.0]


CONSTRUCTIONS = [
    ("FloatTensor", lambda T: ([1, 2],)),
    ("LongTensor", lambda T: ([1.7, -2.2],)),
    ("FloatTensor", lambda T: ([[1, 2], [3, 4]],)),
    ("FloatTensor", lambda T: ((),)),
    ("DoubleTensor", lambda T: (T.ones(2, dtype=T.float64),)),
    ("BoolTensor", lambda T: ([1, 0, 2],)),
]


@pytest.mark.parametrize("name,args", CONSTRUCTIONS)
def test_construction_from_data_matches_torch(name, args):
    ours, theirs = getattr(mt, name)(*args(mt)), getattr(rt, name)(*args(rt))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("args", [lambda T: (2, 3), lambda T: (T.Size([4]),), lambda T: ()])
def test_construction_by_size_matches_torch(args):
    ours, theirs = mt.FloatTensor(*args(mt)), rt.FloatTensor(*args(rt))
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype == mt.float32


def test_construction_from_a_tensor_of_another_dtype_is_refused_like_torch():
    for T in (mt, rt):
        with pytest.raises(TypeError):
            T.FloatTensor(T.ones(2, dtype=T.int64))


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.BFloat16Tensor", "torch.LongTensor",
     "torch.IntTensor", "torch.ShortTensor", "torch.CharTensor", "torch.ByteTensor", "torch.BoolTensor"):
        ["test_class_attributes_match_torch", "test_construction_from_data_matches_torch"],
    "torch.typename": "test_isinstance_and_type_names_match_torch",
}
