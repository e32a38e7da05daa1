"""torch._higher_order_ops.associative_scan (imported by transformers' Mamba, Falcon-Mamba, Jamba and Zamba at
every forward) against real torch: the inclusive scan of a tensor or a tuple of tensors along any dimension,
forwards and reversed, with torch's errors for pointwise mode off CUDA and for bad arguments."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _add(a, b):
    return a + b


def _max(a, b):
    return a.maximum(b) if hasattr(a, "maximum") else a.max(b)


def _linear_recurrence(left, right):  # Mamba's combine: h_t = a_t * h_{t-1} + b_t
    return left[0] * right[0], right[0] * left[1] + right[1]


def _dict_combine(left, right):
    return {"s": left["s"] + right["s"], "p": left["p"] * right["p"]}


COMBINES = {"add": (_add, 1), "max": (_max, 1), "linear recurrence": (_linear_recurrence, 2),
            "dict": (_dict_combine, "dict")}


def _scan(T, name, arrays, dim, reverse):
    from importlib import import_module

    scan = import_module(T.__name__ + "._higher_order_ops.associative_scan").associative_scan
    fn, kind = COMBINES[name]
    tensors = [T.tensor(a) for a in arrays]
    xs = tensors[0] if kind == 1 else tuple(tensors) if kind == 2 else {"s": tensors[0], "p": tensors[1]}
    out = scan(fn, xs, dim=dim, reverse=reverse, combine_mode="generic")
    leaves = [out] if kind == 1 else list(out) if kind == 2 else [out["s"], out["p"]]
    return [leaf.numpy() for leaf in leaves]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 9999), shape=st.lists(st.integers(1, 9), min_size=1, max_size=3),
       name=st.sampled_from(sorted(COMBINES)), reverse=st.booleans(), data=st.data())
def test_associative_scan_matches_torch(seed, shape, name, reverse, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 1.5, shape).astype(np.float32) for _ in range(2)]
    got = _scan(mt, name, arrays, dim, reverse)
    want = _scan(rt, name, arrays, dim, reverse)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", ["pointwise on cpu", "bad mode", "dim out of range", "empty scan dim",
                                  "float dim", "not callable"])
def test_associative_scan_errors_match_torch(case):
    def call(T):
        from importlib import import_module

        scan = import_module(T.__name__ + "._higher_order_ops.associative_scan").associative_scan
        x = T.ones(2, 3)
        args = {"pointwise on cpu": (_add, x, 1, False, "pointwise"), "bad mode": (_add, x, 1, False, "serial"),
                "dim out of range": (_add, x, 2, False, "generic"),
                "empty scan dim": (_add, T.ones(2, 0), 1, False, "generic"),
                "float dim": (_add, x, 1.0, False, "generic"), "not callable": (3, x, 1, False, "generic")}[case]
        try:
            scan(*args)
        except Exception as exc:  # noqa: BLE001  (the exception type is what is compared)
            return type(exc).__name__
        return "no error"

    assert call(mt) == call(rt)


def test_mamba_forward_imports_it():
    """transformers' Mamba imports associative_scan inside every forward, so the import must succeed."""
    import importlib

    module = importlib.import_module("mindnlp_shim.torch._higher_order_ops")
    assert module.associative_scan is importlib.import_module(
        "mindnlp_shim.torch._higher_order_ops.associative_scan").associative_scan
