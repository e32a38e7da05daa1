"""Tensor semantics against real PyTorch: index assignment, in-place ops (identity, views, autograd), casts and
conversions, creation dtype inference, finfo/iinfo, dropout, the RNG, gradient clipping and autograd behaviour."""
import math

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

BASE = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5


def values(t):
    t = t.detach()
    return np.array((t.float() if str(t.dtype) == "torch.bfloat16" else t).numpy())


def assert_same_tensor(m, r, rtol=1e-6, atol=1e-6):
    assert tuple(m.shape) == tuple(r.shape)
    assert str(m.dtype) == str(r.dtype)
    np.testing.assert_allclose(values(m), values(r), rtol=rtol, atol=atol)


def both(fn, array=BASE):
    """Run `fn(T, x)` for the shim and torch on the same data; returns (shim result, torch result)."""
    return fn(mt, mt.tensor(array.copy())), fn(rt, rt.tensor(array.copy()))


def mutated(action):
    """fn(T, x) that applies `action(T, x)` and returns x itself (the receiver, after the write)."""

    def fn(T, x):
        action(T, x)
        return x

    return fn


# ---------------------------------------------------------------- index assignment
SETITEM = {
    "int_scalar": lambda T, x: x.__setitem__(0, 5.0),
    "neg_int_row": lambda T, x: x.__setitem__(-1, T.tensor([1.0, 2.0, 3.0, 4.0])),
    "slice_tensor": lambda T, x: x.__setitem__((slice(None), slice(1, 3)), T.ones(3, 2) * 7),
    "broadcast_row": lambda T, x: x.__setitem__(slice(None), T.tensor([1.0, 2.0, 3.0, 4.0])),
    "bool_mask": lambda T, x: x.__setitem__(x > 0, 0.0),
    "bool_mask_empty": lambda T, x: x.__setitem__(x > 100, 0.0),
    "bool_mask_tensor_values": lambda T, x: x.__setitem__(x > 2, T.tensor([10.0, 20.0, 30.0, 40.0])),
    "bool_row_mask_rows": lambda T, x: x.__setitem__(T.tensor([True, False, True]), T.tensor([[1.0] * 4, [2.0] * 4])),
    "bool_row_mask_row_broadcast": lambda T, x: x.__setitem__(T.tensor([True, False, True]), T.arange(4.0)),
    "long_index": lambda T, x: x.__setitem__(T.tensor([0, 2]), -1.0),
    "two_long_indices": lambda T, x: x.__setitem__((T.tensor([0, 1]), T.tensor([2, 3])), T.tensor([-5.0, -6.0])),
    "ellipsis": lambda T, x: x.__setitem__((Ellipsis, 0), 1.0),
    "strided": lambda T, x: x.__setitem__((slice(None), slice(None, None, 2)), 0.0),
    "none_index": lambda T, x: x.__setitem__((None, 1), 3.0),
    "numpy_int": lambda T, x: x.__setitem__(np.int64(1), 0.0),
    "into_row_view": lambda T, x: x[0].__setitem__(1, 5.0),
    "float_into_int": lambda T, x: x.long().__setitem__(0, 2.7),  # (on a copy: checks no error)
}


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_matches_torch(name):
    m, r = both(mutated(SETITEM[name]))
    assert_same_tensor(m, r)


def test_setitem_casts_into_int_tensor():
    m, r = both(lambda T, x: mutated(lambda T, y: y.__setitem__(0, 2.7))(T, x.long()))
    assert_same_tensor(m, r)


@pytest.mark.parametrize("index", [slice(None, None, -1), (slice(None), slice(3, 0, -2))], ids=["rows", "cols"])
def test_negative_step_raises_like_torch(index):
    for T in (rt, mt):
        x = T.tensor(BASE)
        with pytest.raises(ValueError, match="step must be greater than zero"):
            x[index]
        with pytest.raises(ValueError, match="step must be greater than zero"):
            x[index] = 0.0


def test_setitem_in_graph_gradients():
    """Writes into a non-leaf inside the graph: overwritten entries get no gradient, the written value does."""
    grads = []
    for T in (mt, rt):
        x = T.tensor(BASE).requires_grad_()
        v = T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).requires_grad_()
        y = x * 2
        y[0] = 0.0
        y[:, 1:3] = v * 3
        (y * T.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))).sum().backward()
        grads.append((values(x.grad), values(v.grad)))
    np.testing.assert_allclose(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1])


def test_setitem_on_leaf_requiring_grad_raises_and_works_under_no_grad():
    for T in (rt, mt):
        w = T.tensor(BASE).requires_grad_()
        with pytest.raises(RuntimeError):
            w[0] = 0.0
        with T.no_grad():
            w[0] = 0.0
        assert values(w)[0].tolist() == [0.0] * 4 and w.requires_grad and w.is_leaf


