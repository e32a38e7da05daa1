"""A tensor saved for backward and then written in place: torch's version counter makes `backward()` raise, so
the gradient is never computed from the new values. The shim must raise where torch raises and give torch's
gradient where torch computes one (a write before the forward, into a copy, or through `.data`)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

W = [0.5, 1.0, 1.5]


def _constant_saved_by_mul(T, write):
    # x does not require grad; w * x saves it for w's gradient
    w = T.tensor(W, requires_grad=True)
    x = T.ones(3)
    loss = (w * x).sum()
    write(T, x)
    loss.backward()
    return w.grad


def _graph_tensor_written_under_no_grad(T, write):
    w = T.tensor(W, requires_grad=True)
    b = w * 2
    loss = b.sin().sum()
    with T.no_grad():
        write(T, b)
    loss.backward()
    return w.grad


def _constant_written_before_the_forward(T, write):
    w = T.tensor(W, requires_grad=True)
    x = T.ones(3)
    write(T, x)
    (w * x).sum().backward()
    return w.grad


def _copy_written_after_the_forward(T, write):
    w = T.tensor(W, requires_grad=True)
    x = T.ones(3)
    loss = (w * x).sum()
    write(T, x.clone())
    loss.backward()
    return w.grad


def _parameter_written_through_data(T, write):
    # .data is outside torch's version tracking: the backward reads the new values in torch too
    w = T.tensor(W, requires_grad=True)
    loss = (w * w).sum()
    write(T, w.data)
    loss.backward()
    return w.grad


def _constant_saved_by_mul_written_through_a_view(T, write):
    # the view shares the saved tensor's version counter
    w = T.tensor(W, requires_grad=True)
    x = T.ones(3)
    loss = (w * x).sum()
    write(T, x[:])
    loss.backward()
    return w.grad


def _constant_saved_by_mul_written_through_a_view_of_a_dropped_view(T, write):
    w = T.tensor(W, requires_grad=True)
    x = T.ones(3)
    loss = (w * x).sum()
    view = x.unsqueeze(0)[0]  # (the unsqueezed view in between is gone)
    del x
    write(T, view)
    loss.backward()
    return w.grad


def _non_leaf_saved_by_mul_written_through_detach(T, write):
    # torch's detach() shares the version counter of the tensor it was taken from
    w = T.tensor(W, requires_grad=True)
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    loss = (w * y).sum()
    write(T, y.detach())
    loss.backward()
    return w.grad


def _leaf_saved_by_mul_written_through_detach(T, write):
    w = T.tensor(W, requires_grad=True)
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (w * (x * 2)).sum()
    write(T, w.detach())
    loss.backward()
    return x.grad


def _constant_saved_by_mul_written_through_a_view_of_a_detach(T, write):
    w = T.tensor(W, requires_grad=True)
    x = T.ones(3)
    loss = (w * x).sum()
    write(T, x.detach()[:])
    loss.backward()
    return w.grad


def _non_leaf_saved_by_mul_written_through_a_detach_of_a_detach(T, write):
    w = T.tensor(W, requires_grad=True)
    y = T.tensor([1.0, 2.0, 3.0], requires_grad=True) * 2
    loss = (w * y).sum()
    write(T, y.detach().detach())  # (the detach in between is gone)
    loss.backward()
    return w.grad


def _non_leaf_not_saved_written_through_detach(T, write):
    # nothing saved it: the backward has nothing to refuse, in torch either
    w = T.tensor(W, requires_grad=True)
    y = T.tensor([1.0, 2.0, 3.0], requires_grad=True) * 2
    loss = (w + y).sum()
    write(T, y.detach())
    loss.backward()
    return w.grad


def _square(T, saves):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * x
            ctx.save_for_backward(x if saves == "input" else out)
            return out

        @staticmethod
        def backward(ctx, grad):
            saved, = ctx.saved_tensors
            return grad * 2 * (saved if saves == "input" else saved.sqrt())

    return Square


def _input_saved_by_a_custom_function(T, write):
    w = T.tensor(W, requires_grad=True)
    h = w * 1.0
    loss = _square(T, "input").apply(h).sum()
    with T.no_grad():
        write(T, h)
    loss.backward()
    return w.grad


def _output_saved_by_a_custom_function(T, write):
    w = T.tensor(W, requires_grad=True)
    out = _square(T, "output").apply(w * 1.0)
    loss = out.sum()
    with T.no_grad():
        write(T, out)
    loss.backward()
    return w.grad


def _custom_function_output_written_before_its_backward_reads_nothing_saved(T, write):
    # nothing saved: the write is not checked, in torch either
    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    w = T.tensor(W, requires_grad=True)
    out = Double.apply(w * 1.0)
    loss = (out * 1.0).sum()
    with T.no_grad():
        write(T, out)
    loss.backward()
    return w.grad


SCENARIOS = {f.__name__.lstrip("_"): f for f in (
    _constant_saved_by_mul, _graph_tensor_written_under_no_grad, _constant_written_before_the_forward,
    _copy_written_after_the_forward, _parameter_written_through_data, _constant_saved_by_mul_written_through_a_view,
    _constant_saved_by_mul_written_through_a_view_of_a_dropped_view, _input_saved_by_a_custom_function,
    _output_saved_by_a_custom_function, _custom_function_output_written_before_its_backward_reads_nothing_saved,
    _non_leaf_saved_by_mul_written_through_detach, _leaf_saved_by_mul_written_through_detach,
    _constant_saved_by_mul_written_through_a_view_of_a_detach,
    _non_leaf_saved_by_mul_written_through_a_detach_of_a_detach, _non_leaf_not_saved_written_through_detach)}

WRITES = {
    "add_": lambda T, t: t.add_(1.0),
    "mul_": lambda T, t: t.mul_(3.0),
    "index_assignment": lambda T, t: t.__setitem__(0, 5.0),
    "slice_assignment": lambda T, t: t.__setitem__(slice(1, 3), T.tensor([2.0, 4.0])),
    "copy_": lambda T, t: t.copy_(T.tensor([3.0, 2.0, 1.0])),
    "zero_": lambda T, t: t.zero_(),
    "fill_": lambda T, t: t.fill_(2.0),
    "masked_fill_": lambda T, t: t.masked_fill_(T.tensor([True, False, True]), 7.0),
    "clamp_": lambda T, t: t.clamp_(0.2, 0.9),
}


def _outcome(T, scenario, write):
    try:
        return np.asarray(SCENARIOS[scenario](T, WRITES[write]).detach().numpy(), np.float64)
    except RuntimeError as exc:
        return type(exc).__name__, "modified by an inplace operation" in str(exc).lower()


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_backward_after_a_write_matches_torch(scenario, write):
    ours, theirs = _outcome(mt, scenario, write), _outcome(rt, scenario, write)
    if isinstance(theirs, tuple):
        assert ours == theirs
    else:
        assert not isinstance(ours, tuple), ours
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


RECORDED_WRITES = {  # a value that requires grad written in grad mode: the written tensor joins the graph
    "copy_": lambda t, h: t.copy_(h),
    "add_": lambda t, h: t.add_(h),
    "mul_": lambda t, h: t.mul_(h),
    "index_assignment": lambda t, h: t.__setitem__(0, h[1]),
    "slice_assignment": lambda t, h: t.__setitem__(slice(1, 3), h[:2]),
}


def _recorded_write_through_detach(T, write, saved):
    w = T.tensor(W, requires_grad=True)
    y = T.tensor([1.0, 2.0, 3.0], requires_grad=True) * 2
    h = T.tensor([4.0, 5.0, 6.0], requires_grad=True)
    loss = ((w * y) if saved else (w + y)).sum()  # (w + y saves nothing)
    detached = y.detach()
    RECORDED_WRITES[write](detached, h * 1)
    loss.backward()
    detached.sum().backward()
    return np.concatenate([w.grad.numpy(), h.grad.numpy(), y.detach().numpy()]).astype(np.float64)


@pytest.mark.parametrize("saved", [True, False])
@pytest.mark.parametrize("write", list(RECORDED_WRITES))
def test_recorded_write_through_detach_matches_torch(write, saved):
    def outcome(T):
        try:
            return _recorded_write_through_detach(T, write, saved)
        except RuntimeError as exc:
            return type(exc).__name__, "modified by an inplace operation" in str(exc).lower()

    ours, theirs = outcome(mt), outcome(rt)
    if isinstance(theirs, tuple):
        assert ours == theirs
    else:
        assert not isinstance(ours, tuple), ours
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
