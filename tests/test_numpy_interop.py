"""NumPy scalars and ufuncs meeting tensors, against real torch: `np.float64(2) * t` is a tensor (it was an
ndarray: NumPy's operator ran first, and the autograd graph was lost), `np.exp(t)` is a tensor, NumPy scalars
as arguments, shapes and indices. Each call gives torch's type, dtype and values, or an error where torch
raises one."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _t(T):
    return T.tensor([1.5, 2.0])


CALLS = {
    "np.float64 * t": lambda T: np.float64(2.0) * _t(T),
    "t * np.float64": lambda T: _t(T) * np.float64(2.0),
    "np.float32 + t": lambda T: np.float32(2.0) + _t(T),
    "np.int64 * t": lambda T: np.int64(3) * _t(T),
    "np.bool_ * t": lambda T: np.bool_(True) * _t(T),
    "np.float64 - t": lambda T: np.float64(3) - _t(T),
    "np.float64 / t": lambda T: np.float64(3) / _t(T),
    "np.float64 ** t": lambda T: np.float64(2) ** _t(T),
    "np.float64 > t": lambda T: np.float64(1.7) > _t(T),
    "np.float32 == t": lambda T: np.float32(2.0) == _t(T),
    "np.int64 * int tensor": lambda T: np.int64(3) * T.tensor([1, 2]),
    "np.float64 * float16 tensor": lambda T: np.float64(1.5) * T.tensor([1, 2], dtype=T.float16),
    "t + np array": lambda T: _t(T) + np.array([1.0, 2.0]),
    "np.exp(t)": lambda T: np.exp(_t(T)),
    "np.sqrt of a 0-d tensor": lambda T: np.sqrt(T.tensor(4.0)),
    "np.greater(t, 1.7)": lambda T: np.greater(_t(T), 1.7),
    "np.asarray(t)": lambda T: np.asarray(_t(T)),
    "torch.add(t, np.float64)": lambda T: T.add(_t(T), np.float64(1.25)),
    "t.mul(np.int32)": lambda T: _t(T).mul(np.int32(2)),
    "full of np.float32": lambda T: T.full((2,), np.float32(1.5)),
    "t[np.int64]": lambda T: _t(T)[np.int64(1)],
    "t[np.array]": lambda T: _t(T)[np.array([1, 0])],
    "reshape to np ints": lambda T: _t(T).reshape(np.int64(2), np.int64(1)),
    "arange of np.int64": lambda T: T.arange(np.int64(3)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_meets_tensor_as_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)


def test_numpy_scalar_times_a_loss_keeps_the_graph():
    w = mt.tensor([1.0, -2.0], requires_grad=True)
    loss = np.float32(0.5) * (w * w).sum()
    assert isinstance(loss, mt.Tensor)
    loss.backward()
    assert w.grad.tolist() == [1.0, -2.0]
