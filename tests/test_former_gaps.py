"""Calls that raised NotImplementedError and now answer as torch does, against real torch: torch.unique(dim=...)
(the distinct slices along a dimension, sorted, with inverse indices and counts), einsum with a subscript
repeated within one operand (a diagonal; values and gradients), and embedding's max_norm (the rows looked up
renormalised in place, the lookup after)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

CALLS = {
    "rows": lambda T: (T.tensor([[1, 2], [1, 2], [3, 4]]).unique(dim=0),),
    "rows counts and inverse": lambda T: T.tensor([[3, 4], [1, 2], [3, 4]]).unique(
        dim=0, return_inverse=True, return_counts=True),
    "columns, negative dim": lambda T: T.tensor([[2, 1, 2], [4, 3, 4]]).unique(
        dim=-1, return_inverse=True, return_counts=True),
    "floats": lambda T: (T.unique(T.tensor([[3.0, 1.0], [3.0, 1.0], [0.0, 5.0]]), dim=0),),
    "bools": lambda T: (T.tensor([[True, False], [True, False]]).unique(dim=0),),
    "1-d": lambda T: T.tensor([3, 1, 3]).unique(dim=0, return_inverse=True),
    "empty": lambda T: (T.zeros(0, 2).unique(dim=0),),
    "dim out of range": lambda T: (T.tensor([[1, 2]]).unique(dim=2),),
    "unique_consecutive rows": lambda T: T.unique_consecutive(
        T.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), dim=0, return_inverse=True, return_counts=True),
    "unique_consecutive columns": lambda T: (T.tensor([[1, 1, 2], [3, 3, 3]]).unique_consecutive(dim=1),),
    "unique_consecutive 1-d dim": lambda T: T.tensor([5, 5, 1, 5]).unique_consecutive(dim=0, return_counts=True),
    "einsum ii->i": lambda T: (T.einsum("ii->i", T.tensor([[1, 2], [3, 4]])),),
    "einsum trace": lambda T: (T.einsum("ii", T.tensor([[1.0, 2.0], [3.0, 4.0]])),),
    "einsum batched diagonal": lambda T: (T.einsum("bii->bi", T.arange(8.0).reshape(2, 2, 2)),),
    "einsum iii": lambda T: (T.einsum("iii->i", T.arange(8.0).reshape(2, 2, 2)),),
    "einsum diagonal in a product": lambda T: (T.einsum("ij,jj->i", T.ones(2, 3), T.arange(9.0).reshape(3, 3)),),
    "einsum ellipsis diagonal": lambda T: (T.einsum("...ii->...i", T.arange(8.0).reshape(2, 2, 2)),),
    "einsum sizes differ": lambda T: (T.einsum("ii->i", T.ones(2, 3)),),
}


def _embedding_max_norm(T, norm_type):
    weight = T.tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 3, requires_grad=True)
    out = T.nn.functional.embedding(T.tensor([[0, 2], [2, 3]]), weight, max_norm=1.5, norm_type=norm_type)
    (out * T.arange(12.0).reshape(2, 2, 3)).sum().backward()
    return out.detach().numpy(), weight.detach().numpy(), weight.grad.numpy()


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalises_the_rows_looked_up(norm_type):
    for got, want in zip(_embedding_max_norm(mt, norm_type), _embedding_max_norm(rt, norm_type)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_einsum_diagonal_gradient():
    grads = []
    for T in (rt, mt):
        x = T.arange(9.0).reshape(3, 3).requires_grad_()
        (T.einsum("ii->i", x) * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def _outcome(T, name):
    try:
        values = CALLS[name](T)
    except Exception:  # noqa: BLE001  (raising is what is compared)
        return ("error",)
    return tuple((str(v.dtype).replace("torch.", ""), tuple(v.shape), v.tolist()) for v in values)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_former_gap_matches_torch(name):
    assert _outcome(mt, name) == _outcome(rt, name)


DTYPE_CALLS = {
    # MindSpore's full amax/amin of float16 answered float32
    "float16 amax": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float16).amax(),
    "float16 amin": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float16).amin(),
    "float16 aminmax": lambda T: T.aminmax(T.tensor([1.0, -2.0], dtype=T.float16))[0],
    # MindSpore has no bool kernels for these (TypeError)
    "bool amax dim": lambda T: T.tensor([[True, False], [False, False]]).amax(1),
    "bool amin": lambda T: T.tensor([[True, False], [True, True]]).amin(),
    "bool max dim values": lambda T: T.tensor([[True, False], [False, False]]).max(1).values,
    "bool max dim indices": lambda T: T.tensor([[False, True], [False, False]]).max(1).indices,
    "bool min dim indices": lambda T: T.tensor([[True, False], [True, True]]).min(0).indices,
    "bool sign": lambda T: T.tensor([True, False]).sign(),
    "bool square": lambda T: T.tensor([True, False]).square(),
    # an integer norm raises in torch (int8's came out NaN: its squares wrapped)
    "int8 norm": lambda T: T.tensor([100, 100], dtype=T.int8).norm(),
    "int64 vector_norm": lambda T: T.linalg.vector_norm(T.tensor([3, 4])),
    "int64 norm with dtype": lambda T: T.linalg.vector_norm(T.tensor([3, 4]), dtype=T.float64),
}


def _dtype_outcome(T, name):
    try:
        value = DTYPE_CALLS[name](T)
    except Exception:  # noqa: BLE001  (raising is what is compared)
        return ("error",)
    return (str(value.dtype).replace("torch.", ""), tuple(value.shape), value.tolist())


@pytest.mark.parametrize("name", sorted(DTYPE_CALLS))
def test_reductions_keep_torch_s_dtype(name):
    assert _dtype_outcome(mt, name) == _dtype_outcome(rt, name)