# ---------------------------------------------------------------- in-place ops
INPLACE = {
    "add_": lambda T, x: x.add_(T.tensor([1.0, 2.0, 3.0, 4.0])),
    "add_alpha": lambda T, x: x.add_(T.ones(3, 4), alpha=-2),
    "sub_": lambda T, x: x.sub_(1.5),
    "mul_": lambda T, x: x.mul_(T.full((3, 1), 3.0)),
    "div_": lambda T, x: x.div_(4),
    "zero_": lambda T, x: x.zero_(),
    "fill_": lambda T, x: x.fill_(2.5),
    "fill_tensor": lambda T, x: x.fill_(T.tensor(7.0)),
    "clamp_": lambda T, x: x.clamp_(-1, 2),
    "clamp_min_": lambda T, x: x.clamp_(min=0),
    "masked_fill_": lambda T, x: x.masked_fill_(x > 0, -1),
    "masked_fill_float": lambda T, x: x.masked_fill_(T.tensor([True, False, True, False]), float("-inf")),
    "iadd": lambda T, x: x.__iadd__(1),
    "isub_tensor": lambda T, x: x.__isub__(T.ones(4)),
    "imul": lambda T, x: x.__imul__(2),
    "itruediv": lambda T, x: x.__itruediv__(2),
    "copy_": lambda T, x: x.copy_(T.ones(4)),
    "copy_cast": lambda T, x: x.copy_(T.ones(3, 4, dtype=T.int64)),
    "pow_": lambda T, x: x.pow_(2),
    "exp_": lambda T, x: x.exp_(),
    "neg_": lambda T, x: x.neg_(),
    "abs_": lambda T, x: x.abs_(),
    "tril_": lambda T, x: x.tril_(),
    "scatter_": lambda T, x: x.scatter_(1, T.tensor([[0], [1], [2]]), 9.0),
    "index_fill_": lambda T, x: x.index_fill_(1, T.tensor([0, 3]), 0.5),
    "lerp_": lambda T, x: x.lerp_(T.zeros(3, 4), 0.25),
    "addcmul_": lambda T, x: x.addcmul_(x, x, value=0.5),
    "sigmoid_": lambda T, x: x.sigmoid_(),
    "rsqrt_": lambda T, x: x.abs_().add_(1).rsqrt_(),
    "random_": lambda T, x: x.random_(0, 1),  # the only value in [0, 1) is 0
    "row_zero_": lambda T, x: x[0].zero_(),
    "row_fill_": lambda T, x: x[1].fill_(7),
    "column_add_": lambda T, x: x[:, 1].add_(100),
    "slice_mul_": lambda T, x: x[1:3].mul_(2),
    "narrow_fill_": lambda T, x: x.narrow(1, 1, 2).fill_(-1),
    "select_copy_": lambda T, x: x.select(0, 2).copy_(T.tensor([9.0, 8.0, 7.0, 6.0])),
    "unbind_zero_": lambda T, x: x.unbind(0)[1].zero_(),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_keeps_identity_and_values(name):
    results = []
    for T in (mt, rt):
        x = T.tensor(BASE.copy())
        returned = INPLACE[name](T, x)
        assert returned is not None
        if not name.startswith(("row_", "column_", "slice_", "narrow_", "select_", "unbind_")):
            assert returned is x, "an in-place op returns its receiver"
        results.append(x)
    assert_same_tensor(*results, rtol=1e-5)


VIEW_WRITES = {
    "view": lambda T, x: x.view(-1)[2:5].zero_(),
    "reshape": lambda T, x: x.reshape(-1).add_(1),
    "transpose": lambda T, x: x.t().add_(1),
    "unsqueeze": lambda T, x: x.unsqueeze(0).add_(1),
    "chunk": lambda T, x: x.chunk(2, 1)[1].add_(1),
}


@pytest.mark.parametrize("name", sorted(VIEW_WRITES))
def test_inplace_through_shape_views_reaches_base(name):
    m, r = both(mutated(VIEW_WRITES[name]))
    assert_same_tensor(m, r)


BF16_INPLACE = [
    pytest.param(lambda T, x: x.add_(1), id="add_"),
    pytest.param(lambda T, x: x.relu_(), id="relu_"),
    pytest.param(lambda T, x: x.clamp_(-1, 1), id="clamp_"),
    pytest.param(lambda T, x: x.masked_fill_(x > 0, 0), id="masked_fill_"),
    pytest.param(lambda T, x: x.__setitem__(0, 5.0), id="setitem"),
    pytest.param(lambda T, x: x[1].zero_(), id="row_zero_"),
    pytest.param(lambda T, x: T.nn.functional.relu(x, inplace=True), id="F.relu_inplace"),
    pytest.param(lambda T, x: T.nn.functional.hardtanh(x, inplace=True), id="F.hardtanh_inplace"),
]


@pytest.mark.parametrize("fn", BF16_INPLACE)
def test_bf16_inplace_writes_the_receiver(fn):
    m, r = both(lambda T, x: mutated(fn)(T, x.bfloat16()))
    assert_same_tensor(m, r)


@pytest.mark.parametrize("op", ["mul_(1.5)", "div_(2)", "add_(0.5)", "__itruediv__(2)"])
def test_inplace_float_result_into_int_tensor_raises(op):
    for T in (rt, mt):
        x = T.arange(6)
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            eval(f"x.{op}")


def test_inplace_int_ops_keep_dtype():
    m, r = both(lambda T, x: mutated(lambda T, y: (y.add_(3), y.mul_(2), y.__ifloordiv__(3)))(T, x.long()))
    assert_same_tensor(m, r)
    m, r = both(lambda T, x: mutated(lambda T, y: y.eq_(0))(T, x))  # a bool result written back as float
    assert_same_tensor(m, r)


def test_inplace_on_leaf_requiring_grad_raises_and_no_grad_keeps_identity():
    for T in (rt, mt):
        w = T.tensor(BASE).requires_grad_()
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            w.add_(1)
        ident = id(w)
        with T.no_grad():
            w.mul_(2).add_(1)
            w.zero_()
            w.fill_(3)
        assert id(w) == ident and w.is_leaf and w.requires_grad
        assert values(w).tolist() == np.full((3, 4), 3.0).tolist()


def test_inplace_on_parameter_data_keeps_the_parameter():
    for T in (rt, mt):
        p = T.nn.Parameter(T.tensor(BASE))
        p.data.mul_(0).add_(2)
        p.data.copy_(p.data * 3)
        p.data[0].zero_()
        assert isinstance(p, T.nn.Parameter) and p.requires_grad
        assert values(p).tolist() == [[0.0] * 4] + [[6.0] * 4] * 2


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("frozen", [True, False])
def test_value_that_requires_grad_written_into_data_gives_the_alias_a_graph(frozen, dtype):
    # peft's merge: `weight.data += delta` with delta from trainable factors; the weight stays a leaf (frozen or
    # not), takes the values, and the alias written into carries the write's graph
    answers = []
    for T in (mt, rt):
        weight = T.nn.Parameter(T.tensor(BASE, dtype=getattr(T, dtype)), requires_grad=not frozen)
        a = T.tensor(BASE[:, :1].copy(), dtype=getattr(T, dtype), requires_grad=True)
        b = T.tensor(BASE[:1].copy(), dtype=getattr(T, dtype), requires_grad=True)
        weight.data += a @ b
        answer = [weight.is_leaf, weight.requires_grad, weight.grad_fn is None, values(weight).tolist()]
        alias = weight.data
        alias += a @ b * 2
        (alias * alias).sum().backward()
        answer += [alias.requires_grad, values(a.grad).tolist(), values(b.grad).tolist(), values(weight).tolist()]
        kept = weight.data
        weight.data = T.zeros(2)
        answer += [values(kept).tolist(), values(weight).tolist()]
        answers.append(answer)
    assert answers[0] == answers[1]


def test_data_assignment_with_a_new_shape_reaches_every_op():
    """`p.data = bigger` (transformers pads a tied output bias so when resizing embeddings) must be seen by ops
    with constant arguments such as BiasAdd (F.linear), not only by Python-level shape queries."""
    outs = []
    for T in (mt, rt):
        bias = T.nn.Parameter(T.zeros(3))
        weight = T.tensor(np.arange(10, dtype=np.float32).reshape(5, 2))
        T.nn.functional.linear(T.ones(1, 2), weight[:3], bias)  # the op has seen the old shape
        bias.data = T.nn.functional.pad(bias.data, (0, 2), "constant", 1.0)
        outs.append(values(T.nn.functional.linear(T.ones(1, 2), weight, bias)))
        assert isinstance(bias, T.nn.Parameter) and tuple(bias.shape) == (5,)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_inplace_in_graph_gradients():
    grads = []
    for T in (mt, rt):
        x = T.tensor(BASE).requires_grad_()
        y = x * 1.5
        y.add_(1).mul_(x)
        y += x
        y.clamp_(max=20)
        y.masked_fill_(x < -4, 0.0)
        (y * T.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))).sum().backward()
        grads.append(values(x.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


def test_add_then_backward_into_two_leaves():
    """Sums of leaves (MindSpore's Add backward would need a Clone kernel the CPU lacks)."""
    grads = []
    for T in (mt, rt):
        a, b = T.tensor(BASE).requires_grad_(), T.tensor(BASE * 2).requires_grad_()
        bias = T.ones(4).requires_grad_()
        c = T.ones(2, 3, 3).requires_grad_()
        out = (a + b).sum() + (a * b + bias).sum() + (b - bias * 2).sum()
        out = out + T.baddbmm(c, a[None, :, :3].expand(2, 3, 3), b[None, :, :3].expand(2, 3, 3)).sum()
        out.backward()
        grads.append([values(t.grad) for t in (a, b, bias, c)])
    for gm, gr in zip(*grads):
        np.testing.assert_allclose(gm, gr, rtol=1e-5)


# ---------------------------------------------------------------- casts and conversions
CASTS = {
    "to_float16": lambda T, x: x.to(T.float16),
    "to_bfloat16": lambda T, x: x.to(dtype=T.bfloat16),
    "to_int32_truncates": lambda T, x: (x / 3).to(T.int32),
    "to_int64_negative": lambda T, x: (x - 0.7).long(),
    "to_uint8": lambda T, x: x.abs().to(T.uint8),
    "to_bool": lambda T, x: x.bool(),
    "to_float64": lambda T, x: x.double(),
    "half_then_float": lambda T, x: (x / 7).half().float(),
    "bfloat16_then_float": lambda T, x: (x / 7).bfloat16().float(),
    "to_other_tensor": lambda T, x: x.to(T.zeros(1, dtype=T.int16)),
    "to_device_and_dtype": lambda T, x: x.to("cpu", T.float64),
    "to_device_object": lambda T, x: x.to(T.device("cpu")),
    "type_dtype": lambda T, x: x.type(T.float64),
    "type_string": lambda T, x: x.type("torch.LongTensor"),
    "type_as": lambda T, x: x.type_as(T.ones(1, dtype=T.int8)),
    "bool_to_float": lambda T, x: (x > 0).float(),
    "int_to_bfloat16": lambda T, x: x.long().bfloat16(),
}


@pytest.mark.parametrize("name", sorted(CASTS))
def test_cast_matches_torch(name):
    m, r = both(CASTS[name])
    assert_same_tensor(m, r)


def test_to_same_dtype_returns_self_and_copy_makes_new():
    for T in (rt, mt):
        x = T.tensor(BASE)
        assert x.to(T.float32) is x and x.float() is x and x.to("cpu") is x
        c = x.to(T.float32, copy=True)
        assert c is not x and values(c).tolist() == values(x).tolist()
        assert x.type() == "torch.FloatTensor"


def test_cast_gradient_comes_back_in_input_dtype():
    grads = []
    for T in (mt, rt):
        x = T.tensor(BASE / 3).requires_grad_()
        (x.half() * 3).float().sum().backward()
        grads.append(x.grad)
    assert_same_tensor(*grads)


def test_item_tolist_numpy():
    for T in (rt, mt):
        f = T.tensor(2.5)
        assert type(f.item()) is float and f.item() == 2.5
        i = T.tensor([7])
        assert type(i.item()) is int and i.item() == 7
        b = T.tensor(True)
        assert type(b.item()) is bool and b.item() is True
        assert T.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
        assert T.tensor([1.5, 2.0]).tolist() == [1.5, 2.0]
        assert T.tensor(3).tolist() == 3
        assert T.tensor(2.0).bfloat16().item() == 2.0 and T.tensor([0.5]).half().tolist() == [0.5]
        arr = T.tensor([[1, 2], [3, 4]], dtype=T.int32).numpy()
        assert arr.dtype == np.int32 and arr.tolist() == [[1, 2], [3, 4]]
        assert float(T.tensor(1.5)) == 1.5 and int(T.tensor(3)) == 3 and [10, 20, 30][T.tensor(1)] == 20
        with pytest.raises(RuntimeError):
            T.ones(2, requires_grad=True).numpy()
        with pytest.raises(RuntimeError):
            T.ones(2).item()
        with pytest.raises(TypeError):
            [1, 2][T.tensor(1.0)]


def test_numpy_shares_memory_with_the_tensor():
    for T in (rt, mt):
        t = T.zeros(3)
        t.numpy()[1] = 5.0
        assert values(t).tolist() == [0.0, 5.0, 0.0]
        a = np.zeros(3, np.float32)
        u = T.from_numpy(a)
        a[0] = 2.0
        assert values(u).tolist() == [2.0, 0.0, 0.0]


def test_layout_queries():
    for T in (rt, mt):
        x = T.tensor(BASE)
        assert x.stride() == (4, 1) and x.stride(0) == 4 and x.storage_offset() == 0 and x.is_contiguous()
        t = x.t()
        assert not t.is_contiguous() and t.contiguous().is_contiguous()
        assert t.contiguous().stride() == (3, 1)
        assert x.layout == T.strided and not x.is_sparse and not x.is_nested and not x.is_quantized
        assert x.untyped_storage().nbytes() == 48 and x.data_ptr() != 0


def test_python_protocol():
    for T in (rt, mt):
        x = T.tensor(BASE)
        assert len(x) == 3 and [tuple(r.shape) for r in x] == [(4,)] * 3
        assert 0.5 in x and 100.0 not in x
        assert bool(T.tensor([1.0])) and not bool(T.tensor(0))
        assert f"{T.tensor(1.23456):.2f}" == "1.23"
        assert x.dim() == 2 and x.ndim == 2 and x.numel() == 12 and x.size(1) == 4 and x.size() == (3, 4)
        assert x.shape[-1] == 4 and x.element_size() == 4 and x.is_floating_point() and not x.long().is_floating_point()
        with pytest.raises(TypeError):
            len(T.tensor(1.0))


# ---------------------------------------------------------------- creation
CREATION = {
    "ints": lambda T: T.tensor([1, 2, 3]),
    "floats": lambda T: T.tensor([1.0, 2.5]),
    "mixed_int_float": lambda T: T.tensor([1, 2.5]),
    "bools": lambda T: T.tensor([True, False]),
    "bool_and_int": lambda T: T.tensor([True, 2]),
    "nested": lambda T: T.tensor([[1, 2], [3, 4]]),
    "scalar_int": lambda T: T.tensor(3),
    "scalar_float": lambda T: T.tensor(3.0),
    "scalar_bool": lambda T: T.tensor(False),
    "empty_list": lambda T: T.tensor([]),
    "numpy_float64": lambda T: T.tensor(np.array([1.0, 2.0])),
    "numpy_int32": lambda T: T.tensor(np.array([1, 2], np.int32)),
    "numpy_uint8": lambda T: T.tensor(np.array([1, 2], np.uint8)),
    "numpy_float16": lambda T: T.tensor(np.array([1.5], np.float16)),
    "numpy_scalar": lambda T: T.tensor(np.float64(2.5)),
    "list_of_0d_tensors": lambda T: T.tensor([T.tensor(1.5), T.tensor(2.5)]),
    "explicit_dtype": lambda T: T.tensor([1, 2], dtype=T.float16),
    "explicit_bf16": lambda T: T.tensor([1.5, 2.25], dtype=T.bfloat16),
    "as_tensor_list": lambda T: T.as_tensor([1, 2, 3], dtype=T.float32),
    "from_numpy_int64": lambda T: T.from_numpy(np.arange(3)),
    "arange_int": lambda T: T.arange(5),
    "arange_start_end": lambda T: T.arange(2, 9, 3),
    "arange_float_step": lambda T: T.arange(0, 1, 0.1),
    "arange_float_start": lambda T: T.arange(0.5, 3),
    "arange_dtype": lambda T: T.arange(4, dtype=T.float32),
    "arange_negative_step": lambda T: T.arange(5, 0, -2),
    "arange_tensor_end": lambda T: T.arange(T.tensor(4)),
    "linspace": lambda T: T.linspace(0, 1, 5),
    "linspace_one_step": lambda T: T.linspace(2, 3, 1),
    "linspace_int_dtype": lambda T: T.linspace(0, 10, 6, dtype=T.int64),
    "full_float": lambda T: T.full((2, 3), 1.5),
    "full_int": lambda T: T.full((2,), 7),
    "full_bool": lambda T: T.full((2,), True),
    "full_dtype": lambda T: T.full([2, 2], 3, dtype=T.float16),
    "zeros": lambda T: T.zeros(2, 3),
    "zeros_tuple_dtype": lambda T: T.zeros((2, 3), dtype=T.int32),
    "ones_like_int": lambda T: T.ones_like(T.tensor([1, 2])),
    "zeros_like_dtype": lambda T: T.zeros_like(T.tensor([1, 2]), dtype=T.float16),
    "full_like": lambda T: T.full_like(T.ones(2, 2), -3),
    "empty_shape": lambda T: T.empty(2, 0).shape,
    "eye": lambda T: T.eye(3),
    "eye_rect": lambda T: T.eye(2, 3, dtype=T.int64),
    "new_zeros": lambda T: T.ones(2, dtype=T.float16).new_zeros(3),
    "new_ones_dtype": lambda T: T.ones(2).new_ones((2, 2), dtype=T.int32),
    "new_full": lambda T: T.ones(2, dtype=T.int64).new_full((3,), 4),
    "new_tensor": lambda T: T.ones(2, dtype=T.float16).new_tensor([1, 2]),
    "scalar_tensor": lambda T: T.scalar_tensor(2),
    "tril_indices_like_pattern": lambda T: T.ones(3, 3).tril().nonzero(),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation_matches_torch(name):
    m, r = CREATION[name](mt), CREATION[name](rt)
    if isinstance(r, rt.Tensor):
        assert_same_tensor(m, r)
    else:
        assert tuple(m) == tuple(r)


def test_tensor_copies_and_requires_grad():
    for T in (rt, mt):
        a = np.ones(3, np.float32)
        t = T.tensor(a, requires_grad=True)
        a[0] = 5.0
        assert values(t).tolist() == [1.0, 1.0, 1.0] and t.requires_grad and t.is_leaf
        u = T.tensor(t)  # copies and detaches (torch warns)
        assert not u.requires_grad and values(u).tolist() == [1.0, 1.0, 1.0]
        with pytest.raises(RuntimeError):
            T.tensor([1, 2], requires_grad=True)


def test_default_dtype_drives_python_floats():
    for T in (rt, mt):
        old = T.get_default_dtype()
        try:
            T.set_default_dtype(T.float64)
            assert T.tensor([1.5]).dtype == T.float64 and T.arange(0.0, 1.0).dtype == T.float64
            assert T.zeros(1).dtype == T.float64 and T.tensor([1]).dtype == T.int64
        finally:
            T.set_default_dtype(old)
        assert T.get_default_dtype() == T.float32


# ---------------------------------------------------------------- dtype information
FINFO_ATTRS = ("bits", "eps", "max", "min", "tiny", "smallest_normal")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(dtype):
    m, r = mt.finfo(getattr(mt, dtype)), rt.finfo(getattr(rt, dtype))
    for attr in FINFO_ATTRS:
        assert getattr(m, attr) == getattr(r, attr), attr
    assert mt.finfo().eps == rt.finfo().eps


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_finfo_resolution_matches_torch(dtype):
    assert mt.finfo(getattr(mt, dtype)).resolution == rt.finfo(getattr(rt, dtype)).resolution


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(dtype):
    m, r = mt.iinfo(getattr(mt, dtype)), rt.iinfo(getattr(rt, dtype))
    assert (m.bits, m.min, m.max) == (r.bits, r.min, r.max)


def test_finfo_iinfo_reject_wrong_kinds():
    for T in (rt, mt):
        with pytest.raises(TypeError):
            T.finfo(T.int32)
        with pytest.raises(TypeError):
            T.iinfo(T.float32)


def test_dtype_attributes_match_torch():
    for name in ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool"):
        m, r = getattr(mt, name), getattr(rt, name)
        assert (m.is_floating_point, m.is_signed, m.itemsize) == (r.is_floating_point, r.is_signed, r.itemsize), name
        assert str(m) == str(r)


def test_promote_types_matches_torch():
    pairs = [("int64", "float32"), ("int32", "float16"), ("bool", "int8"), ("uint8", "int8"), ("float16", "bfloat16"),
             ("int64", "bfloat16"), ("float32", "float64")]
    for a, b in pairs:
        assert str(mt.promote_types(getattr(mt, a), getattr(mt, b))) == \
            str(rt.promote_types(getattr(rt, a), getattr(rt, b))), (a, b)


# ---------------------------------------------------------------- dropout
def test_dropout_statistics_and_scaling():
    x = mt.ones(200_000)
    out = mt.nn.functional.dropout(x, p=0.3, training=True)
    kept = values(out)
    zero_fraction = float((kept == 0).mean())
    assert abs(zero_fraction - 0.3) < 0.01
    assert np.allclose(kept[kept != 0], 1 / 0.7)
    assert abs(kept.mean() - 1.0) < 0.01


def test_dropout_identity_cases():
    F = mt.nn.functional
    x = mt.tensor(BASE)
    for out in (F.dropout(x, 0.0), F.dropout(x, 0.5, training=False), F.dropout(x, p=0.0, training=True)):
        assert values(out).tolist() == BASE.tolist()
    module = mt.nn.Dropout(0.5)
    module.eval()
    assert values(module(x)).tolist() == BASE.tolist()
    module.train()
    assert (values(module(mt.ones(1000))) == 0).any()
    assert not values(F.dropout(mt.ones(10), p=1.0)).any()
    with pytest.raises(ValueError):
        F.dropout(x, p=1.5)


def test_dropout_gradient_is_the_scaled_mask():
    x = mt.ones(1000).requires_grad_()
    out = mt.nn.functional.dropout(x, p=0.4)
    out.sum().backward()
    np.testing.assert_allclose(values(x.grad), values(out), rtol=1e-6)


def test_dropout_inplace_writes_the_input():
    x = mt.ones(1000)
    out = mt.nn.functional.dropout(x, p=0.5, inplace=True)
    assert out is x and (values(x) == 0).any() and np.allclose(values(x)[values(x) != 0], 2.0)


# ---------------------------------------------------------------- random number generation
def test_manual_seed_reproduces_every_sampler():
    def draw():
        return [values(mt.randn(4)), values(mt.rand(2, 3)), values(mt.randint(0, 100, (5,))),
                values(mt.randperm(6)), values(mt.nn.functional.dropout(mt.ones(20), 0.5)),
                values(mt.empty(3).normal_()), values(mt.empty(3).uniform_(-1, 1)),
                values(mt.multinomial(mt.tensor([0.2, 0.3, 0.5]), 4, replacement=True))]

    mt.manual_seed(123)
    first = draw()
    mt.manual_seed(123)
    second = draw()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    mt.manual_seed(124)
    assert not np.array_equal(draw()[0], first[0])


def test_rng_state_replay():
    mt.manual_seed(7)
    mt.randn(3)
    state = mt.get_rng_state()
    a = values(mt.randn(5))
    b = values(mt.rand(2))
    mt.set_rng_state(state)
    np.testing.assert_array_equal(values(mt.randn(5)), a)
    np.testing.assert_array_equal(values(mt.rand(2)), b)
    assert str(state.dtype) == "torch.uint8" and state.ndim == 1


def test_generator_objects_are_independent():
    g1, g2 = mt.Generator().manual_seed(5), mt.Generator().manual_seed(5)
    a = values(mt.randn(4, generator=g1))
    mt.randn(10)  # the default generator does not disturb g2
    np.testing.assert_array_equal(values(mt.randn(4, generator=g2)), a)
    assert g1.initial_seed() == 5


def test_initial_seed_and_seed():
    mt.manual_seed(99)
    assert mt.initial_seed() == 99
    s = mt.seed()
    assert isinstance(s, int) and mt.initial_seed() == s


# ---------------------------------------------------------------- gradient clipping
CLIP = [(1.0, 2.0), (0.1, float("inf")), (5.0, 1.0), (1e6, 2.0)]


@pytest.mark.parametrize("max_norm,norm_type", CLIP, ids=["l2", "inf", "l1", "no_clip"])
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    clip_m = getattr(mt.nn.utils, "clip_grad_norm_", None)
    if clip_m is None:
        pytest.skip("mindnlp_shim.torch.nn.utils.clip_grad_norm_ is missing")
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (5,), (2, 2, 2))]
    results = []
    for T, clip in ((mt, clip_m), (rt, rt.nn.utils.clip_grad_norm_)):
        params = [T.nn.Parameter(T.zeros(a.shape)) for a in arrays] + [T.nn.Parameter(T.zeros(2))]
        for p, a in zip(params, arrays):
            p.grad = T.tensor(a)
        total = clip(params, max_norm, norm_type=norm_type)
        results.append((total, [p.grad for p in params[:3]], params[3].grad))
    (tm, gm, none_m), (tr, gr, none_r) = results
    assert none_m is None and none_r is None
    assert_same_tensor(tm, tr, rtol=1e-6)
    for a, b in zip(gm, gr):
        assert_same_tensor(a, b, rtol=1e-6)


def test_clip_grad_norm_nonfinite():
    clip_m = getattr(mt.nn.utils, "clip_grad_norm_", None)
    if clip_m is None:
        pytest.skip("mindnlp_shim.torch.nn.utils.clip_grad_norm_ is missing")
    for T, clip in ((mt, clip_m), (rt, rt.nn.utils.clip_grad_norm_)):
        p = T.nn.Parameter(T.zeros(2))
        p.grad = T.tensor([float("inf"), 1.0])
        assert math.isinf(clip([p], 1.0).item())
        with pytest.raises(RuntimeError):
            clip([p], 1.0, error_if_nonfinite=True)


# ---------------------------------------------------------------- autograd
def test_backward_accumulates_and_grad_reset():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        assert values(x.grad).tolist() == [5.0, 7.0, 9.0]
        x.grad = None
        (x * 2).sum().backward()
        assert values(x.grad).tolist() == [2.0, 2.0, 2.0]


def test_retain_graph():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        np.testing.assert_allclose(values(x.grad), 2 * (np.exp([1.0, 2.0]) * np.array([2.0, 3.0])), rtol=1e-5)
        z = (x * x).sum()
        z.backward()
        with pytest.raises(RuntimeError):
            z.backward()


def test_autograd_grad_double_backward():
    results = []
    for T in (mt, rt):
        x = T.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = (x ** 3 + x.sin()).sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        assert g.requires_grad and x.grad is None
        (h,) = T.autograd.grad(g.sum(), x)
        results.append((values(g), values(h)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)


def test_double_backward_into_grad():
    """`create_graph=True` backward, then a penalty on the gradient (gradient-penalty style)."""
    results = []
    for T in (mt, rt):
        x = T.tensor([0.5, -1.5, 2.0], requires_grad=True)
        (g,) = T.autograd.grad((x ** 3).sum(), x, create_graph=True)
        (g ** 2).sum().backward()
        results.append(values(x.grad))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)  # d/dx sum((3x^2)^2) = 36 x^3


def test_autograd_grad_options():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        u = T.tensor([3.0], requires_grad=True)
        y = (x * 2).sum()
        with pytest.raises(RuntimeError):
            T.autograd.grad(y, [x, u], retain_graph=True)
        gx, gu = T.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True)
        assert gu is None and values(gx).tolist() == [2.0, 2.0]
        gx, gu = T.autograd.grad(y, [x, u], materialize_grads=True, retain_graph=True)
        assert values(gu).tolist() == [0.0]
        (gy,) = T.autograd.grad(x * 3, x, grad_outputs=T.tensor([1.0, -1.0]))
        assert values(gy).tolist() == [3.0, -3.0]
        z = x * 2
        (gz,) = T.autograd.grad((z * z).sum(), z)  # gradient with respect to a non-leaf
        assert values(gz).tolist() == [4.0, 8.0]


