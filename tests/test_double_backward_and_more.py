"""Answers that used to be silently wrong, each against real torch: second derivatives through Functions
(torch's value, or a clear error where the backward is not differentiable), float64 erfinv, inference-mode
queries, typename of Python objects, scatter_reduce's amax/amin gradient ties, view_as_complex aliasing."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _values(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


# ---- float64 erfinv -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["erfinv", "special.erfinv", "method"])
def test_float64_erfinv_and_its_two_derivatives_match_torch(call):
    x0 = np.array([-0.999999, -0.9, -0.5, -1e-9, 0.0, 0.3, 0.77, 0.99, 0.9999999])
    answers = []
    for T in (rt, mt):
        fn = {"erfinv": T.erfinv, "special.erfinv": T.special.erfinv, "method": lambda t: t.erfinv()}[call]
        x = T.tensor(x0, dtype=T.float64, requires_grad=True)
        y = fn(x)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        h, = T.autograd.grad(g.sum(), x)
        answers.append((_values(y), _values(g), _values(h)))
    for ours, theirs in zip(answers[1], answers[0]):
        np.testing.assert_allclose(ours, theirs, rtol=2e-14, atol=1e-300)  # a few ulps: products in another order


def test_float64_erfinv_edges_match_torch():
    x0 = np.array([-1.0, 1.0, 1.5, -2.0, np.nan])
    np.testing.assert_array_equal(_values(mt.erfinv(mt.tensor(x0))), _values(rt.erfinv(rt.tensor(x0))))


# ---- inference mode, typename ----------------------------------------------------------------------------------

def _mode_answers(T):
    answers = [T.is_inference_mode_enabled()]
    with T.inference_mode():
        answers.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
        with T.inference_mode(False):
            answers.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
        answers.append(T.is_inference_mode_enabled())

    @T.inference_mode()
    def inside():
        return T.is_inference_mode_enabled()

    answers.append(inside())
    with T.no_grad():
        answers.append(T.is_inference_mode_enabled())
    answers.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
    return answers


def test_inference_mode_queries_match_torch():
    assert _mode_answers(mt) == _mode_answers(rt)


class _Local:
    def method(self):
        return self


def _local_function():
    return None


@pytest.mark.parametrize("make", [lambda T: 3, lambda T: "a", lambda T: [1], lambda T: 1.5, lambda T: None,
                                  lambda T: int, lambda T: len, lambda T: _Local, lambda T: _Local(),
                                  lambda T: _local_function, lambda T: _Local().method, lambda T: np.float64,
                                  lambda T: T.nn.Linear, lambda T: T.ones(2, dtype=T.float64)])
def test_typename_matches_torch(make):
    ours, theirs = mt.typename(make(mt)), rt.typename(make(rt))
    assert ours == theirs.replace("torch.nn.modules.linear.", "mindnlp_shim.torch.nn.modules.linear.") \
        or ours == theirs
