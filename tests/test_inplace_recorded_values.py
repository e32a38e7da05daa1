"""A value that requires grad written in place into a tensor outside the autograd graph (`total += loss`,
`buf.copy_(h)`, `buf.mul_(w)`): in torch the receiver joins the graph, the write its node. The shim dropped the
write's history (the gradient through the receiver was silently missing); these compare values, gradients and
the receiver's autograd state with real torch. Through a view of such a tensor torch carries the history into the
base too (CopySlices): so does the shim (`_view_replay`), except while other views of the base taken outside
autograd are alive, which it cannot reach: that write is refused with NotImplementedError."""
import copy

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _accumulate(T, buf, w):
    total = T.tensor(0.0)
    for _ in range(3):
        total += (w * 2).sum()
    buf += total


# name -> the write, given (torch module, receiver of shape (2,), w of shape (2,) that requires grad)
WRITES = {
    "copy_": lambda T, b, w: b.copy_(w * 2),
    "add_": lambda T, b, w: b.add_(w),
    "iadd": lambda T, b, w: b.__iadd__(w),
    "sub_alpha": lambda T, b, w: b.sub_(w, alpha=3),
    "mul_after_fill": lambda T, b, w: b.fill_(2.0).mul_(w),
    "mul_reads_old_value": lambda T, b, w: b.add_(1.5).mul_(w * w),
    "div_": lambda T, b, w: b.add_(4.0).div_(w + 1),
    "addcmul_": lambda T, b, w: b.addcmul_(w, w, value=0.5),
    "clamp_min_then_add": lambda T, b, w: b.clamp_min_(1.0).add_(w),
    "setitem_all": lambda T, b, w: b.__setitem__(Ellipsis, w * 2),
    "loss_accumulate": _accumulate,
    "no_grad_operand_stays_out": lambda T, b, w: b.add_(w.detach()),
    "fill_with_0d_tensor": lambda T, b, w: b.fill_(w[1] * 3),
    "masked_fill_0d_tensor": lambda T, b, w: b.masked_fill_(T.tensor([True, False]), w[0]),
    "index_add_": lambda T, b, w: b.index_add_(0, T.tensor([1, 0]), w),
    "index_copy_": lambda T, b, w: b.index_copy_(0, T.tensor([1, 0]), w * 2),
    "scatter_": lambda T, b, w: b.scatter_(0, T.tensor([1, 0]), w),
    "masked_scatter_": lambda T, b, w: b.masked_scatter_(T.tensor([False, True]), w),
    "lerp_": lambda T, b, w: b.lerp_(w, 0.25),
    "clamp_with_tensor_min": lambda T, b, w: b.clamp_(min=w),
}