def test_backward_of_non_scalar_needs_gradient():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            (x * 2).backward()
        (x * 2).backward(T.tensor([1.0, 0.5]))
        assert values(x.grad).tolist() == [2.0, 1.0]
        with pytest.raises(RuntimeError):
            T.tensor([1.0]).sum().backward()


def test_backward_inputs_restricts_accumulation():
    for T in (rt, mt):
        a = T.tensor([1.0], requires_grad=True)
        b = T.tensor([2.0], requires_grad=True)
        (a * b).sum().backward(inputs=[a])
        assert values(a.grad).tolist() == [2.0] and b.grad is None
        T.autograd.backward([(a * 3).sum(), (b * 4).sum()])
        assert values(a.grad).tolist() == [5.0] and values(b.grad).tolist() == [4.0]


def test_no_grad_enable_grad_set_grad_enabled():
    for T in (rt, mt):
        x = T.tensor([1.0], requires_grad=True)
        with T.no_grad():
            y = x * 2
            assert not T.is_grad_enabled()
            with T.enable_grad():
                z = x * 2
        assert not y.requires_grad and y.grad_fn is None and z.requires_grad
        with T.set_grad_enabled(False):
            assert not (x * 2).requires_grad
        assert T.is_grad_enabled()

        @T.no_grad()
        def decorated(v):
            return v * 2

        assert not decorated(x).requires_grad
        with T.inference_mode():
            assert not (x * 2).requires_grad


