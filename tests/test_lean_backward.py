"""The single-Function linear, GELU and attention (mindnlp_shim/torch/nn/_lean_backward.py): the same values and
gradients as the plain compositions, dropout included, while keeping less memory for the backward.
(Values and gradients against real torch: tests/test_ops_parity.py, cases gelu and sdpa_*.)"""
import math

import numpy as np
import pytest
from conftest import saved_tensors_of

import mindnlp_shim.torch as torch
from mindnlp_shim.torch.nn import functional as F
from mindnlp_shim.torch.nn import _lean_backward as lean


def _arr(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def _leaves(*shapes, seed=0):
    rng = np.random.RandomState(seed)
    return [torch.tensor(rng.randn(*s).astype(np.float32), requires_grad=True) for s in shapes]


def _composite_attention(q, k, v, mask, scale, keep=None, p=0.0):
    weights = torch.softmax(q @ k.transpose(-1, -2) * scale + mask, -1)
    if keep is not None:
        weights = weights * torch.tensor(keep.astype(np.float32) / (1.0 - p))
    return weights @ v


@pytest.mark.parametrize("dropout_p", [0.0, 0.3])
def test_attention_matches_the_composition_with_the_same_dropout_mask(dropout_p):
    q, k, v = _leaves((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7))
    mask = torch.tensor(np.where(np.random.RandomState(1).rand(2, 1, 5, 6) < 0.2, -np.inf, 0.0).astype(np.float32))
    torch.manual_seed(5)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
    torch.manual_seed(5)
    keep = F._keep_bools((2, 3, 5, 6), dropout_p) if dropout_p else None  # the draw the call made
    grad_out = torch.tensor(np.random.RandomState(2).randn(2, 3, 5, 7).astype(np.float32))
    lean_grads = torch.autograd.grad(out, (q, k, v), grad_out)
    reference = _composite_attention(q, k, v, mask, 0.5, keep, dropout_p)
    reference_grads = torch.autograd.grad(reference, (q, k, v), grad_out)
    np.testing.assert_allclose(_arr(out), _arr(reference), rtol=1e-5, atol=1e-6)
    for got, want in zip(lean_grads, reference_grads):
        np.testing.assert_allclose(_arr(got), _arr(want), rtol=1e-4, atol=1e-5)
    if dropout_p:
        assert 0 < (~keep).sum() < keep.size  # some weights were dropped


def test_attention_keeps_only_its_inputs_for_the_backward():
    q, k, v = _leaves((2, 2, 8, 4), (2, 2, 8, 4), (2, 2, 8, 4))
    out = lean.attention(q, k, v, None, 0.5)
    assert out.grad_fn is not None
    # the backward recomputes the weights: nothing but the scaled q, k, v (and the absent mask) is saved
    saved = [t for t in saved_tensors_of(out.grad_fn) if t is not None]
    assert len(saved) == 3 and {id(t) for t in saved[1:]} == {id(k), id(v)}
    assert tuple(saved[0].shape) == tuple(q.shape)
    np.testing.assert_allclose(_arr(saved[0]), _arr(q) * 0.5, rtol=1e-6)


def test_plain_path_without_recording():
    q, k, v = _leaves((2, 2, 8, 4), (2, 2, 8, 4), (2, 2, 8, 4))
    with torch.no_grad():
        assert not lean.can_run_attention(q, k, v, None)
        out = F.scaled_dot_product_attention(q, k, v)
    with torch.enable_grad():
        assert lean.can_run_attention(q, k, v, None)
        recorded = F.scaled_dot_product_attention(q, k, v)
    # the unrecorded call is computed on the host in float64 (host_small.attention), the recorded one in float32
    # kernels: a few ulps apart (the host one is the closer to real torch's and to the exact value)
    np.testing.assert_allclose(_arr(out), _arr(recorded), rtol=1e-5, atol=1e-5)


def test_exact_gelu_gradient_is_the_analytic_one():
    x, = _leaves((4, 9))
    y = F.gelu(x)
    grad, = torch.autograd.grad(y.sum(), x)
    xs = _arr(x)
    cdf = 0.5 * (1 + np.vectorize(math.erf)(xs / math.sqrt(2)))
    pdf = np.exp(-xs ** 2 / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(_arr(y), xs * cdf, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_arr(grad), cdf + xs * pdf, rtol=1e-5, atol=1e-6)
    # second use of the same input: gradients accumulate as for any op
    (F.gelu(x).sum() + F.gelu(x).sum()).backward()
    np.testing.assert_allclose(_arr(x.grad), 2 * (cdf + xs * pdf), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_keeps_its_input_not_a_flattened_copy(bias):
    x, w, b = _leaves((2, 5, 4), (3, 4), (3,))
    out = F.linear(x, w, b if bias else None)
    saved = [t for t in saved_tensors_of(out.grad_fn) if t is not None]
    assert {id(t) for t in saved} == {id(x), id(w)}  # the 3-D input itself, as torch keeps it
    grad_out = torch.tensor(np.random.RandomState(3).randn(2, 5, 3).astype(np.float32))
    grads = torch.autograd.grad(out, (x, w, b) if bias else (x, w), grad_out)
    xs, ws, gs = _arr(x).reshape(10, 4), _arr(w), _arr(grad_out).reshape(10, 3)
    np.testing.assert_allclose(_arr(out).reshape(10, 3), xs @ ws.T + (_arr(b) if bias else 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_arr(grads[0]).reshape(10, 4), gs @ ws, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_arr(grads[1]), gs.T @ xs, rtol=1e-5, atol=1e-6)
    if bias:
        np.testing.assert_allclose(_arr(grads[2]), gs.sum(0), rtol=1e-5, atol=1e-6)


def test_linear_gives_no_gradient_to_inputs_that_need_none():
    x = torch.tensor(np.ones((3, 4), np.float32))  # no grad
    w, = _leaves((2, 4))
    out = F.linear(x, w)
    grad, = torch.autograd.grad(out.sum(), w)
    np.testing.assert_allclose(_arr(grad), np.full((2, 4), 3.0), rtol=1e-6)
    assert x.grad is None
