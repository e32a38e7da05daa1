"""torch.searchsorted and torch.bucketize against real torch: 1-D and row-wise boundaries, `right`/`side`, `sorter`
(it was accepted and ignored), `out_int32`, scalar values, integer boundaries with float values (MindSpore's kernel
had none), and torch's errors for bad arguments."""
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


CALLS = {
    "int boundaries": lambda T: T.searchsorted(T.tensor([1, 5, 9]), T.tensor([5, 6])),
    "right": lambda T: T.searchsorted(T.tensor([1, 5, 9]), T.tensor([5, 6]), right=True),
    "side right": lambda T: T.searchsorted(T.tensor([1, 5, 9]), T.tensor([5, 6]), side="right"),
    "side and right opposite": lambda T: T.searchsorted(T.tensor([1, 5, 9]), T.tensor([5]), side="left", right=True),
    "bad side": lambda T: T.searchsorted(T.tensor([1, 5, 9]), T.tensor([5]), side="middle"),
    "scalar value": lambda T: T.searchsorted(T.tensor([1., 5., 9.]), 5.),
    "scalar value, 2-d boundaries": lambda T: T.searchsorted(T.tensor([[1., 5.], [2., 3.]]), 5.),
    "row-wise": lambda T: T.searchsorted(T.tensor([[1., 5., 9.], [2., 3., 4.]]),
                                         T.tensor([[5., 0., 10.], [3., 3., 3.]]), right=True),
    "row-wise shape mismatch": lambda T: T.searchsorted(T.tensor([[1., 5., 9.], [2., 3., 4.]]), T.tensor([5., 3.])),
    "sorter": lambda T: T.searchsorted(T.tensor([9, 1, 5]), T.tensor([5, 6]), sorter=T.tensor([1, 2, 0])),
    "sorter right": lambda T: T.searchsorted(T.tensor([9, 1, 5]), T.tensor([5, 6]), sorter=T.tensor([1, 2, 0]),
                                             right=True),
    "sorter of another size": lambda T: T.searchsorted(T.tensor([9, 1, 5]), T.tensor([5]), sorter=T.tensor([1, 2])),
    "int boundaries float values": lambda T: T.searchsorted(T.tensor([1, 5, 9]), T.tensor([5., 6.5])),
    "out_int32": lambda T: T.searchsorted(T.tensor([1., 5., 9.]), T.tensor([5, 6]), out_int32=True),
    "nan value": lambda T: T.searchsorted(T.tensor([1., 5.]), T.tensor([float("nan"), 2.])),
    "empty boundaries": lambda T: T.searchsorted(T.tensor([]), T.tensor([5., 6.])),
    "empty values": lambda T: T.searchsorted(T.tensor([1., 2.]), T.tensor([])),
    "bucketize": lambda T: T.bucketize(T.tensor([[5., 6.], [0., 9.]]), T.tensor([1, 5, 9]), right=True),
    "bucketize scalar": lambda T: T.bucketize(5, T.tensor([1, 5, 9])),
    "bucketize out_int32": lambda T: T.bucketize(T.tensor([5., 6.]), T.tensor([1, 5, 9]), out_int32=True),
    "bucketize bfloat16": lambda T: T.bucketize(T.tensor([1., 2.], dtype=T.bfloat16),
                                                T.tensor([1., 5.], dtype=T.bfloat16)),
}


def _outcome(T, name):
    try:
        value = CALLS[name](T)
    except Exception:  # noqa: BLE001  (raising is what is compared)
        return ("error",)
    return ("value", str(value.dtype).replace("torch.", ""), tuple(value.shape), value.tolist())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_searchsorted_matches_torch(name):
    assert _outcome(mt, name) == _outcome(rt, name)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 9999), rows=st.sampled_from([0, 1, 3]), width=st.integers(0, 6),
       right=st.booleans(), use_sorter=st.booleans(), dtype=st.sampled_from(["int64", "float32", "float64"]))
def test_searchsorted_of_drawn_sequences(seed, rows, width, right, use_sorter, dtype):
    """Sequences with repeated values, values on and between them, 1-D (rows=0) or row-wise."""
    rng = np.random.default_rng(seed)
    shape = (rows, width) if rows else (width,)
    boundaries = np.sort(rng.integers(-3, 4, shape), axis=-1).astype(dtype)
    values = rng.integers(-4, 5, (rows, 4) if rows else (4,)).astype(dtype)
    order = np.argsort(rng.random(shape), axis=-1) if use_sorter else None
    if order is not None:  # the sequence shuffled, with the sorter that sorts it back
        boundaries = np.take_along_axis(boundaries, np.argsort(order, axis=-1), -1)
    results = []
    for T in (rt, mt):
        sorter = None if order is None else T.from_numpy(np.argsort(np.argsort(order, axis=-1), axis=-1))
        out = T.searchsorted(T.from_numpy(boundaries.copy()), T.from_numpy(values.copy()), right=right,
                             sorter=sorter)
        results.append((str(out.dtype).replace("torch.", ""), out.tolist()))
    assert results[1] == results[0]