def test_requires_grad_rules():
    for T in (rt, mt):
        with pytest.raises(RuntimeError):
            T.tensor([1, 2]).requires_grad_()
        with pytest.raises(RuntimeError):
            T.tensor([True]).requires_grad = True
        x = T.tensor([1.0]).requires_grad_()
        assert x.requires_grad and x.is_leaf and x.grad_fn is None
        y = x * 2
        assert y.requires_grad and not y.is_leaf and y.grad_fn is not None
        with pytest.raises(RuntimeError):
            y.requires_grad_(False)
        assert not (x > 0).requires_grad and not x.long().requires_grad
        assert x.double().requires_grad
        x.requires_grad_(False)
        assert not (x * 2).requires_grad


def test_detach():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        d = (x * 2).detach()
        assert not d.requires_grad and d.is_leaf and d.grad_fn is None
        assert values(d).tolist() == [2.0, 4.0]
        y = (x * d).sum()
        y.backward()
        assert values(x.grad).tolist() == [2.0, 4.0]
        w = T.tensor([3.0], requires_grad=True)
        w.detach_()
        assert not w.requires_grad


def test_retain_grad_and_non_leaf_grad():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        h.retain_grad()
        k = x * 5
        (h * h + k).sum().backward()
        assert values(h.grad).tolist() == [6.0, 12.0]
        assert values(x.grad).tolist() == [23.0, 41.0]
        assert k.grad is None


