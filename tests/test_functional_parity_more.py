"""torch.nn.functional parity with real PyTorch where MindSpore's kernels differ without an error: cosine
similarity with broadcasting and small norms, log_softmax accuracy, float64 computed in float64, half types kept
as half, integer hardtanh/relu6. Values, dtypes and gradients of `sum(out * w)`."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-3, 2e-3)}


def _run(T, fn, arrays, dtype, grad):
    leaves = [T.tensor(a.astype(dtype)) for a in arrays]
    if grad:
        for leaf in leaves:
            leaf.requires_grad_()
    out = fn(T, *leaves)
    grads = None
    if grad:
        w = np.random.default_rng(7).standard_normal(tuple(out.shape))
        (out.double() * T.tensor(w)).sum().backward()
        grads = [leaf.grad.numpy() for leaf in leaves]
    return out, grads


def _check(fn, arrays, dtype, grad=True):
    r_out, r_grads = _run(rt, fn, arrays, dtype, grad)
    m_out, m_grads = _run(mt, fn, arrays, dtype, grad)
    assert str(m_out.dtype) == str(r_out.dtype)
    assert tuple(m_out.shape) == tuple(r_out.shape)
    rtol, atol = TOL.get(np.dtype(dtype).name, (0, 0))
    np.testing.assert_allclose(m_out.detach().numpy().astype(np.float64), r_out.detach().numpy().astype(np.float64),
                               rtol=rtol, atol=atol)
    for m, r in zip(m_grads or (), r_grads or ()):
        assert m.dtype == r.dtype
        np.testing.assert_allclose(m.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=atol)


_rng = np.random.default_rng(2024)


def randn(*shape):
    return _rng.standard_normal(shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes,dim", [(((3, 4), (1, 4)), 0), (((3, 4), (1, 4)), 1), (((2,), ()), -1),
                                        (((2, 3, 4), (3, 1)), -1), (((5,), (5,)), 0)])
def test_cosine_similarity_broadcasts_before_the_norms(dtype, shapes, dim):
    arrays = [randn(*s) for s in shapes]
    _check(lambda T, a, b: T.nn.functional.cosine_similarity(a, b, dim=dim), arrays, dtype)


@pytest.mark.parametrize("scale", [1e-5, 1e-9, 0.0])
def test_cosine_similarity_clamps_each_norm(scale):
    # each norm is clamped to eps on its own (two norms of 1e-5 give 1, not 1e-10 / 1e-8)
    a, b = np.array([3.0, 4.0]) * scale, np.array([1.0, 2.0])
    _check(lambda T, x, y: T.nn.functional.cosine_similarity(x, y, dim=0), [a, b], np.float32)
    _check(lambda T, x, y: T.nn.functional.cosine_similarity(x, y, dim=0), [a, a + 1e-6], np.float64)


def test_cosine_similarity_errors():
    with pytest.raises(IndexError):
        mt.nn.functional.cosine_similarity(mt.ones(3), mt.ones(3), dim=1)
    with pytest.raises(RuntimeError):
        mt.nn.functional.cosine_similarity(mt.ones(3, dtype=mt.int64), mt.ones(3, dtype=mt.int64), dim=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("call", ["F", "method", "torch"])
def test_log_softmax_is_accurate(dtype, call):
    x = randn(4, 7) * 10
    fns = {"F": lambda T, a: T.nn.functional.log_softmax(a, 1), "method": lambda T, a: a.log_softmax(-1),
           "torch": lambda T, a: T.log_softmax(a, 0)}
    _check(fns[call], [x], dtype)
    _check(lambda T, a: T.nn.functional.log_softmax(a, 0), [np.array(1.5)], dtype)


def test_log_softmax_float32_near_zero_outputs():
    # the row maxima give outputs near 0: absolute error of MindSpore's kernel ~1e-8 * 46644 ulps there
    x = np.array([[0.0, -20.0, -25.0], [30.0, 1.0, 29.5]])
    _check(lambda T, a: T.nn.functional.log_softmax(a, -1), [x], np.float32)


def test_log_softmax_dim_and_dtype_errors():
    with pytest.raises(IndexError):
        mt.nn.functional.log_softmax(mt.ones(2, 3), -3)
    with pytest.raises(NotImplementedError):
        mt.nn.functional.log_softmax(mt.ones(3, dtype=mt.int64), 0)
    assert tuple(mt.nn.functional.log_softmax(mt.ones(2, 0, dtype=mt.int64), 1).shape) == (2, 0)


_FLOAT64_CASES = {
    "layer_norm": (lambda T, x, w, b: T.nn.functional.layer_norm(x, (4,), w, b, eps=0.01), [(3, 4), (4,), (4,)]),
    "rms_norm": (lambda T, x: T.nn.functional.rms_norm(x, (4,)), [(3, 4)]),
    "group_norm": (lambda T, x: T.nn.functional.group_norm(x, 2, eps=1e-3), [(2, 4, 3)]),
    "cross_entropy": (lambda T, x: T.nn.functional.cross_entropy(x, T.tensor([1, 0, 2])), [(3, 3)]),
    "cross_entropy_probs": (lambda T, x, p: T.nn.functional.cross_entropy(x, p.softmax(-1), label_smoothing=0.1),
                            [(2, 3), (2, 3)]),
    "sdpa": (lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v), [(1, 2, 3, 5)] * 3),
    "gelu": (lambda T, x: T.nn.functional.gelu(x), [(7,)]),
    "gelu_tanh": (lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), [(7,)]),
    "leaky_relu": (lambda T, x: T.nn.functional.leaky_relu(x, 0.01), [(7,)]),
    "selu": (lambda T, x: T.nn.functional.selu(x), [(7,)]),
    "celu": (lambda T, x: T.nn.functional.celu(x, 0.5), [(7,)]),
    "hardsigmoid": (lambda T, x: T.nn.functional.hardsigmoid(x), [(7,)]),
    "hardsigmoid_0d": (lambda T, x: T.nn.functional.hardsigmoid(x), [()]),
    "softplus": (lambda T, x: T.nn.functional.softplus(x, beta=0.3), [(7,)]),
}


@pytest.mark.parametrize("name", sorted(_FLOAT64_CASES))
def test_float64_is_computed_in_float64(name):
    fn, shapes = _FLOAT64_CASES[name]
    arrays = [randn(*s) * 2 for s in shapes]
    if name.startswith("hardsigmoid"):
        arrays = [np.clip(a, -2.9, 2.9) for a in arrays]
    _check(fn, arrays, np.float64)


@pytest.mark.parametrize("name", ["binary_cross_entropy_with_logits", "celu", "elu", "gelu", "hardsigmoid",
                                  "hardswish", "huber_loss", "leaky_relu", "logsigmoid", "mish", "selu",
                                  "smooth_l1_loss", "softplus"])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_half_inputs_give_half_results(name, shape):
    two = name in ("binary_cross_entropy_with_logits", "huber_loss", "smooth_l1_loss")
    arrays = [randn(*shape), _rng.random(shape)] if two else [randn(*shape)]
    if two:
        fn = lambda T, a, b: getattr(T.nn.functional, name)(a, b)  # noqa: E731
    else:
        fn = lambda T, a: getattr(T.nn.functional, name)(a)  # noqa: E731
    _check(fn, arrays, np.float16)


def test_sdpa_float16_gradients():
    arrays = [randn(1, 2, 3, 4) for _ in range(3)]
    _check(lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v), arrays, np.float16)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int16, np.uint8])
def test_integer_hardtanh_and_relu6_keep_their_type(dtype):
    x = np.array([0, 1, 3, 7, 100])
    _check(lambda T, a: T.nn.functional.relu6(a), [x], dtype, grad=False)
    _check(lambda T, a: T.nn.functional.hardtanh(a, 0.5, 2.5), [x], dtype, grad=False)
    if dtype != np.uint8:
        _check(lambda T, a: T.nn.functional.hardtanh(a - 4), [x], dtype, grad=False)
    else:
        with pytest.raises(RuntimeError):
            mt.nn.functional.hardtanh(mt.tensor(x.astype(dtype)))
    with pytest.raises(RuntimeError):
        mt.nn.functional.relu6(mt.tensor([True, False]))


def test_layer_norm_float32_gradient_of_short_rows():
    # rows of two elements: the gradient is a small difference of large terms (torch's arrangement of it)
    x, w = np.array([0.9899, 0.5784]), np.array([-2.6539, 2.243])
    _check(lambda T, a, b: T.nn.functional.layer_norm(a, (2,), b), [x, w], np.float32)


def test_float64_hardswish_values_and_gradients_on_every_piece():
    # torch's float64 hardswish gradient is x / 3 + 1/2 in float64 (0 at and below -3, 1 from 3 on); built on
    # hardsigmoid (whose gradient uses a float32 1/6) it was 4e-9 off
    values = np.array([-5.0, -3.0, -0.3251, 0.0, 1.7, 2.9999, 3.0, 4.2, np.inf, -np.inf])
    results = []
    for T in (mt, rt):
        x = T.tensor(values, requires_grad=True)
        out = T.nn.functional.hardswish(x)
        out.sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-15, atol=0)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-14, atol=0)