def test_fill_of_a_graph_tensor_with_a_0d_value_that_requires_grad():
    answers = []
    for T in (rt, mt):
        w = T.tensor([1.0, 2.0], requires_grad=True)
        h = T.ones(3, requires_grad=True) * 2
        h.fill_(w[1] * 3)
        (h * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        answers.append((h.detach().numpy().tolist(), w.grad.numpy().tolist()))
    assert answers[1] == answers[0]


@pytest.mark.parametrize("name", sorted(WRITES))
def test_receiver_joins_the_graph_as_in_torch(name):
    answers = []
    for T in (rt, mt):
        w = T.tensor([1.0, 2.0], requires_grad=True)
        buf = T.zeros(2)
        WRITES[name](T, buf, w)
        state = (buf.requires_grad, buf.grad_fn is not None, buf.is_leaf, buf.detach().numpy().tolist())
        loss = (buf * T.tensor([3.0, 5.0])).sum() + (w * w).sum()
        loss.backward()
        answers.append((state, w.grad.numpy().tolist()))
    assert answers[1][0] == answers[0][0]
    assert answers[1][1] == pytest.approx(answers[0][1], rel=1e-6)


def test_aliases_of_the_receiver_see_the_values():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    buf = mt.zeros(2)
    before = buf.numpy()
    buf.add_(w * 3)
    assert before.tolist() == [3.0, 6.0]


VIEW_WRITES = {
    "slice_copy_": lambda b, w: b[:2].copy_(w * 2),
    "narrow_copy_": lambda b, w: b.narrow(0, 1, 2).copy_(w * 2),
    "select_of_view_add_": lambda b, w: b.view(2, 2)[0].add_(w),
    "unsqueeze_slice_add_": lambda b, w: b.unsqueeze(0)[:, 2:].add_(w),
    "whole_view_add_": lambda b, w: b.view(2, 2).add_(w),
    "unsqueeze_add_": lambda b, w: b[:2].unsqueeze(0).add_(w),
    "full_slice_view_add_": lambda b, w: b.view(2, 2)[:].add_(w),
    "ellipsis_view_add_": lambda b, w: b.view(2, 2)[...].add_(w),
}


def _view_write_outcome(T, name, keep_other_view=False):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    base = T.zeros(4)
    other = base[3:] if keep_other_view else None
    try:
        VIEW_WRITES[name](base, w)
    except NotImplementedError:
        return "NotImplementedError"
    state = (base.requires_grad, base.grad_fn is not None, base.is_leaf, base.detach().numpy().tolist())
    loss = (base * T.tensor([3.0, 5.0, 7.0, 11.0])).sum() + (base * base).sum()
    if other is not None:
        loss = loss + (other * 13).sum()
    loss.backward()
    return state, w.grad.numpy().tolist()


@pytest.mark.parametrize("name", sorted(VIEW_WRITES))
def test_write_through_a_view_of_a_tensor_outside_the_graph_matches_torch(name):
    # torch: the base joins the graph through the view (CopySlices), its values and gradients the write's
    ours, theirs = _view_write_outcome(mt, name), _view_write_outcome(rt, name)
    assert ours[0] == theirs[0]
    assert ours[1] == pytest.approx(theirs[1], rel=1e-6)


@pytest.mark.parametrize("name", ["slice_copy_", "select_of_view_add_"])
def test_write_through_a_view_while_another_view_is_alive_is_refused(name):
    # torch gives the other view (taken outside autograd) the write's history; the shim cannot reach it
    assert _view_write_outcome(rt, name, keep_other_view=True)[1]  # (torch: a gradient through both)
    assert _view_write_outcome(mt, name, keep_other_view=True) == "NotImplementedError"
    assert _view_write_outcome(mt, name) != "NotImplementedError"  # (the same write with no other view)


def test_writes_without_grad_through_views_still_alias():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    base = mt.zeros(4)
    with mt.no_grad():
        base[:2].copy_(w * 2)
    base.narrow(0, 2, 2).add_(w.detach())
    assert base.tolist() == [2.0, 4.0, 1.0, 2.0]
    assert not base.requires_grad


def _frozen_linear(T, copied):
    """A Linear(3, 2) with a frozen, known weight; `copied`: a deep copy of it (its parameters are new tensors)."""
    lin = T.nn.Linear(3, 2)
    lin.weight.requires_grad_(False)
    with T.no_grad():
        lin.weight.copy_(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    return copy.deepcopy(lin) if copied else lin


@pytest.mark.parametrize("copied", [False, True])
def test_recorded_value_into_the_data_of_a_frozen_parameter_matches_torch(copied):
    # peft's merge: `base_layer.weight.data += delta_weight` with the delta computed in grad mode. MindSpore's own
    # in-place op refuses it (its `.data` alias is a view of a leaf it marks as requiring grad), or, for a
    # deep-copied module, records it on the parameter too (its CopySlices); torch's `.data` is no view: the alias
    # alone records the write, the parameter stays a frozen leaf with the new values
    answers = []
    for T in (rt, mt):
        lin = _frozen_linear(T, copied)
        w = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -2.0]], requires_grad=True)
        lin.weight.data += w * 3
        alias = lin.weight.data
        alias2 = lin.weight.data
        alias2.add_(w * w)
        state = (lin.weight.requires_grad, lin.weight.is_leaf, lin.weight.grad_fn is None, alias2.requires_grad,
                 alias2.grad_fn is not None, alias.requires_grad, lin.weight.detach().numpy().tolist())
        (alias2 * T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])).sum().backward()
        answers.append((state, w.grad.numpy().reshape(-1).tolist()))
    assert answers[1][0] == answers[0][0]
    assert answers[1][1] == pytest.approx(answers[0][1], rel=1e-6)


@pytest.mark.parametrize("copied", [False, True])
def test_recorded_value_through_a_view_of_data_leaves_the_parameter_alone(copied):
    # peft's supertuning merge: `weight.data.reshape(-1).scatter_add_(0, indices, values)`, values requiring grad;
    # the `.data` alias is gone by the time of the write, and the parameter must stay a frozen leaf
    answers = []
    for T in (rt, mt):
        lin = _frozen_linear(T, copied)
        values = T.tensor([0.5, -2.0], requires_grad=True)
        flat = lin.weight.data.reshape(-1)
        flat.scatter_add_(0, T.tensor([1, 4]), values * 3)
        state = (lin.weight.requires_grad, lin.weight.is_leaf, lin.weight.grad_fn is None, flat.requires_grad,
                 lin.weight.detach().numpy().reshape(-1).tolist())
        (flat * T.arange(6.0)).sum().backward()
        answers.append((state, values.grad.numpy().tolist()))
    assert answers[1][0] == answers[0][0]
    assert answers[1][1] == pytest.approx(answers[0][1], rel=1e-6)


@pytest.mark.parametrize("make", ["view", "transpose", "reshape_of_transpose", "unsqueeze"])
def test_recorded_value_into_a_view_whose_base_is_gone_matches_torch(make):
    # the base is a temporary: the view alone is left to take the write's history (MindSpore's in-place op put it
    # on the dead base, and the view's gradient was silently zero)
    forms = {"view": lambda T: T.zeros(4).view(2, 2), "transpose": lambda T: T.zeros(2, 2).t(),
             "reshape_of_transpose": lambda T: T.zeros(2, 2).t().reshape(2, 2),
             "unsqueeze": lambda T: T.zeros(2, 2).unsqueeze(0)}
    answers = []
    for T in (rt, mt):
        w = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        buf = forms[make](T)
        buf.add_(w * 3)
        state = (buf.requires_grad, buf.grad_fn is not None, buf.detach().numpy().reshape(-1).tolist())
        (buf * buf).sum().backward()
        answers.append((state, w.grad.numpy().reshape(-1).tolist()))
    assert answers[1][0] == answers[0][0]
    assert answers[1][1] == pytest.approx(answers[0][1], rel=1e-6)
