"""torch.squeeze / Tensor.squeeze / Tensor.squeeze_ with several dims against real torch, on hypothesis-drawn
shapes and dim lists: the method takes the dims as separate arguments (`t.squeeze(0, 1)`, as transformers'
speculative sampling in assisted decoding calls it) or as a tuple, the function only as one int or tuple; repeated
dims are torch's RuntimeError, dims out of range its IndexError."""
import os

os.environ.setdefault("GLOG_v", "3")

import pytest  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402

from oracle import drawn_cases, scenario_answer, scenario_answers  # noqa: E402

# Runs unchanged under the shim and under real torch.
SCENARIO = r'''
def attempt(f):
    try:
        out = f()
    except Exception as e:
        return ["error", type(e).__name__, str(e).splitlines()[0] if type(e).__name__ != "TypeError" else ""]
    return ["tensor", list(out.shape), out.tolist()]

def run(torch, case):
    x = torch.arange(1, 1 + (eval("*".join(map(str, case["shape"]))) if case["shape"] else 1),
                     dtype=torch.float32).reshape(case["shape"])
    dims = case["dims"]
    forms = {
        "method_args": lambda: x.squeeze(*dims),
        "method_tuple": lambda: x.squeeze(tuple(dims)),
        "method_kw": lambda: x.squeeze(dim=tuple(dims)),
        "function_tuple": lambda: torch.squeeze(x, tuple(dims)),
        "function_args": lambda: torch.squeeze(x, *dims),
        "inplace_args": lambda: x.clone().squeeze_(*dims),
    }
    return {name: attempt(f) for name, f in forms.items()}
'''


@st.composite
def _case(draw):
    shape = draw(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=0, max_size=4))
    bound = max(len(shape), 1)
    dims = draw(st.lists(st.integers(-bound - 1, bound), min_size=1, max_size=3))
    return {"shape": shape, "dims": dims}


CASES = drawn_cases(_case(), 60)


@pytest.fixture(scope="module")
def torch_answers():
    return scenario_answers(SCENARIO, CASES)


@pytest.mark.parametrize("index", range(len(CASES)))
def test_squeeze_with_several_dims_matches_torch(torch_answers, index):
    ours = scenario_answer(SCENARIO, torch, CASES[index])
    assert ours == torch_answers[index], CASES[index]


def test_the_cases_reach_every_branch(torch_answers):
    """The drawn cases include squeezes of several dims, repeated dims and out-of-range dims."""
    kinds = {tuple(a["method_args"][:2]) for a in torch_answers if a["method_args"][0] == "error"}
    assert ("error", "RuntimeError") in kinds and ("error", "IndexError") in kinds
    assert any(a["method_args"][0] == "tensor" and len(c["dims"]) > 1 for a, c in zip(torch_answers, CASES))
