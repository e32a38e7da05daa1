"""Ops the zoo's decoders needed, against real torch: grouped matrix products (Mixtral's experts) and the
softmax gradient of rows masked with the lowest float32 (Gemma 2's eager attention over left padding)."""
import json
import textwrap

import pytest

import mindnlp_shim.torch as shim
from oracle import run_torch_json, torch_version

needs_torch = pytest.mark.skipif(torch_version() is None, reason="real torch (the oracle) is not installed")

# K and N are multiples of 4: real torch's CPU kernel wants 16-byte strides.
GROUPED_MM = textwrap.dedent("""
    import numpy as np

    def run(T):
        F = T.nn.functional
        rng = np.random.RandomState(0)
        a = T.tensor(rng.randn(9, 8).astype(np.float32), requires_grad=True)
        w = T.tensor(rng.randn(3, 8, 4).astype(np.float32), requires_grad=True)
        offs = T.tensor([2, 5, 9], dtype=T.int32)
        out = F.grouped_mm(a, w, offs=offs)
        g = T.tensor(rng.randn(9, 4).astype(np.float32))
        (out * g).sum().backward()
        # an expert without tokens, and rows past the last offset (their values are unspecified: not compared)
        sparse = F.grouped_mm(a.detach(), w.detach(), offs=T.tensor([3, 3, 7], dtype=T.int32))[:7]
        a3, w3 = T.tensor(rng.randn(3, 2, 8).astype(np.float32)), T.tensor(rng.randn(3, 8, 4).astype(np.float32))
        a2, w2 = T.tensor(rng.randn(4, 8).astype(np.float32)), T.tensor(rng.randn(8, 4).astype(np.float32))
        errors = {}
        for name, call in (("int64_offsets", lambda: F.grouped_mm(a, w, offs=offs.long())),
                           ("no_offsets", lambda: F.grouped_mm(a, w))):
            try:
                call()
            except RuntimeError as exc:
                errors[name] = "offset" in str(exc).lower()
        r = lambda t: np.round(t.detach().numpy().astype(np.float64), 4).tolist()
        return dict(out=r(out), a_grad=r(a.grad), w_grad=r(w.grad), sparse=r(sparse),
                    batched=r(F.grouped_mm(a3, w3)),
                    k_groups=r(F.grouped_mm(a2, w2, offs=T.tensor([4, 8], dtype=T.int32))), errors=errors)
""")

MASKED_SOFTMAX = textwrap.dedent("""
    import numpy as np

    def run(T):
        rng = np.random.RandomState(1)
        q = T.tensor(rng.randn(1, 2, 4, 8).astype(np.float32), requires_grad=True)
        k = T.tensor(rng.randn(1, 2, 4, 8).astype(np.float32), requires_grad=True)
        lowest = T.finfo(T.float32).min
        mask = T.zeros(1, 1, 4, 4)
        mask[..., 0, :] = lowest   # a query that sees nothing (a left-padded position): lowest + score == lowest
        mask[..., 1:, 0] = lowest
        scores = T.tanh(T.matmul(q, k.transpose(2, 3)) / 50.0) * 50.0 + mask   # soft-capped, then masked
        weights = T.nn.functional.softmax(scores, dim=-1, dtype=T.float32)
        (weights * T.tensor(rng.randn(1, 2, 4, 4).astype(np.float32))).sum().backward()
        r = lambda t: np.round(t.detach().numpy().astype(np.float64), 5).tolist()
        return dict(weights=r(weights), q_grad=r(q.grad), k_grad=r(k.grad))
""")


def _compare(cases):
    expected = run_torch_json(cases + "\nimport json, torch\nprint(json.dumps(run(torch)))")
    namespace = {}
    exec(cases, namespace)
    return json.loads(json.dumps(namespace["run"](shim))), expected


def _close(ours, theirs, tol):
    import numpy as np

    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=0, atol=tol)


@needs_torch
def test_grouped_mm_matches_torch():
    ours, theirs = _compare(GROUPED_MM)
    for key in ("out", "a_grad", "w_grad", "sparse", "batched", "k_groups"):
        _close(ours[key], theirs[key], 2e-4)
    assert theirs["errors"] == {"int64_offsets": True, "no_offsets": True}
    assert ours["errors"] == theirs["errors"]


def test_grouped_mm_rows_past_the_last_offset_are_zeros_and_unsupported_forms_say_so():
    a, w = shim.ones(5, 8), shim.ones(2, 8, 4)
    out = shim.nn.functional.grouped_mm(a, w, offs=shim.tensor([1, 3], dtype=shim.int32))
    assert out.tolist() == [[8.0] * 4] * 3 + [[0.0] * 4] * 2
    with pytest.raises(NotImplementedError, match="grouped_mm.*bias"):
        shim.nn.functional.grouped_mm(a, w, offs=shim.tensor([1, 3], dtype=shim.int32), bias=shim.ones(4))
    with pytest.raises(NotImplementedError, match="3-d and a 2-d"):
        shim.nn.functional.grouped_mm(shim.ones(2, 3, 8), shim.ones(8, 4), offs=shim.tensor([2], dtype=shim.int32))


@needs_torch
def test_softmax_gradient_of_rows_masked_with_the_lowest_float_matches_torch():
    ours, theirs = _compare(MASKED_SOFTMAX)
    assert theirs["weights"][0][0][0] == [0.25] * 4  # the row that sees nothing: uniform weights
    for key in ("weights", "q_grad", "k_grad"):
        _close(ours[key], theirs[key], 3e-5)


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    "torch.nn.functional.grouped_mm": "test_grouped_mm_matches_torch",
}
