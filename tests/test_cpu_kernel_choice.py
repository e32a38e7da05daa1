"""Which MindSpore kernels serve broadcasting arithmetic and strided copies on the CPU, and that the faster
choices stay in place: tiling a large broadcasting operand (mindnlp_shim/torch/_ops/broadcast.py) and copying
a permuted view with NumPy (mindnlp_shim/torch/_ops/dense.py). Values and gradients against real torch:
tests/test_ops_parity.py, cases large_* and *_head_transpose."""
import numpy as np
import pytest
from conftest import saved_tensors_of
from mindspore import ops

import mindnlp_shim.torch as torch
from mindnlp_shim.torch._ops import broadcast, dense
from mindnlp_shim.torch._runtime import DEVICE_TARGET

cpu_only = pytest.mark.skipif(DEVICE_TARGET != "CPU", reason="the NumPy copy is the CPU target's choice")


@pytest.fixture
def tile_calls(monkeypatch):
    calls = []
    original = ops.tile

    def counting_tile(x, multiples):
        calls.append(tuple(multiples))
        return original(x, multiples)

    monkeypatch.setattr(ops, "tile", counting_tile)
    return calls


def _randn(*shape, seed=0):
    return torch.tensor(np.random.RandomState(seed).randn(*shape).astype(np.float32))


# (sizes above host_small.MAX_ELEMENTS: smaller tensors outside autograd are computed by NumPy)
def test_large_broadcasting_add_tiles_the_smaller_operand(tile_calls):
    scores, mask = _randn(4, 6, 64, 96), _randn(4, 1, 64, 96, seed=1)
    out = scores + mask
    assert tile_calls == [(1, 6, 1, 1)]
    np.testing.assert_array_equal(out.numpy(), scores.numpy() + mask.numpy())


def test_missing_leading_axes_are_tiled_too(tile_calls):
    x, w = _randn(16, 128, 72), _randn(72, seed=1)
    out = torch.mul(x, w)
    assert tile_calls == [(16, 128, 1)]
    np.testing.assert_array_equal(out.numpy(), x.numpy() * w.numpy())


def test_small_equal_integer_and_scalar_operands_keep_mindspore_broadcasting(tile_calls):
    assert 4 * 8 * 16 < broadcast.TILE_FROM_ELEMENTS
    _randn(4, 8, 16) + _randn(16)  # small result
    x = _randn(64, 32, 32)
    x * x  # equal shapes
    x * 2.0  # scalar
    torch.ones(64, 32, 32, dtype=torch.int64) * torch.ones(32, dtype=torch.int64)  # integers
    assert tile_calls == []


def test_tiled_gradient_sums_over_the_repeated_axes():
    x = _randn(32, 32, 48).requires_grad_()
    b = _randn(32, 1, 48, seed=1).requires_grad_()
    (x * b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), x.detach().numpy().sum(1, keepdims=True), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(b.detach().numpy(), (32, 32, 48)), rtol=0)


@cpu_only
def test_permuted_views_are_copied_by_numpy(monkeypatch):
    def refuse(tensor):
        raise AssertionError("MindSpore's strided copy was used for a permuted dense block")

    monkeypatch.setattr(dense, "_ms_contiguous", refuse)
    base = _randn(4, 32, 6, 8)
    view = base.transpose(1, 2)
    assert not view.is_contiguous()
    copy = view.contiguous()
    assert copy.is_contiguous()
    np.testing.assert_array_equal(copy.numpy(), np.ascontiguousarray(base.numpy().transpose(0, 2, 1, 3)))
    reshaped = view.permute(0, 2, 1, 3).transpose(2, 3).reshape(4, 32, 48)  # a reshape that needs a copy
    np.testing.assert_array_equal(reshaped.numpy(), base.numpy().transpose(0, 1, 3, 2).reshape(4, 32, 48))


@cpu_only
def test_any_strided_view_is_copied_by_numpy_and_bfloat16_by_mindspore(monkeypatch):
    used = []
    original = dense._ms_contiguous
    monkeypatch.setattr(dense, "_ms_contiguous", lambda t: used.append(t.dtype) or original(t))
    x = _randn(6, 8)
    stepped = x[:, ::2].t().contiguous()  # not a permutation of a dense block
    np.testing.assert_array_equal(stepped.numpy(), np.ascontiguousarray(x.numpy()[:, ::2].T))
    expanded = x[:, :1].expand(6, 5).contiguous()
    np.testing.assert_array_equal(expanded.numpy(), np.repeat(x.numpy()[:, :1], 5, axis=1))
    expanded.add_(1)  # a copy: the source is untouched
    np.testing.assert_array_equal(x.numpy()[:, :1] + 1, expanded.numpy()[:, :1])
    assert used == []
    half = _randn(4, 6).to(torch.bfloat16).t().contiguous()  # (kept on MindSpore's copy)
    assert half.dtype == torch.bfloat16 and half.shape == (6, 4)
    assert used == [torch.bfloat16]


def test_contiguous_passes_the_gradient_back_through_the_view():
    x = _randn(4, 32, 48).requires_grad_()
    heads = x.view(4, 32, 6, 8).transpose(1, 2).contiguous()
    weights = _randn(4, 6, 32, 8, seed=2)
    (heads * weights).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), weights.numpy().transpose(0, 2, 1, 3).reshape(4, 32, 48))


def test_row_and_column_sums_as_products_equal_reductions():
    from mindnlp_shim.torch._ops.sums import sum_last_axis, sum_rows

    scores = np.random.RandomState(3).randn(4, 6, 32, 48).astype(np.float32)
    rows = np.random.RandomState(4).randn(300, 20).astype(np.float32)
    got = sum_last_axis(torch.tensor(scores))
    assert tuple(got.shape) == (4, 6, 32, 1)
    np.testing.assert_allclose(got.numpy(), scores.sum(-1, keepdims=True), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sum_rows(torch.tensor(rows)).numpy(), rows.sum(0), rtol=1e-5, atol=1e-5)
    counts = torch.tensor(np.arange(12, dtype=np.int64).reshape(3, 4))  # integers keep ReduceSum
    np.testing.assert_array_equal(sum_rows(counts).numpy(), np.arange(12).reshape(3, 4).sum(0))


def test_layer_norm_records_one_function_keeping_input_weight_and_statistics():
    x = _randn(4, 8, 16).requires_grad_()
    norm = torch.nn.LayerNorm(16)
    y = norm(x)
    saved = saved_tensors_of(y.grad_fn)
    assert len(saved) == 4 and saved[0] is x  # x, gamma, and the (4, 8, 1) mean and variance
    assert tuple(saved[2].shape) == tuple(saved[3].shape) == (4, 8, 1)
