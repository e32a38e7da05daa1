"""`torch.Tensor(...)` as torch's legacy constructor against real torch (generated argument lists: sizes, a
Size, nested sequences of numbers, arrays, tensors, scalars), the default dtype followed; MindSpore's own reading
kept for code that did not import torch; and the parameter-class call accelerate makes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from shim_runner import run_shim_json

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

API_CENSUS = {"torch.Tensor": "test_constructor_matches_torch"}

numbers = st.one_of(st.integers(-3, 3), st.floats(-4, 4, width=32), st.booleans())
rows = st.integers(1, 3).flatmap(lambda n: st.lists(st.lists(numbers, min_size=n, max_size=n), max_size=3))
data = st.one_of(st.lists(numbers, max_size=4), rows, st.lists(numbers, max_size=4).map(tuple))


@st.composite
def arguments(draw):
    kind = draw(st.sampled_from(["none", "sizes", "size", "data", "array", "tensor", "scalar"]))
    if kind == "none":
        return "none", ()
    if kind == "sizes":
        return kind, tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    if kind == "size":
        return kind, tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    if kind == "scalar":
        return kind, draw(st.one_of(st.floats(-2, 2), st.booleans()))
    values = draw(data)
    if kind == "data":
        return kind, values
    array = np.array(values, dtype=draw(st.sampled_from(["float64", "int64", "float32", "bool"])))
    return kind, array


def _build(T, kind, value):
    if kind == "none":
        return T.Tensor()
    if kind == "sizes":
        return T.Tensor(*value)
    if kind == "size":
        return T.Tensor(T.Size(value))
    if kind == "tensor":
        return T.Tensor(T.tensor(value))
    return T.Tensor(value)


def _answer(T, kind, value, default):
    T.set_default_dtype(default)
    try:
        out = _build(T, kind, value)
    except (TypeError, ValueError) as exc:
        return ("raised", type(exc).__name__)
    finally:
        T.set_default_dtype(T.float32)
    values = out.numpy().tolist() if kind in ("data", "array", "tensor") else None
    return (str(out.dtype), tuple(out.shape), values)


@settings(max_examples=300, deadline=None)
@given(arguments(), st.sampled_from(["float32", "float64"]))
def test_constructor_matches_torch(argument, default):
    kind, value = argument
    ours = _answer(mt, kind, value, getattr(mt, default))
    theirs = _answer(rt, kind, value, getattr(rt, default))
    assert ours == theirs, (kind, value)


def test_a_tensor_argument_gives_an_alias():
    x = mt.ones(3)
    alias = mt.Tensor(x)
    assert alias is not x and alias.data_ptr() == x.data_ptr()
    alias[0] = 5
    assert x[0].item() == 5


def test_code_that_did_not_import_torch_keeps_mindspore_reading():
    import mindspore

    namespace = {"__name__": "a_mindspore_script", "Tensor": mindspore.Tensor}
    exec("scalar = Tensor(3)\nints = Tensor([1, 2])", namespace)
    assert namespace["scalar"].shape == () and namespace["scalar"].item() == 3
    assert namespace["ints"].dtype == mindspore.int64


def test_import_inside_the_calling_function_gets_torch_reading():
    namespace = {"__name__": "a_torch_script"}
    exec("def build():\n    import mindnlp_shim.torch as torch\n    return torch.Tensor(3)", namespace)
    assert tuple(namespace["build"]().shape) == (3,)


def test_requires_grad_keyword_builds_a_parameter_and_other_keywords_raise():
    weight = mt.nn.Linear(2, 3).weight
    rebuilt = type(weight)(mt.zeros(3, 2), requires_grad=False)
    assert isinstance(rebuilt, mt.nn.Parameter) and not rebuilt.requires_grad
    with pytest.raises(TypeError, match="invalid keyword argument"):
        mt.Tensor([1.0], pin_memory=True)
    # peft's empty-weight init: `param_cls(param.to(device), **param.__dict__)` with requires_grad added
    weight[0]  # (a view: the parameter's __dict__ now holds more of the shim's marks)
    marks = dict(weight.__dict__, requires_grad=True)
    again = type(weight)(weight.detach(), **marks)
    assert isinstance(again, mt.nn.Parameter) and again.requires_grad
    with pytest.raises(TypeError, match="'scale'"):
        type(weight)(weight.detach(), requires_grad=True, scale=2)


def test_accelerate_set_module_tensor_to_device_under_the_shim():
    # accelerate rebuilds the parameter with `type(param)(value, requires_grad=...)`; the module keeps a
    # parameter holding the new values, its requires_grad kept
    out = run_shim_json(["-c", """
import json
import mindnlp, torch
from accelerate.utils import set_module_tensor_to_device
layer = torch.nn.Linear(2, 3)
layer.weight.requires_grad_(False)
set_module_tensor_to_device(layer, "weight", "cpu", value=torch.full((3, 2), 0.5))
set_module_tensor_to_device(layer, "bias", "cpu", value=torch.arange(3.0))
print(json.dumps([isinstance(layer.weight, torch.nn.Parameter), layer.weight.requires_grad,
                  layer.weight.tolist(), layer.bias.requires_grad, layer.bias.tolist()]))
"""])
    assert out == [True, False, [[0.5, 0.5]] * 3, True, [0.0, 1.0, 2.0]]
