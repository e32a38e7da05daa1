"""Gradients of broadcast operands whose result is empty: torch gives zeros.

MindSpore sums a broadcast operand's gradient with ReduceSum, which leaves its output uninitialized when the
summed tensor is empty; on 2.7.x stale heap values came out now and then (addcmul's gradient to a (1, 4)
operand of an empty product was 2e-322 or 3.6). The ops route such operands through `broadcast._empty_at`.
Stale values need freed memory to reuse, so each case first frees a few non-zero tensors of the operand's size.
"""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")

# op(receiver, a, b): every operand is a leaf that requires grad
_OPS = {
    "addcmul": lambda T, e, a, b: T.addcmul(e, a, b, value=0.5),
    "Tensor.addcmul": lambda T, e, a, b: e.addcmul(a, b, value=0.5),
    "addcdiv": lambda T, e, a, b: T.addcdiv(e, a, b, value=0.5),
    "mul+add": lambda T, e, a, b: e + a * b,
    "sub": lambda T, e, a, b: e - a - b,
    "div": lambda T, e, a, b: (e + a) / (b + 2),
    "lerp": lambda T, e, a, b: T.lerp(e, b, a),
    "where": lambda T, e, a, b: T.where(b > 0, e, a),
}
_EMPTY = [(0, 4), (4, 0), (2, 0, 3)]


def _operand_shape(shape, keep):
    """A shape broadcasting to `shape`: each dimension kept or 1 (`keep` bits, left to right)."""
    return tuple(s if (keep >> i) & 1 else 1 for i, s in enumerate(shape))


def _run(T, name, shapes, transposed, dtype, seed):
    rng = np.random.default_rng(seed)
    leaves = []
    for shape, t in zip(shapes, transposed):
        value = rng.standard_normal(shape[::-1] if t else shape)
        tensor = T.tensor(value, dtype=dtype)
        leaf = (tensor.t() if t else tensor).detach().requires_grad_()
        leaves.append(leaf)
    if T is mt:  # freed non-zero memory of the operands' sizes, for an uninitialized output to show
        junk = [mt.full(s, 7.0, dtype=dtype) for s in shapes for _ in range(3)]
        del junk
    out = _OPS[name](T, *leaves)
    weights = T.tensor(rng.standard_normal(tuple(out.shape)).astype(np.float32))
    (out.float() * weights).sum().backward()
    return [None if leaf.grad is None else leaf.grad.detach().numpy().copy() for leaf in leaves]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(_OPS)), empty=st.sampled_from(_EMPTY), keeps=st.tuples(*[st.integers(0, 7)] * 3),
       transposed=st.tuples(*[st.booleans()] * 3), dtype=st.sampled_from(["float64", "float32"]),
       seed=st.integers(0, 2**16))
# (the product is (1, 1), not empty: the add of it to the empty receiver is where the sum was empty)
@example(name="Tensor.addcmul", empty=(0, 4), keeps=(0, 0, 0), transposed=(False, False, False), dtype="float64",
         seed=0)
def test_gradients_of_operands_of_an_empty_result_are_torchs(name, empty, keeps, transposed, dtype, seed):
    shapes = [_operand_shape(empty, k) for k in keeps]
    shapes[0] = empty  # one operand carries the empty dimension, so the result is empty
    transposed = [t and len(s) == 2 for t, s in zip(transposed, shapes)]
    want = _run(rt, name, shapes, transposed, getattr(rt, dtype), seed)
    for _ in range(3):  # stale values show now and then, not every time
        got = _run(mt, name, shapes, transposed, getattr(mt, dtype), seed)
        for g, w in zip(got, want):
            assert (g is None) == (w is None) or not np.any(w if g is None else g)
            if g is not None and w is not None:
                assert g.shape == w.shape
                np.testing.assert_array_equal(g, w)
