"""Calls torch refuses and the shim answered (or answered wrongly), and inputs MindSpore's kernels fail on, against
real torch. Refused: a group count that does not divide the channels (the groups were taken across channels),
float scalings of integer `addr`, an empty `quantile`, `cumsum_` into another dtype, ops without an integer or
bool kernel in torch (`abs`, `median`, `argmax`, `trace`, `dot`, `//` of bools; `frac`, `logaddexp`, `nextafter`,
`logcumsumexp` of integers), `isclose` of bfloat16 with float32, `inverse` of a singular matrix (MindSpore's kernel
answered numbers), a tensor where a list of tensors belongs (`cat`, `stack`: its rows were taken). Answered: 1x1
and 0x0 matrices (`det`, `inverse`, `slogdet`), addcmul/addcdiv with gradients (their backward needed a missing
kernel), `cumsum` of empty tensors (MindSpore's kernel died of a division by zero), other 0-d and empty inputs
(`nonzero`, `max`/`min` along a dim, `roll`, `tril`, `repeat`, `flip`), and `zero_`/`fill_` of a bfloat16 tensor
inside the autograd graph; bool masks of another shape than the dims they index (rows were selected from a
mask too short). Each call gives torch's dtype, shape and values, or an error where torch raises one."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _cumsum_into(T, dtype):
    x = T.tensor([1.0, 2.0])
    return x.cumsum_(0, dtype=getattr(T, dtype))


CALLS = {
    "group_norm 4 channels in 3 groups": lambda T: T.nn.functional.group_norm(T.ones(2, 4, 3), 3),
    "group_norm one value per group": lambda T: T.nn.functional.group_norm(T.ones(1, 1), 1),
    "group_norm one value, aten form": lambda T: T.group_norm(T.ones(1, 1), 1),
    "group_norm 1-d input": lambda T: T.nn.functional.group_norm(T.ones(4), 2),
    "group_norm weight of another size": lambda T: T.nn.functional.group_norm(T.ones(1, 2, 2), 2, T.ones(3)),
    "group_norm bias of another size": lambda T: T.nn.functional.group_norm(T.ones(1, 2, 2), 2, None, T.ones(1)),
    "GroupNorm of constant groups": lambda T: T.nn.GroupNorm(2, 4)(T.ones(2, 4, 3)),
    "addr int64 alpha 0.5": lambda T: T.addr(T.tensor([[1, 2]]), T.tensor([1]), T.tensor([2, 3]), alpha=0.5),
    "addr int64 beta 2.0": lambda T: T.addr(T.tensor([[1, 2]]), T.tensor([1]), T.tensor([2, 3]), beta=2.0),
    "addr int64 alpha 2": lambda T: T.addr(T.tensor([[1, 2]]), T.tensor([1]), T.tensor([2, 3]), alpha=2),
    "addmv int64 alpha 0.5": lambda T: T.addmv(T.tensor([1]), T.tensor([[1, 2]]), T.tensor([1, 1]), alpha=0.5),
    "quantile of (0, 4) along -1": lambda T: T.quantile(T.zeros(0, 4), 0.5, dim=-1, keepdim=True),
    "quantile of (4, 0)": lambda T: T.quantile(T.zeros(4, 0), 0.5),
    "cumsum_ into float64": lambda T: _cumsum_into(T, "float64"),
    "cumsum_ into float32": lambda T: _cumsum_into(T, "float32"),
    "abs of bools": lambda T: T.abs(T.tensor([True, False])),
    "frac of int64": lambda T: T.frac(T.tensor([3, -4])),
    "frac of float32": lambda T: T.frac(T.tensor([3.25, -4.5])),
    "logaddexp of int64": lambda T: T.logaddexp(T.tensor([1, 2]), T.tensor([3, 4])),
    "logaddexp of int64 and 1.5": lambda T: T.logaddexp(T.tensor([1, 2]), T.tensor(1.5)),
    "logaddexp2 of int32": lambda T: T.logaddexp2(T.tensor([1], dtype=T.int32), T.tensor([3], dtype=T.int32)),
    "nextafter of int64": lambda T: T.nextafter(T.tensor([1, 2]), T.tensor([3, 0])),
    "logcumsumexp of int64": lambda T: T.logcumsumexp(T.tensor([1, 2]), 0),
    "logcumsumexp 0-d dim 1": lambda T: T.logcumsumexp(T.tensor(0.5), 1),
    "logcumsumexp 0-d dim -1": lambda T: T.logcumsumexp(T.tensor(0.5), -1),
    "logcumsumexp bfloat16": lambda T: T.logcumsumexp(T.tensor([0.5, 1.5, -2.0], dtype=T.bfloat16), 0),
    "isclose bfloat16 with float32": lambda T: T.isclose(T.tensor([0.5], dtype=T.bfloat16), T.tensor([0.5]),
                                                         equal_nan=True),
    "isclose bfloat16": lambda T: T.isclose(T.tensor([0.5, 1.0], dtype=T.bfloat16),
                                            T.tensor([0.5, 1.01], dtype=T.bfloat16)),
    "isclose of bools": lambda T: T.isclose(T.tensor([True, False]), T.tensor([False, False])),
    "allclose bfloat16 with float64": lambda T: T.allclose(T.tensor([0.5], dtype=T.bfloat16),
                                                           T.tensor([0.5], dtype=T.float64)),
    **{f"cumsum of {shape} along {dim}": (lambda shape, dim: lambda T: T.cumsum(T.zeros(shape), dim))(shape, dim)
       for shape in [(0, 1), (1, 0), (0,), (2, 0, 3)] for dim in range(-len(shape), len(shape) + 1)},
    "cumsum of an empty int32": lambda T: T.zeros(0, 3, dtype=T.int32).cumsum(1),
    # bools where torch has no kernel (the shim's host paths and MindSpore's kernels answered)
    **{f"{name} of bools": (lambda fn: lambda T: fn(T, T.tensor([True, False, True])))(fn) for name, fn in {
        "median": lambda T, b: T.median(b), "median along 0": lambda T, b: T.median(b, 0).values,
        "nanmedian": lambda T, b: T.nanmedian(b), "kthvalue": lambda T, b: T.kthvalue(b, 1).values,
        "argmax": lambda T, b: T.argmax(b), "argmin along 0": lambda T, b: T.argmin(b, 0),
        "cov": lambda T, b: T.cov(b), "trapezoid": lambda T, b: T.trapezoid(b),
        "cumulative_trapezoid": lambda T, b: T.cumulative_trapezoid(b), "dot": lambda T, b: T.dot(b, b),
        "floor_divide": lambda T, b: b // b, "logsumexp": lambda T, b: T.logsumexp(b, 0),
        "max along 0": lambda T, b: T.max(b, 0).values, "sum": lambda T, b: T.sum(b),
    }.items()},
    "trace of bools": lambda T: T.trace(T.tensor([[True, False], [False, True]])),
    "trace of int8": lambda T: T.trace(T.tensor([[100, 0], [0, 100]], dtype=T.int8)),
    "logsumexp of int64": lambda T: T.logsumexp(T.tensor([1, 2]), 0),
    # a tensor where torch wants a sequence of tensors (iterating it took its rows)
    **{f"{name} of a tensor": (lambda name: lambda T: getattr(T, name)(T.ones(2, 3)))(name)
       for name in ("cat", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack")},
    "cat of a tuple": lambda T: T.cat((T.ones(1, 3), T.zeros(2, 3))),
    # 0-d and empty inputs MindSpore's kernels refuse
    "nonzero 0-d": lambda T: T.nonzero(T.tensor(0.5)),
    "nonzero 0-d zero": lambda T: T.nonzero(T.tensor(0.0)),
    "nonzero 0-d as_tuple": lambda T: T.nonzero(T.tensor(0.5), as_tuple=True)[0],
    "where 0-d": lambda T: T.where(T.tensor(2))[0],
    "argwhere 0-d": lambda T: T.argwhere(T.tensor(True)),
    "max along the last dim of (2, 0, 3)": lambda T: T.max(T.zeros(2, 0, 3), dim=-1, keepdim=True).values,
    "max indices of (2, 0, 3)": lambda T: T.max(T.zeros(2, 0, 3), dim=2).indices,
    "min of (0, 3) along 1": lambda T: T.min(T.zeros(0, 3, dtype=T.int32), dim=1).values,
    "max of (2, 0) along the empty dim": lambda T: T.max(T.zeros(2, 0), dim=1).values,
    "roll of (4, 0, 4)": lambda T: T.roll(T.zeros(4, 0, 4), 0),
    "roll of (4, 0, 4) along 0": lambda T: T.roll(T.zeros(4, 0, 4), 1, 0),
    "tril of (3, 0)": lambda T: T.tril(T.zeros(3, 0), 1),
    "triu of (1, 0, 4)": lambda T: T.triu(T.zeros(1, 0, 4), 2),
    "repeat into an empty result": lambda T: T.zeros(3, 1, 0).repeat(1, 0, 2, 0),
    "repeat of a row 0 times": lambda T: T.ones(3).repeat(0, 2),
    "flip 0-d": lambda T: T.flip(T.tensor(1.5), [0]),
    "zero_ of a bfloat16 tensor in the graph": lambda T: _bf16_write_in_graph(T, lambda y: y.zero_()),
    "fill_ of a bfloat16 tensor in the graph": lambda T: _bf16_write_in_graph(T, lambda y: y.fill_(2.0)),
    **{f"{fn} of {shape} along {dim}": (lambda fn, shape, dim: lambda T: T.stack(
        [t.float().sum() for t in getattr(T, fn)(T.zeros(shape), return_inverse=True, return_counts=True, dim=dim)]
    ))(fn, shape, dim) for fn in ("unique", "unique_consecutive")
       for shape, dim in [((0,), 0), ((0, 3), 0), ((1, 0, 4), 0), ((2, 0), 1), ((), 0)]},
    "igamma of a tensor and a number": lambda T: T.igamma(T.tensor([1.0]), 2),
    "igammac of a number and a tensor": lambda T: T.igammac(2.0, T.tensor([1.0])),
    "norm 0 of a tensor in the graph": lambda T: T.tensor(float(T.norm(T.tensor([0.0, 2.0], requires_grad=True),
                                                                      0).requires_grad)),
    "topk 0": lambda T: T.topk(T.zeros(3), 0).values,
    "topk 0 along 0 of int32": lambda T: T.cat([t.long().reshape(-1) for t in T.topk(T.zeros(3, 2, dtype=T.int32),
                                                                                  0, dim=0)]),
    "argmax along 1 of (0, 3)": lambda T: T.argmax(T.zeros(0, 3), 1),
    "argmax along 0 of (0, 3)": lambda T: T.argmax(T.zeros(0, 3), 0),
    "argmin along 0 of (2, 0), keepdim": lambda T: T.argmin(T.zeros(2, 0), 0, keepdim=True),
    "argmax of (0, 3)": lambda T: T.argmax(T.zeros(0, 3)),
    "layer_norm of no rows": lambda T: T.nn.functional.layer_norm(T.zeros(0, 4), (4,)),
    "LayerNorm of no rows, in the graph": lambda T: T.tensor(float(T.nn.LayerNorm(4)(T.zeros(2, 0, 4)).requires_grad)),
    "GroupNorm of no samples, in the graph": lambda T: T.tensor(float(T.nn.GroupNorm(2, 4)(T.zeros(0, 4, 2))
                                                                     .requires_grad)),
    # a bool mask covers dims of exactly its sizes (a mask of 2 over 3 rows selected from the first 2)
    **{f"mask {name}": (lambda fn: lambda T: fn(T, T.arange(12.0).reshape(3, 4)))(fn) for name, fn in {
        "of 2 over 3 rows": lambda T, x: x[T.tensor([True, False])],
        "of 3 over 3 rows": lambda T, x: x[T.tensor([True, False, True])],
        "list of 2 bools": lambda T, x: x[[True, False]],
        "of (3, 3) over (3, 4)": lambda T, x: x[T.ones(3, 3, dtype=T.bool)],
        "of (3, 4)": lambda T, x: x[T.ones(3, 4, dtype=T.bool)],
        "after a slice, of 3 over 4": lambda T, x: x[:, T.tensor([True, False, True])],
        "after an ellipsis, of 4": lambda T, x: x[..., T.tensor([True, False, True, True])],
        "after an ellipsis, of 2": lambda T, x: x[..., T.tensor([True, False])],
        "after None": lambda T, x: x[None, T.tensor([True, False, True])],
        "after an int, of 2 over 4": lambda T, x: x[1, T.tensor([True, False])],
        "0-d": lambda T, x: x[T.tensor(True)],
        "of 2 over 3 rows, in the graph": lambda T, x: x.requires_grad_()[T.tensor([True, False])],
        "of 2 over 3 rows, written": lambda T, x: x.__setitem__(T.tensor([True, False]), 1.0),
    }.items()},
    "mask of 299 over 300 rows of a large tensor": lambda T: T.zeros(300, 400)[T.ones(299, dtype=T.bool)],
    # torch.inverse is linalg.inv: a singular matrix raises (MindSpore's MatrixInverse answered numbers)
    "inverse of a singular matrix": lambda T: T.inverse(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "Tensor.inverse of a singular matrix": lambda T: T.tensor([[1.0, 2.0], [2.0, 4.0]]).inverse(),
    "inverse of a batch with a singular matrix": lambda T: T.inverse(T.stack([T.eye(2), T.ones(2, 2)])),
    "matrix_power -1 of a singular matrix": lambda T: T.matrix_power(T.ones(2, 2), -1),
    "inverse of an int64 matrix": lambda T: T.inverse(T.tensor([[1, 2], [3, 4]])),
    "inverse": lambda T: T.inverse(T.tensor([[2.0, 0.0], [0.0, 4.0]])),
    # 1x1 and 0x0 matrices (MindSpore's kernels refuse matrices under 2x2)
    "inverse 1x1": lambda T: T.inverse(T.tensor([[2.0]])),
    "inverse 0x0": lambda T: T.inverse(T.zeros(0, 0)),
    "det 1x1": lambda T: T.det(T.tensor([[2.0]])),
    "det of a batch of 1x1": lambda T: T.det(T.tensor([[[2.0]], [[-3.0]]])),
    "det 0x0": lambda T: T.det(T.zeros(0, 0)),
    "linalg.det 1x1": lambda T: T.linalg.det(T.tensor([[-0.5]])),
    "slogdet 1x1": lambda T: T.stack(list(T.slogdet(T.tensor([[-2.0]])))),
    "linalg.slogdet 1x1": lambda T: T.stack(list(T.linalg.slogdet(T.tensor([[4.0]])))),
    "logdet 1x1": lambda T: T.logdet(T.tensor([[4.0]])),
    "logdet 1x1 negative": lambda T: T.logdet(T.tensor([[-4.0]])),
    "cholesky_inverse 1x1": lambda T: T.cholesky_inverse(T.tensor([[2.0]])),
    "cholesky_solve 1x1": lambda T: T.cholesky_solve(T.tensor([[1.0]]), T.tensor([[2.0]])),
    "det 1x1 gradient": lambda T: _grad_of(T, T.det, [[2.0]]),
    "det gradient": lambda T: _grad_of(T, T.det, [[2.0, 0.0], [0.0, 4.0]]),
    "det gradient at a singular matrix": lambda T: _grad_of(T, T.det, [[1.0, 2.0], [2.0, 4.0]]),
    # addcmul/addcdiv into a leaf that requires grad (ops.add's backward needed a Clone kernel)
    **{f"{name} gradients, shapes {sh}": (lambda name, shapes: lambda T: _three_grads(T, name, shapes))(name, sh)
       for name in ("addcmul", "addcdiv") for sh in [((), (), ()), ((3,), (3,), (3,)), ((), (2,), ())]},
    "stack of a generator": lambda T: T.stack(t for t in (T.ones(3), T.zeros(3))),
}


def _bf16_write_in_graph(T, write):
    a = T.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    y = a.to(T.bfloat16) * 2
    write(y)
    (y.float() * 3).sum().backward()
    return T.cat([y.float().reshape(-1), a.grad.reshape(-1)])


def _grad_of(T, fn, matrix):
    x = T.tensor(matrix, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.abs()  # (abs: torch's zero gradients at a singular matrix carry signs of its own)


def _three_grads(T, name, shapes):
    a, b, c = (T.full(shape, v, requires_grad=True) for shape, v in zip(shapes, (0.25, -0.5, 2.0)))
    out = getattr(T, name)(a, b, c, value=0.5)
    out.sum().backward()
    return T.cat([out.detach().reshape(-1), a.grad.reshape(-1), b.grad.reshape(-1), c.grad.reshape(-1)])


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_matches_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)


def test_empty_cumsum_keeps_the_graph():
    x = mt.zeros(0, 1, requires_grad=True)
    out = mt.cumsum(x, -1)
    assert out.requires_grad
    out.sum().backward()
    assert tuple(x.grad.shape) == (0, 1)


def test_slogdet_gradient_at_a_singular_matrix_raises():
    """torch's derivative of log|det A| there is infinite; MindSpore's own answered finite numbers."""
    x = mt.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    _, logabsdet = mt.slogdet(x)
    with pytest.raises(mt.linalg.LinAlgError):
        logabsdet.backward()


@pytest.mark.parametrize("name", ["slogdet", "logdet"])
def test_log_determinant_gradient_matches_torch(name):
    def grad(T):
        x = T.tensor([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, -4.0]], requires_grad=True)
        out = getattr(T, name)(x)
        (out.logabsdet if name == "slogdet" else out).backward()
        return x.grad.tolist()

    np.testing.assert_allclose(grad(mt), grad(rt), rtol=1e-6, atol=1e-7)


def test_isin_of_an_empty_test_set_is_false_everywhere():
    """MindSpore's any over an empty axis reads uninitialised memory: the answer was True now and then."""
    for _ in range(30):
        _ = mt.randn(64, 64) > 0  # (allocations that leave nonzero bytes behind)
        elements = mt.tensor([0.67, 1.0, -2.0], dtype=mt.float64)
        assert mt.isin(elements, mt.zeros(1, 0, 0, dtype=mt.float64)).tolist() == [False, False, False]
        assert mt.isin(elements, mt.zeros(0, dtype=mt.float64), invert=True).tolist() == [True, True, True]
