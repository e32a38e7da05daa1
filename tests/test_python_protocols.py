"""Python's own protocols on tensors, against real torch: int/float/bool/index/complex of 0-d tensors, math.floor
and friends, divmod, formatting, iteration, `reversed(t)` (a flipped tensor, not an iterator), `round(t)` (a
TypeError: torch's Tensor has no __round__, MindSpore's answered), and operators with lists and tuples (`t == [1,
2]` is False and `t + [1, 2]` a TypeError, as torch's: they were computed elementwise). Each call gives torch's
type and value, or an error where torch raises one."""
import copy
import math
import operator
import pickle

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

SCALARS = {
    "float32": lambda T: T.tensor(2.7), "int64": lambda T: T.tensor(-3), "bool": lambda T: T.tensor(True),
    "float16": lambda T: T.tensor(2.5, dtype=T.float16), "uint8": lambda T: T.tensor(200, dtype=T.uint8),
}
PROTOCOLS = {
    "int": int, "float": float, "bool": bool, "index": operator.index, "complex": complex,
    "round": round, "round 1": lambda x: round(x, 1), "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc,
    "abs": abs, "neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "divmod": lambda x: divmod(x, 2),
    "rdivmod": lambda x: divmod(7, x), "item": lambda x: x.item(), "hex": hex, "range": lambda x: list(range(x))[:3],
    "list index": lambda x: [1, 2, 3, 4, 5][x], "format .2f": lambda x: f"{x:.2f}", "format d": lambda x: f"{x:d}",
    "isnan": math.isnan, "2 ** x": lambda x: 2 ** x, "min": lambda x: min(x, 1), "sum": lambda x: sum([x, x]),
}


def _v(T):
    return T.tensor([1.5, -2.5])


CALLS = {
    **{f"{p} of a {d} 0-d tensor": (lambda p, d: lambda T: PROTOCOLS[p](SCALARS[d](T)))(p, d)
       for p in PROTOCOLS for d in SCALARS},
    "round of a vector": lambda T: round(_v(T)),
    "abs of a vector": lambda T: abs(_v(T)),
    "int of a vector": lambda T: int(_v(T)),
    "bool of a vector": lambda T: bool(_v(T)),
    "len": lambda T: len(_v(T)),
    "in": lambda T: 1.5 in _v(T),
    "sorted": lambda T: sorted(_v(T)),
    "max": lambda T: max(_v(T)),
    "sum": lambda T: sum(_v(T)),
    "reversed": lambda T: reversed(_v(T)),
    "reversed 0-d": lambda T: reversed(T.tensor(2.0)),
    "reversed 2-d": lambda T: reversed(T.tensor([[1, 2], [3, 4]])),
    "iterate reversed": lambda T: [e.item() for e in reversed(_v(T))],
    "copy": lambda T: copy.copy(_v(T)),
    "deepcopy": lambda T: copy.deepcopy(_v(T)),
    "pickle": lambda T: pickle.loads(pickle.dumps(_v(T))),
    "== a list": lambda T: _v(T) == [1.5, 0.0],
    "!= a tuple": lambda T: _v(T) != (1.5, 0.0),
    "+ a list": lambda T: _v(T) + [1, 2],
    "* a tuple": lambda T: _v(T) * (2, 3),
    "a list @": lambda T: [1.0, 2.0] @ _v(T),
    "== None": lambda T: _v(T) == None,  # noqa: E711  (the operator itself is under test)
    "!= a string": lambda T: _v(T) != "a",
    "[True]": lambda T: _v(T)[True],
    "[[True, False]]": lambda T: _v(T)[[True, False]],
    "[1.0]": lambda T: _v(T)[1.0],
    "[-3]": lambda T: _v(T)[-3],
    "[1:10]": lambda T: _v(T)[1:10],
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_python_protocol_as_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)
