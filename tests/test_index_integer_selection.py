"""An integer index beside a list or tensor index: torch selects the integer first and indexes what is left, where
NumPy's rules (MindSpore's indexing, NumPy host writes) count the integer as one more advanced index and place the
result's dimensions elsewhere (x[0, :, [1, 2]] of a (3, 4, 5) tensor: torch (4, 2), NumPy (2, 4)); an empty list
is an empty int64 index (MindSpore refuses it). Reads, their
gradients and writes are compared with real torch."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _index(T, case):
    return {
        "int_first": (0, slice(None), [1, 2]),
        "int_between": (slice(None), 1, slice(None), [0, 3]),
        "int_after": ([2, 0], slice(None), slice(None), 3),
        "zero_d_tensor": (T.tensor(1), slice(None), T.tensor([[0, 1], [2, 3]])),
        "numpy_integer": (np.int64(2), Ellipsis, [4, 0]),
        "two_ints": (0, [1, 2], 1),
        "int_and_mask": (1, T.tensor([True, False, True, True])),
        "empty_list": ([],),
        "slice_then_empty_list": (slice(None), []),
        "int_and_empty_list": (0, slice(None), []),
    }[case]


CASES = ["int_first", "int_between", "int_after", "zero_d_tensor", "numpy_integer", "two_ints", "int_and_mask",
         "empty_list", "slice_then_empty_list", "int_and_empty_list"]


def _base(T, shape):
    return T.from_numpy(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))


def _shape_for(case):
    return (3, 4, 5, 6) if case in ("int_between", "int_after") else (3, 4, 5)


@pytest.mark.parametrize("case", CASES)
def test_reads_match_torch(case):
    shape = _shape_for(case)
    ours, theirs = _base(mt, shape)[_index(mt, case)], _base(rt, shape)[_index(rt, case)]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("case", CASES)
def test_gradients_match_torch(case):
    shape = _shape_for(case)
    grads = []
    for T in (mt, rt):
        x = _base(T, shape).requires_grad_()
        out = x[_index(T, case)]
        (out * T.arange(out.numel(), dtype=T.float32).reshape(out.shape)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("case", CASES)
def test_writes_match_torch(case):
    shape = _shape_for(case)
    results = []
    for T in (mt, rt):
        x = T.zeros(shape)
        selected_shape = tuple(_base(T, shape)[_index(T, case)].shape)
        x[_index(T, case)] = T.arange(float(np.prod(selected_shape))).reshape(selected_shape) + 1
        results.append(x.numpy())
    np.testing.assert_array_equal(*results)
