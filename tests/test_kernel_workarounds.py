"""MindSpore kernels that answer wrongly without an error, each checked against real PyTorch where the shim
computes the op another way: Scatter keeps state between calls, MatMul over an empty contraction is
uninitialized, Sort rounds float64 through float32 and misplaces NaN, TopK skips NaN, float64 digamma and the
float64 derivatives of lgamma and hypot are float32-accurate, the backward of a stepped slice of an empty
tensor fails, and a dim out of range wrapped around instead of raising."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _np(t):
    return t.detach().float().numpy() if t.dtype in (mt.bfloat16, getattr(rt, "bfloat16", None)) else \
        t.detach().numpy()


# ---------------------------------------------------------------- scatter
def _scatter_1d():
    x = mt.tensor([0.8937, 3.985, 3.6472, -1.8622])
    return mt.scatter(x, 0, mt.tensor([0, 1, 3]), mt.tensor([2.0267, 1.0341, 0.1052])).numpy()


@pytest.mark.parametrize("shape,index_shape,dim", [((4, 4, 1), (2, 4, 1), 2), ((4, 4), (2, 4), 0),
                                                   ((2, 3), (2, 3), 1)])
def test_scatter_after_a_multi_dim_scatter_writes_every_element(shape, index_shape, dim):
    before = _scatter_1d()
    mt.scatter(mt.randn(*shape), dim, mt.zeros(index_shape, dtype=mt.int64), -2.0)
    after = _scatter_1d()
    expected = np.array([2.0267, 1.0341, 3.6472, 0.1052], np.float32)
    np.testing.assert_array_equal(before, expected)
    np.testing.assert_array_equal(after, expected)
    placed = mt.slice_scatter(mt.zeros(4), mt.ones(2), 0, 1, 3).numpy()  # (also a scatter inside)
    np.testing.assert_array_equal(placed, [0, 1, 1, 0])


def test_scatter_with_an_empty_index_returns_the_input():
    x = mt.randn(3, requires_grad=True)
    out = mt.scatter(x, 0, mt.zeros(0, dtype=mt.int64), mt.zeros(0))
    np.testing.assert_array_equal(out.detach().numpy(), x.detach().numpy())
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(3, np.float32))


# ---------------------------------------------------------------- products with an empty operand
EMPTY_PRODUCTS = [((2, 0), (0, 3)), ((0, 3), (3, 4)), ((2, 3), (3, 0)), ((0,), (0,)), ((3, 0), (0,)),
                  ((0,), (0, 2)), ((5, 2, 0), (0, 3)), ((4, 0, 2), (2, 3))]


@pytest.mark.parametrize("a_shape,b_shape", EMPTY_PRODUCTS)
def test_matmul_with_an_empty_operand_is_zeros_with_zero_gradients(a_shape, b_shape):
    for _ in range(3):  # (an uninitialized result agrees by chance now and then)
        mt.randn(64, 64) @ mt.randn(64, 64)  # leaves non-zero memory behind in the allocator
        a = mt.randn(*a_shape, requires_grad=True)
        b = mt.randn(*b_shape, requires_grad=True)
        out = mt.matmul(a, b)
        ref = rt.matmul(rt.zeros(a_shape), rt.zeros(b_shape))
        assert tuple(out.shape) == tuple(ref.shape)
        np.testing.assert_array_equal(out.detach().numpy(), ref.numpy())
        (out * mt.ones(out.shape)).sum().backward()
        np.testing.assert_array_equal(a.grad.numpy(), np.zeros(a_shape, np.float32))
        np.testing.assert_array_equal(b.grad.numpy(), np.zeros(b_shape, np.float32))


def test_mm_bmm_addmm_and_linear_with_empty_operands():
    for _ in range(3):
        mt.randn(64, 64) @ mt.randn(64, 64)
        np.testing.assert_array_equal(mt.mm(mt.randn(3, 0), mt.randn(0, 2)).numpy(), np.zeros((3, 2)))
        np.testing.assert_array_equal(mt.bmm(mt.randn(2, 3, 0), mt.randn(2, 0, 2)).numpy(), np.zeros((2, 3, 2)))
        np.testing.assert_array_equal(mt.addmm(mt.ones(3, 2), mt.randn(3, 0), mt.randn(0, 2)).numpy(),
                                      np.ones((3, 2)))
        lin = mt.nn.Linear(3, 4)
        lin(mt.randn(0, 3)).sum().backward()  # an empty batch: the parameters' gradients are zeros
        np.testing.assert_array_equal(lin.weight.grad.numpy(), np.zeros((4, 3)))
        np.testing.assert_array_equal(lin.bias.grad.numpy(), np.zeros(4))
        empty_in = mt.nn.Linear(0, 4)
        np.testing.assert_array_equal(empty_in(mt.randn(2, 0)).detach().numpy(),
                                      np.broadcast_to(empty_in.bias.detach().numpy(), (2, 4)))
    with pytest.raises(RuntimeError):
        mt.matmul(mt.randn(2, 0), mt.randn(3, 2))


# ---------------------------------------------------------------- sort, argsort, msort, topk
SORT_INPUTS = {
    "float64 digits and extremes": np.array([1e300, -1e-300, 0.1234567890123456, -0.98765432109876543, 5e-324]),
    "nan and infinities": np.array([1.0, np.nan, -1.0, 1.0, -np.inf, 1.0, np.inf, np.nan]),
    "ties": np.array([2.0, 1.0, 2.0, 1.0, 2.0, 0.0]),
    "int64 beyond float precision": np.array([2 ** 40 + 3, 5, 2 ** 40 + 1, -7, 2 ** 53 - 1, 2 ** 53 - 2]),
}


@pytest.mark.parametrize("name", sorted(SORT_INPUTS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch(name, dtype, descending):
    values = SORT_INPUTS[name]
    if dtype == "int64" and not np.all(np.isfinite(values)):
        pytest.skip("no NaN or infinity in an integer tensor")
    array = np.stack([values, values[::-1]]).astype(dtype)
    for dim in (1, 0):
        got = mt.sort(mt.tensor(array), dim=dim, descending=descending, stable=True)
        ref = rt.sort(rt.tensor(array), dim=dim, descending=descending, stable=True)
        np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
        np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
        assert str(got.indices.dtype) == "torch.int64"
    np.testing.assert_array_equal(mt.msort(mt.tensor(array)).numpy(), rt.msort(rt.tensor(array)).numpy())
    np.testing.assert_array_equal(mt.argsort(mt.tensor(array), descending=descending, stable=True).numpy(),
                                  rt.argsort(rt.tensor(array), descending=descending, stable=True).numpy())


def test_sort_keeps_the_gradient_and_zero_dim_inputs():
    x = mt.tensor([[3.0, 1.0, 2.0]], dtype=mt.float64, requires_grad=True)
    values = mt.sort(x, descending=True).values
    (values * mt.tensor([[1.0, 2.0, 3.0]], dtype=mt.float64)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 3.0, 2.0]])
    zero_dim = mt.sort(mt.tensor(2.5))
    assert tuple(zero_dim.values.shape) == () and zero_dim.indices.item() == 0
    with pytest.raises(IndexError):
        mt.sort(mt.randn(2, 3), dim=2)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_ranks_nan_like_torch(largest):
    array = np.array([[1.0, np.nan, -1.0, 3.0, -np.inf], [np.nan, 2.0, np.nan, 0.5, 1.0]], np.float32)
    for k in (1, 2, 4):
        got = mt.topk(mt.tensor(array), k, largest=largest)
        ref = rt.topk(rt.tensor(array), k, largest=largest)
        np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
        # (equal values, NaN among them, may come from either position: the indices must point at the values)
        np.testing.assert_array_equal(np.take_along_axis(array, got.indices.numpy(), -1), ref.values.numpy())


# ---------------------------------------------------------------- float64 special functions
GAMMA_POINTS = np.array([0.0, -0.0, -1.0, -2.5, -0.3, 1e-300, 3e-8, 0.3, 0.5, 1.0, 1.5, 2.5, 7.0, 9.99, 10.0,
                         12.0, 1e10, np.inf, -np.inf, np.nan, -1e10 - 0.5])


def test_float64_digamma_matches_torch():
    got = mt.digamma(mt.tensor(GAMMA_POINTS)).numpy()
    ref = rt.digamma(rt.tensor(GAMMA_POINTS)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-13, atol=0)


def test_float64_lgamma_derivative_is_float64_accurate():
    points = np.array([0.3, 2.5, 7.0, -2.5, 12.0, 1e5])
    x = mt.tensor(points, requires_grad=True)
    mt.lgamma(x).sum().backward()
    xr = rt.tensor(points, requires_grad=True)
    rt.lgamma(xr).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xr.grad.numpy(), rtol=1e-13)


@pytest.mark.parametrize("form", ["digamma backward", "polygamma(1, x)"])
def test_float64_trigamma_is_torchs(form):
    # torch's ψ' stops its series early: about 1e-10 from the exact values (mpmath, 30 digits) and huge but
    # finite at the negative integers; the shim gives torch's values, within an ulp
    points = [0.3, 2.5, 7.0, -2.5, -0.3, 12.0, 2.3432, -1.0, -2.0, 0.0, -0.0, 1e-9, 25.0, np.inf, -np.inf, np.nan]
    exact = [12.2453645461077313011666359605, 0.490357756100234864972801055494, 0.153545177959337547583526277757,
             9.53924664498912375386168994438, 13.9451602678057224889014082181, 0.0869018728717683907503001804618]
    values = []
    for T in (mt, rt):
        x = T.tensor(points, dtype=T.float64, requires_grad=form == "digamma backward")
        if form == "digamma backward":
            T.digamma(x).sum().backward()
            values.append(x.grad.numpy())
        else:
            values.append(T.polygamma(1, x).numpy())
    ours, theirs = values
    np.testing.assert_allclose(ours, theirs, rtol=4e-16, atol=0)
    np.testing.assert_allclose(ours[:6], exact, rtol=1e-9)


def test_float64_hypot_gradients_with_broadcasting():
    a = np.array([[0.3, -2.5, 1e-9, 1e200]])
    b = np.array([[0.7], [0.1], [-3.0]])
    grads = []
    for T in (mt, rt):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        out = T.hypot(x, y)
        (out * T.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        grads.append((out.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
    for got, ref in zip(*grads):
        np.testing.assert_allclose(got, ref, rtol=1e-13)


# ---------------------------------------------------------------- empty stepped slices, dims, bf16 backward
@pytest.mark.parametrize("shape", [(3, 0), (0, 4), (2, 0, 3)])
def test_backward_through_a_stepped_slice_of_an_empty_tensor(shape):
    base = mt.zeros(shape, requires_grad=True)
    (base[..., ::2] * 2).sum().backward()
    assert tuple(base.grad.shape) == shape


@pytest.mark.parametrize("call", [lambda x: x.chunk(2, dim=-4), lambda x: x.chunk(2, dim=3),
                                  lambda x: mt.narrow(x, 3, 0, 1), lambda x: x.flip(5),
                                  lambda x: x.split(1, dim=-4),
                                  lambda x: mt.select_scatter(x, x[0], 3, 0)])
def test_a_dim_out_of_range_raises_index_error(call):
    with pytest.raises(IndexError, match="Dimension out of range"):
        call(mt.zeros(2, 3, 4))


def test_backward_from_a_bfloat16_scalar():
    x = mt.randn(3, 4, dtype=mt.bfloat16, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.dtype == mt.bfloat16
    np.testing.assert_array_equal(x.grad.float().numpy(), np.full((3, 4), 2.0, np.float32))


def test_softmax_family_of_a_zero_dim_tensor_and_dims_out_of_range():
    import mindnlp_shim.torch.nn.functional as F

    for fn, expected in ((F.softmax, 1.0), (F.softmin, 1.0), (F.log_softmax, 0.0)):
        x = mt.tensor(0.25, requires_grad=True)
        y = fn(x, 0, dtype=mt.float64)
        assert tuple(y.shape) == () and y.dtype == mt.float64 and y.item() == expected
        y.backward()
        assert x.grad.item() == 0.0
        with pytest.raises(IndexError, match="Dimension out of range"):
            fn(mt.zeros(2, 3), -3)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_operand_broadcast_against_an_empty_tensor_gets_a_zero_gradient(dtype):
    # the broadcast operand's gradient is a sum over an empty tensor: MindSpore's ReduceSum leaves it
    # uninitialized (nonzero memory from earlier ops shows through)
    dt = getattr(mt, dtype)
    for _ in range(5):
        mt.randn(30, 30) @ mt.randn(30, 30)
        empty = mt.zeros(3, 0, dtype=dt, requires_grad=True)
        end = mt.tensor([1.2346], dtype=dt, requires_grad=True)
        weight = mt.tensor(0.081, dtype=dt, requires_grad=True)
        (mt.lerp(empty, end, weight).float() * mt.zeros(3, 0)).sum().backward()
        assert end.grad.float().numpy()[0] == 0 and weight.grad.float().item() == 0
        for op in (mt.add, mt.sub, mt.mul, mt.div, mt.atan2):
            other = mt.tensor([2.0], dtype=dt, requires_grad=True)
            op(empty.detach(), other).sum().backward()
            assert other.grad.float().numpy()[0] == 0, op.__name__


def test_logsumexp_checks_its_dims():
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.logsumexp(mt.zeros(0, 0), 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.logsumexp(mt.zeros(2, 3), (0, -3))


def test_cat_of_one_tensor_is_a_new_tensor():
    x = mt.tensor([1.0, 2.0])
    for tensors in ([x], [mt.zeros(0), x], [x, mt.zeros(0, dtype=mt.int64)]):
        out = mt.cat(tensors)
        out.add_(1)
        np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])  # torch's cat never returns its input


@pytest.mark.parametrize("method", ["add_", "true_divide_", "mul_", "remainder_", "__iadd__", "__itruediv__"])
def test_inplace_op_refuses_a_result_larger_than_its_receiver(method):
    x = mt.ones(1)
    with pytest.raises(RuntimeError, match=r"output with shape \[1\] doesn't match the broadcast shape \[1, 1\]"):
        getattr(x, method)(mt.ones(1, 1))
    y = mt.ones(2, 3)
    getattr(y, method)(mt.full((3,), 2.0))  # broadcasting to the receiver's shape stays allowed
    assert tuple(y.shape) == (2, 3)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_where_and_xlogy_with_an_empty_result_give_zero_gradients(dtype):
    dt = getattr(mt, dtype)
    for _ in range(5):
        mt.randn(30, 30) @ mt.randn(30, 30)
        x = mt.zeros(0, 3, dtype=dt, requires_grad=True)
        y = mt.tensor(0.7, dtype=dt, requires_grad=True)
        (mt.xlogy(x, y).float() * mt.zeros(0, 3)).sum().backward()
        assert y.grad.float().item() == 0
        c = mt.tensor(1.5, dtype=dt, requires_grad=True)
        mt.where(mt.zeros(0, 3, dtype=mt.bool), c, mt.zeros(0, 3, dtype=dt)).sum().backward()
        assert c.grad.float().item() == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_gradients_after_rows_of_one_element(dtype):
    # MindSpore's CPU softmax backward, once run on rows of one element, gives wrong gradients for later inputs
    # of the same rank: the shim answers one-element rows without that kernel
    rng = np.random.default_rng(3)
    for shape, dim in [((3, 1), -1), ((3, 5), -1), ((8, 16), -1), ((1,), 0), ((2,), 0), ((1, 4), 0), ((4, 2), 0)]:
        x, w = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
        results = []
        for T in (mt, rt):
            leaf = T.tensor(x, requires_grad=True)
            out = T.softmax(leaf, dim)
            (out * T.tensor(w)).sum().backward()
            results.append((_np(out), _np(leaf.grad)))
        (ours, our_grad), (theirs, their_grad) = results
        tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(ours, theirs, **tol, err_msg=str(shape))
        np.testing.assert_allclose(our_grad, their_grad, **tol, err_msg=str(shape))
    inf_rows = mt.softmax(mt.tensor([[float("inf")], [float("nan")], [-float("inf")], [2.0]]), -1)
    np.testing.assert_array_equal(_np(inf_rows), _np(rt.softmax(rt.tensor([[float("inf")], [float("nan")],
                                                                             [-float("inf")], [2.0]]), -1)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["softmax", "softmin_with_dtype", "log_softmax"])
def test_softmax_gradients_after_an_empty_input(dtype, form):
    # MindSpore's CPU softmax backward, once run on an empty input, gives zero gradients for every later input of
    # that dtype: the shim answers empty inputs without that kernel
    rng = np.random.default_rng(5)

    def run(T, x, w, dim):
        leaf = T.tensor(x, requires_grad=True)
        if form == "softmax":
            out = T.softmax(leaf, dim)
        elif form == "softmin_with_dtype":
            out = T.nn.functional.softmin(leaf, dim, dtype=T.float64)
        else:
            out = T.log_softmax(leaf, dim)
        (out * T.tensor(w.astype(np.float64) if form == "softmin_with_dtype" else w)).sum().backward()
        return _np(out), _np(leaf.grad)

    for shape, dim in [((4, 0), 0), ((0, 3), -1), ((3, 1), 0), ((3, 5), -1), ((2, 0, 3), 2), ((4, 6), 0)]:
        x, w = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
        (ours, our_grad), (theirs, their_grad) = run(mt, x, w, dim), run(rt, x, w, dim)
        tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(ours, theirs, **tol, err_msg=str(shape))
        np.testing.assert_allclose(our_grad, their_grad, **tol, err_msg=str(shape))
        assert our_grad.shape == shape


def test_softmax_rows_of_all_minus_inf_or_with_plus_inf_are_nan_and_leave_other_rows_exact():
    # MindSpore's float32 last-axis kernel corrupts the rows after a row of all -inf
    inf = float("inf")
    rows = [[1.0, 2.0, 3.0], [-inf, -inf, -inf], [0.5, -inf, 2.0], [1, 1, 1], [inf, 1, 2], [-3.4e38, -3.4e38, 0]]
    weights = np.tile(np.array([[0.3, -0.2, 0.7]], np.float32), (len(rows), 1))
    results = []
    for T in (mt, rt):
        x = T.tensor(rows, requires_grad=True)
        out = T.softmax(x, -1)
        (out * T.tensor(weights)).sum().backward()
        results.append((_np(out), _np(x.grad)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-7, equal_nan=True)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name,kwargs", [("round", {}), ("round", {"decimals": 1}), ("round", {"decimals": -1}),
                                         ("ceil", {}), ("sign", {}), ("floor", {}), ("trunc", {})])
def test_piecewise_constant_ops_give_torchs_values_and_zero_gradients(name, kwargs, dtype):
    # MindSpore's Round, Ceil and Sign record no gradient: the input's .grad stayed None where torch's is zeros
    values = np.array([[-0.4404, 0.43, -2.5], [1.25, 2.5, 0.0]], dtype)
    results = []
    for T in (mt, rt):
        x = T.tensor(values, requires_grad=True)
        out = getattr(T, name)(x, **kwargs)
        (out.float() * 2).sum().backward()
        results.append((_np(out), x.grad))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] is not None, f"{name}: no gradient reached the input"
    np.testing.assert_array_equal(_np(results[0][1]), _np(results[1][1]))


def test_inplace_float64_erfinv_of_a_zero_dim_tensor():
    outs = []
    for T in (mt, rt):
        leaf = T.tensor(0.5197, dtype=T.float64, requires_grad=True)
        x = leaf.clone()
        x.erfinv_()
        x.backward()
        outs.append((x.item(), leaf.grad.item()))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_stacking_one_empty_tensor_that_requires_grad_stays_in_the_graph(dtype):
    for T in (mt, rt):
        empty = T.zeros(0, 3, dtype=getattr(T, dtype), requires_grad=True)
        results = [T.cat([empty]), T.hstack([empty]), T.vstack([empty])]
        assert [r.requires_grad for r in results] == [True, True, True], T.__name__
        sum(r.sum() for r in results).backward()
        assert tuple(empty.grad.shape) == (0, 3)
        with T.no_grad():
            assert not T.cat([empty]).requires_grad
