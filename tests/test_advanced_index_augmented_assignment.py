"""`x[idx] += v` (and -=, *=, /=) with an advanced index inside autograd gives torch's values and gradients: Python
gathers x[idx], writes into that copy in place, then assigns it back (peft's mixed-adapter batches,
`result[sub_batch] += lora_output`). Drawn cases (hypothesis) against real torch: index kinds (lists, index
tensors, boolean masks, an index beside a slice), operators, which operands require grad."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

OPERATORS = {"+=": lambda a, b: a.__iadd__(b), "-=": lambda a, b: a.__isub__(b),
             "*=": lambda a, b: a.__imul__(b), "/=": lambda a, b: a.__itruediv__(b)}
ROWS, COLS = 5, 3


def _index(T, kind, rows):
    if kind == "list":
        return rows
    if kind == "tensor":
        return T.tensor(rows)
    if kind == "mask":
        return T.tensor([r in rows for r in range(ROWS)])
    return (T.tensor(rows), slice(1, None))  # an index tensor beside a slice


cases = st.fixed_dictionaries({
    "rows": st.lists(st.integers(0, ROWS - 1), min_size=1, max_size=ROWS, unique=True),
    "kind": st.sampled_from(["list", "tensor", "mask", "with_slice"]),
    "operator": st.sampled_from(sorted(OPERATORS)),
    "grads": st.sampled_from(["both", "base", "value"]),
    "seed": st.integers(0, 999),
})


def _run(T, case):
    rng = np.random.default_rng(case["seed"])
    rows = sorted(case["rows"]) if case["kind"] == "mask" else case["rows"]
    w = T.tensor(rng.normal(size=(ROWS, COLS)) + 3.0, dtype=T.float32, requires_grad=case["grads"] != "value")
    width = COLS - 1 if case["kind"] == "with_slice" else COLS
    v0 = T.tensor(rng.normal(size=(len(rows), width)) + 3.0, dtype=T.float32,
                  requires_grad=case["grads"] != "base")
    x = w * 2 if w.requires_grad else w.clone()
    v = v0 * 1.5
    index = _index(T, case["kind"], rows)
    target = x[index]
    OPERATORS[case["operator"]](target, v)
    x[index] = target
    (x * T.arange(1.0, ROWS * COLS + 1).reshape(ROWS, COLS)).sum().backward()
    grads = [None if t.grad is None else t.grad.numpy() for t in (w, v0)]
    return x.detach().numpy(), grads


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(case=cases)
def test_augmented_assignment_through_an_advanced_index_matches_torch(case):
    values, grads = _run(rt, case)
    our_values, our_grads = _run(mt, case)
    np.testing.assert_allclose(our_values, values, rtol=1e-6)
    for ours, theirs in zip(our_grads, grads):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-6)


@pytest.mark.parametrize("kind", ["list", "tensor"])
def test_the_measured_case(kind):
    """Was a MindSpore internal error ("The pointer[tensor->storage_info()] is null")."""
    case = {"rows": [0, 2], "kind": kind, "operator": "+=", "grads": "both", "seed": 1}
    values, grads = _run(mt, case)
    assert grads[0] is not None and grads[1] is not None
    np.testing.assert_allclose(values, _run(rt, case)[0], rtol=1e-6)
