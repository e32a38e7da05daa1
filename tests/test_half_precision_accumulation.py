"""float16 reductions and statistics accumulate in float32, as torch's CPU kernels do, against real torch: cumsum
and cumprod (a float16 running sum drifted 0.11 over 1000 elements), vector norms, cosine_similarity and
normalize (float16 squares overflowed: a norm of 3162 was inf, a cosine of 1 was 0), var/std (inf for values near
300), group/instance/batch norm (0 for values near 300)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(0)
X = (_rng.standard_normal((4, 1000)) * 100 + 300).astype(np.float16)  # squares past float16's range
SMALL = _rng.standard_normal((4, 1000)).astype(np.float16)

CALLS = {
    "cumsum": lambda T, x, s: s.cumsum(1),
    "cumsum dim 0": lambda T, x, s: s.cumsum(0),
    "cumprod": lambda T, x, s: (s[:, :40] * 0.5 + 1).cumprod(1),
    "norm": lambda T, x, s: x.norm(dim=1),
    "vector_norm 3": lambda T, x, s: T.linalg.vector_norm(x, 3, dim=1),
    "normalize": lambda T, x, s: T.nn.functional.normalize(x[:, :6]),
    "cosine_similarity": lambda T, x, s: T.nn.functional.cosine_similarity(x, x + 1),
    "var": lambda T, x, s: x.var(1),
    "std": lambda T, x, s: x.std(1, correction=0),
    "var_mean": lambda T, x, s: T.stack(T.var_mean(x, 1)),
    "group_norm": lambda T, x, s: T.nn.functional.group_norm(
        x.reshape(4, 4, 250), 2, T.ones(4, dtype=T.float16), T.zeros(4, dtype=T.float16)),
    "instance_norm": lambda T, x, s: T.nn.functional.instance_norm(x.reshape(4, 4, 250)),
    "batch_norm": lambda T, x, s: T.nn.functional.batch_norm(x.reshape(8, 500), None, None, training=True),
}


# float32 accumulation rounded once gives torch's bits here
EXACT = {"cumsum", "cumsum dim 0", "cumprod", "norm", "vector_norm 3", "normalize", "var", "var_mean"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float16_accumulates_in_float32(name):
    want = CALLS[name](rt, rt.from_numpy(X.copy()), rt.from_numpy(SMALL.copy()))
    got = CALLS[name](mt, mt.from_numpy(X.copy()), mt.from_numpy(SMALL.copy()))
    assert got.dtype == mt.float16 and want.dtype == rt.float16
    want, got = want.double().numpy(), got.double().numpy()
    assert np.isfinite(got).all() and np.isfinite(want).all()
    if name in EXACT:
        np.testing.assert_array_equal(got, want)
    else:  # within a few float16 ulps of the result's scale (torch's half kernels round some steps in float16)
        np.testing.assert_allclose(got, want, rtol=4e-3, atol=4e-3 * np.abs(want).max())


def test_float16_cumsum_gradient_is_torch_s():
    grads = []
    for T in (rt, mt):
        x = T.from_numpy(SMALL[:, :50].copy()).requires_grad_()
        (x.cumsum(1) * T.arange(50, dtype=T.float16)).sum().backward()
        grads.append(x.grad.double().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=2e-3)