def test_register_hook():
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        handle = x.register_hook(lambda g: seen.append(values(g).tolist()))
        h = x * 3
        h.register_hook(lambda g: g * 10)  # replaces the gradient flowing further back
        h.sum().backward()
        assert seen == [[30.0, 30.0]] and values(x.grad).tolist() == [30.0, 30.0]
        handle.remove()
        x.grad = None
        (x * 2).sum().backward()
        assert seen == [[30.0, 30.0]] and values(x.grad).tolist() == [2.0, 2.0]


def test_grad_assignment_checks_shape():
    for T in (rt, mt):
        x = T.zeros(2, requires_grad=True)
        x.grad = T.ones(2)
        (x * 2).sum().backward()
        assert values(x.grad).tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError):
            x.grad = T.ones(3)


def test_custom_function():
    results = []
    for T in (mt, rt):
        class Cube(T.autograd.Function):
            @staticmethod
            def forward(ctx, v):
                ctx.save_for_backward(v)
                return v ** 3

            @staticmethod
            def backward(ctx, grad):
                (v,) = ctx.saved_tensors
                return grad * 3 * v ** 2

        x = T.tensor([1.0, -2.0], requires_grad=True)
        (Cube.apply(x) * T.tensor([1.0, 2.0])).sum().backward()
        results.append(values(x.grad))
    np.testing.assert_allclose(results[0], results[1])


