"""Values and gradients at the edges of ops' definitions are real torch's: inputs drawn by hypothesis from the
points where an op changes branch (0, thresholds, clamp bounds, ties, all-zero rows) and ordinary values,
for a table of activations, losses, norms, distances, powers and reductions. These are the points where a
composition of primitives (a minimum that splits its gradient on ties, a square root of 0, x^-1 at 0) gives
another gradient than torch's formula."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_EDGES = [0.0, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 6.0, -6.0, 20.0, -20.0, 0.25]
# (nothing that makes subnormal numbers, in the inputs or in products of a few of them: MindSpore's CPU kernels
# flush subnormals to zero on some of their threads, docs/numerics.md)
_values = st.one_of(st.sampled_from(_EDGES),
                    st.floats(-8, 8, width=32).filter(lambda v: v == 0 or abs(v) >= 1e-3))
_rows = hnp.arrays(np.float32, st.sampled_from([(4, 4), (3, 5), (2, 6)]), elements=_values)

F = "T.nn.functional"
OPS = {
    # activations at their kinks and thresholds
    "relu": f"{F}.relu(x)", "relu6": f"{F}.relu6(x)", "leaky_relu": f"{F}.leaky_relu(x, 0.1)",
    "elu": f"{F}.elu(x, 0.5)", "selu": f"{F}.selu(x)", "celu": f"{F}.celu(x, 0.7)",
    "hardtanh": f"{F}.hardtanh(x, -2.0, 3.0)", "hardsigmoid": f"{F}.hardsigmoid(x)",
    "hardswish": f"{F}.hardswish(x)", "hardshrink": f"{F}.hardshrink(x, 0.5)", "softshrink": f"{F}.softshrink(x, 0.5)",
    "threshold": f"{F}.threshold(x, 1.0, -5.0)", "softplus": f"{F}.softplus(x, 1.0, 3.0)",
    "softplus_default": f"{F}.softplus(x * 4)", "logsigmoid": f"{F}.logsigmoid(x)", "mish": f"{F}.mish(x)",
    "prelu": f"{F}.prelu(x, T.tensor([0.25]))", "glu": f"{F}.glu(x[:2], 0)",
    # pointwise ops with kinks or singular points
    "abs": "x.abs()", "clamp": "x.clamp(-2.0, 3.0)", "clamp_min": "x.clamp(min=0.0)", "clamp_max": "x.clamp(max=0.0)",
    "clamp_tensors": "x.clamp(T.zeros(x.shape[-1]), T.ones(x.shape[-1]))",
    "maximum": "T.maximum(x, T.zeros_like(x))", "minimum": "T.minimum(x, x.flip(0))", "fmax": "T.fmax(x, T.zeros_like(x))",
    "pow0": "x.pow(0.0)", "pow_tensor_exponent": "x.pow(T.arange(x.shape[-1]).float())",
    "atan2": "T.atan2(x, x.flip(1) * (x.flip(1) != 2))", "hypot": "T.hypot(x, x.flip(0))",
    "sqrt_of_square": "(x * x + 1).sqrt()", "frac": "x.frac()",
    "div": "x / x.flip(0)", "div_by_signed_zeros": "x / (x.flip(0) * 0)", "rdiv": "2.0 / x",
    # losses at their margins
    "l1": f"{F}.l1_loss(x, x.flip(0))", "smooth_l1": f"{F}.smooth_l1_loss(x, x.flip(0), beta=1.0)",
    "huber": f"{F}.huber_loss(x, x.flip(0), delta=1.0)", "margin_ranking": f"{F}.margin_ranking_loss(x, x.flip(0), T.ones_like(x))",
    "hinge": f"{F}.hinge_embedding_loss(x, (x > 0).float() * 2 - 1)",
    "triplet": f"{F}.triplet_margin_loss(x, x.flip(0), x.flip(1))",
    "cosine_embedding": f"{F}.cosine_embedding_loss(x, x.flip(0), T.ones(x.shape[0]))",
    # norms and distances of zero rows and ties
    "norm": "x.norm()", "norm_dim": "(x * (x > 0)).norm(dim=1)", "norm_p3": "(x * (x > 0)).norm(p=3, dim=1)",
    "norm_inf": "x.norm(p=float('inf'), dim=1)", "vector_norm": "T.linalg.vector_norm(x * (x > 1), dim=0)",
    "normalize": f"{F}.normalize(x * (x > 0), dim=1)", "cosine_similarity": f"{F}.cosine_similarity(x, x.flip(0) * (x > 0))",
    "pairwise_distance": f"{F}.pairwise_distance(x, x.flip(0))", "dist": "T.dist(x, x.flip(0))",
    "cdist": "T.cdist(x[None], x[None])", "cdist_p1": "T.cdist(x[None], x.flip(0)[None], p=1)",
    "cdist_inf": "T.cdist(x[None], x.flip(0)[None], p=float('inf'))",
    # reductions with ties and zeros
    "max": "x.max()", "max_dim": "x.max(dim=1).values", "amax": "x.amax(dim=0)", "min_dim": "x.min(dim=1).values",
    "median": "x.median()", "nanmedian": "x.nanmedian()", "prod": "x.prod(dim=1)", "cumprod": "x.cumprod(1)",
    "cumprod_dim0": "x.cumprod(0)", "logsumexp": "T.logsumexp(x.masked_fill(x == 0, float('-inf')), 1)",
    "std": "x.std(dim=1)",
}


def _value_and_grad(T, expression, x0):
    x = T.from_numpy(x0.copy()).requires_grad_(True)
    y = eval(expression, {"T": T, "x": x})
    weights = T.from_numpy(np.linspace(0.5, 1.5, max(y.numel(), 1), dtype=np.float32).reshape(tuple(y.shape)))
    (y * weights).sum().backward()
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(x0=_rows)
def test_value_and_gradient_at_edges_are_torchs(name, x0):
    ours = _value_and_grad(mt, OPS[name], x0)
    theirs = _value_and_grad(rt, OPS[name], x0)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5, equal_nan=True)


def test_cumprod_through_zeros_refuses_a_second_derivative():
    # (its backward is computed on the host; the first derivative is torch's, a second one is refused)
    x = mt.tensor([[0.0, 2.0, 3.0]], requires_grad=True)
    (grad,) = mt.autograd.grad(x.cumprod(1).sum(), x, create_graph=True)
    np.testing.assert_allclose(grad.detach().numpy(), [[9.0, 0.0, 0.0]])
    with pytest.raises(RuntimeError):
        mt.autograd.grad(grad.sum(), x)


def test_cumsum_and_cumprod_of_a_zero_dim_tensor_are_torchs():
    for op in ("cumsum", "cumprod"):
        assert getattr(mt.tensor(3.5), op)(0).item() == getattr(rt.tensor(3.5), op)(0).item()
        assert getattr(mt.tensor(3.5), op)(0).shape == ()
        with pytest.raises(IndexError):
            getattr(mt.tensor(3.5), op)(1)


@pytest.mark.parametrize("size", [4, 300000])  # (small tensors outside autograd divide on the host)
def test_division_by_signed_zeros_is_ieee(size):
    rng = np.random.default_rng(0)
    numerator = rng.choice(np.array([1.0, -3.0, 0.0, float("inf")], np.float32), size)
    divisor = rng.choice(np.array([0.0, -0.0, 2.0, -0.5], np.float32), size)
    ours = (mt.from_numpy(numerator) / mt.from_numpy(divisor)).numpy()
    theirs = (rt.from_numpy(numerator) / rt.from_numpy(divisor)).numpy()
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