# ---------------------------------------------------------------- torch._check family
CHECK_CALLS = {
    "check_true": lambda T: T._check(True),
    "check_false_default_message": lambda T: T._check(False),
    "check_false_message": lambda T: T._check(False, lambda: "sizes differ"),
    "check_not_bool": lambda T: T._check(T.tensor(True)),
    "check_with_value_error": lambda T: T._check_with(ValueError, 1 > 2, lambda: "bad value"),
    "check_index": lambda T: T._check_index(False, lambda: "out of range"),
    "check_value": lambda T: T._check_value(False, lambda: "v"),
    "check_type": lambda T: T._check_type(False, lambda: "t"),
    "check_not_implemented": lambda T: T._check_not_implemented(False, lambda: "n"),
    "tensor_all_true": lambda T: T._check_tensor_all(T.tensor([True, True])),
    "tensor_all_one_false": lambda T: T._check_tensor_all(T.tensor([[True], [False]]), lambda: "a row is False"),
    "tensor_all_with": lambda T: T._check_tensor_all_with(ValueError, T.tensor([1, 2]) > 1, lambda: "small"),
    "tensor_all_not_bool": lambda T: T._check_tensor_all(T.tensor([1, 1])),
}


@pytest.mark.parametrize("name", sorted(CHECK_CALLS))
def test_check_functions_raise_like_torch(name):
    """transformers' torch_compilable_check calls these in model forwards (T5 sequence classification)."""
    def outcome(T):
        try:
            CHECK_CALLS[name](T)
        except Exception as exc:  # noqa: BLE001  (the exception type is what is compared)
            return type(exc), str(exc).split("\n")[0][:40]
        return None

    m, r = outcome(mt), outcome(rt)
    assert (m is None) == (r is None), (m, r)
    if r is not None:
        assert m[0] is r[0], (m, r)
        if r[0] is not TypeError:  # (torch's TypeError texts name its SymBool types)
            assert m[1] == r[1], (m, r)


def test_to_meta_gives_a_distinct_meta_tensor():
    # peft's low_cpu_mem_usage builds adapter weights with `param_cls(param.to("meta"), ...)` and checks for meta
    answers = []
    for T in (mt, rt):
        p = T.nn.Parameter(T.ones(2, 3))
        m = p.to("meta")
        n = p.to(device="meta", dtype=T.float16)
        answers.append([m.device.type, p.device.type, m is p, m.requires_grad, m.is_leaf, m.to("meta") is m,
                        tuple(m.shape), n.device.type, str(n.dtype), m.is_meta])
    assert answers[0] == answers[1]


def test_parameter_of_a_meta_tensor_stays_on_meta():
    # accelerate's init_empty_weights: `type(param)(param.to("meta"), requires_grad=...)`
    answers = []
    for T in (mt, rt):
        weight = T.nn.Linear(2, 3).weight
        rebuilt = T.nn.Parameter(weight.to("meta"), requires_grad=False)
        answers.append([rebuilt.device.type, rebuilt.requires_grad, isinstance(rebuilt, T.nn.Parameter)])
    assert answers[0] == answers[1] == [["meta", False, True]][0]
