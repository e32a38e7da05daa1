"""Generated programs of views and in-place writes inside autograd, against real torch.

Each program starts from a tensor in the graph (`h = x * 1.5`, x a leaf that requires grad) or from a tensor
outside it that joins the graph through a write of a value that requires grad into a view of it
(`out = zeros(...); out[...].copy_(y...)`). It then takes random view chains (slices with steps, select, narrow,
transpose, view where viewable, diagonal, unsqueeze) of the base or of earlier views, and writes in place through
views and into the base (copy_, add_, mul_, zero_, fill_, index assignment, masked_fill_, and writes reading
other views of the same base), keeping every view alive; a write is recorded, or made under no_grad, or through
`detach()` of its target. Then a loss over the base and all views is
backpropagated. torch records each write on the base (CopySlices) and re-derives every view from it; the values of
every tensor and the gradients of x and y must be torch's (float32, 1e-5).

Shapes and the validity of each view are worked out on a NumPy array of the same shape first, so the same program
runs under both frameworks.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

ROOT_SHAPES = [(4, 6), (3, 4, 5), (2, 3, 4), (6,)]
# how a write is made: recorded by autograd, under no_grad, or through `detach()` of the tensor (grad mode on); the
# last two change no node in torch, only the values (and the write count) that later views and ops read
WRITE_MODES = ["recorded", "recorded", "no_grad", "detach"]
Y_SIZE = 128


# ---------------------------------------------------------------- view ops: (numpy form, torch form)
def _view_op(data, a):
    """Draw one view op valid for the NumPy stand-in `a`; returns (name, args) or None."""
    choices = ["slice", "select", "narrow", "unsqueeze"]
    if a.ndim >= 2:
        choices += ["transpose", "diagonal"]
    if a.flags["C_CONTIGUOUS"] and a.size:
        choices += ["view_flat", "view_split"]
    name = data.draw(st.sampled_from(choices))
    if name in ("slice", "select", "narrow"):
        dims = [d for d in range(a.ndim) if a.shape[d] > 0]
        if not dims:
            return ("unsqueeze", (0,))
        d = data.draw(st.sampled_from(dims))
        n = a.shape[d]
        if name == "select":
            return (name, (d, data.draw(st.integers(-n, n - 1))))
        start = data.draw(st.integers(0, n - 1))
        if name == "narrow":
            return (name, (d, start, data.draw(st.integers(1, n - start))))
        return (name, (d, start, data.draw(st.integers(start + 1, n)), data.draw(st.integers(1, 3))))
    if name == "unsqueeze":
        return (name, (data.draw(st.integers(0, a.ndim)),))
    if name == "transpose":
        return (name, tuple(data.draw(st.permutations(range(a.ndim)))[:2]))
    if name == "diagonal":
        d1, d2 = data.draw(st.permutations(range(a.ndim)))[:2]
        return (name, (data.draw(st.integers(-a.shape[d1] + 1, a.shape[d2] - 1)), d1, d2))
    if name == "view_flat":
        return (name, ())
    first = a.shape[0] if a.ndim else 1
    splits = [k for k in range(1, first + 1) if first % k == 0]
    return ("view_split", (data.draw(st.sampled_from(splits)),)) if a.ndim else ("view_flat", ())


def _apply_view(T, t, op):
    name, args = op
    if name == "slice":
        d, start, stop, step = args
        return t[(slice(None),) * d + (slice(start, stop, step),)]
    if name == "select":
        return t.select(*args)
    if name == "narrow":
        return t.narrow(*args)
    if name == "unsqueeze":
        return t.unsqueeze(*args)
    if name == "transpose":
        return t.transpose(*args)
    if name == "diagonal":
        offset, d1, d2 = args
        return t.diagonal(offset, d1, d2)
    if name == "view_flat":
        return t.view(-1)
    (k,) = args
    shape = tuple(t.shape)
    return t.view((k, shape[0] // k) + shape[1:])


def _apply_view_np(a, op):
    name, args = op
    if name == "slice":
        d, start, stop, step = args
        return a[(slice(None),) * d + (slice(start, stop, step),)]
    if name == "select":
        d, i = args
        return a[(slice(None),) * d + (i,)]
    if name == "narrow":
        d, start, length = args
        return a[(slice(None),) * d + (slice(start, start + length),)]
    if name == "unsqueeze":
        return np.expand_dims(a, args[0])
    if name == "transpose":
        return np.swapaxes(a, *args)
    if name == "diagonal":
        offset, d1, d2 = args
        return np.diagonal(a, offset, d1, d2)
    if name == "view_flat":
        return a.reshape(-1)
    (k,) = args
    return a.reshape((k, a.shape[0] // k) + a.shape[1:])


# ---------------------------------------------------------------- writes
def _write_op(data, a, others):
    """Draw one write valid for the NumPy stand-in `a`; `others`: indices of tensors it may read."""
    choices = ["copy_", "add_", "add_scalar", "mul_", "zero_", "fill_", "masked_fill_", "add_other_sum"]
    if a.ndim:
        choices += ["setitem_int", "setitem_slice"]
    name = data.draw(st.sampled_from(choices))
    if name == "zero_":
        return (name, ())
    if name in ("copy_", "add_"):
        return (name, (data.draw(st.integers(0, Y_SIZE - max(a.size, 1))),))
    if name in ("add_scalar", "mul_", "fill_"):
        return (name, (data.draw(st.sampled_from([-2.0, -0.5, 0.25, 3.0])),))
    if name == "masked_fill_":
        return (name, (data.draw(st.lists(st.booleans(), min_size=a.size, max_size=a.size)),
                       data.draw(st.sampled_from([-1.0, 7.0]))))
    if name == "add_other_sum":
        return (name, (data.draw(st.sampled_from(others)),))
    if name == "setitem_int":
        n = a.shape[0]
        return (name, (data.draw(st.integers(-n, n - 1)), data.draw(st.integers(0, Y_SIZE - max(a[0].size, 1)))))
    n = a.shape[0]
    start = data.draw(st.integers(0, n))
    return (name, (start, data.draw(st.integers(start, n)), data.draw(st.sampled_from([-4.0, 0.5]))))


def _from_y(y, offset, shape):
    n = int(np.prod(shape, dtype=np.int64))
    return (y[offset:offset + n] * 0.5 + 1.0).reshape(shape)


def _apply_write(T, t, op, y, tensors):
    name, args = op
    if name == "copy_":
        t.copy_(_from_y(y, args[0], tuple(t.shape)))
    elif name == "add_":
        t.add_(_from_y(y, args[0], tuple(t.shape)))
    elif name == "add_scalar":
        t.add_(args[0])
    elif name == "mul_":
        t.mul_(args[0])
    elif name == "zero_":
        t.zero_()
    elif name == "fill_":
        t.fill_(args[0])
    elif name == "masked_fill_":
        mask, value = args
        t.masked_fill_(T.tensor(np.array(mask, dtype=bool).reshape(tuple(t.shape))), value)
    elif name == "add_other_sum":
        t.add_(tensors[args[0]].sum() * 0.125)
    elif name == "setitem_int":
        index, offset = args
        t[index] = _from_y(y, offset, tuple(t.shape[1:]))
    else:
        start, stop, value = args
        t[start:stop] = value


# ---------------------------------------------------------------- programs
@st.composite
def programs(draw):
    data = _Draw(draw)
    shape = draw(st.sampled_from(ROOT_SHAPES))
    outside = draw(st.booleans())
    stand_ins = [np.arange(int(np.prod(shape))).reshape(shape)]
    steps = []
    if outside:  # the base joins the graph through a write into a view of it
        chain = [_view_op(data, stand_ins[0])]
        a = _apply_view_np(stand_ins[0], chain[0])
        write = ("copy_", (draw(st.integers(0, Y_SIZE - max(a.size, 1))),))
        steps.append(("first_write", chain, write))
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            source = draw(st.integers(0, len(stand_ins) - 1))
            a, chain = stand_ins[source], []
            for _ in range(draw(st.integers(1, 3))):
                op = _view_op(data, a)
                chain.append(op)
                a = _apply_view_np(a, op)
            stand_ins.append(a)
            steps.append(("view", source, chain))
        else:
            target = draw(st.integers(0, len(stand_ins) - 1))
            steps.append(("write", target, _write_op(data, stand_ins[target], list(range(len(stand_ins)))),
                          draw(st.sampled_from(WRITE_MODES))))
    return shape, outside, steps


class _Draw:
    """`data.draw` for the composite's own draw function."""

    def __init__(self, draw):
        self.draw = draw


def _run(T, program):
    shape, outside, steps = program
    x = T.tensor(np.linspace(-1.5, 2.0, int(np.prod(shape)), dtype=np.float32).reshape(shape), requires_grad=True)
    y = T.tensor(np.linspace(0.5, -1.0, Y_SIZE, dtype=np.float32), requires_grad=True)
    try:
        if outside:
            base = T.zeros(shape)
        else:
            base = x * 1.5
        tensors = [base]
        for step in steps:
            if step[0] == "first_write":
                _, chain, write = step
                view = base
                for op in chain:
                    view = _apply_view(T, view, op)
                _apply_write(T, view, write, y, tensors)
            elif step[0] == "view":
                _, source, chain = step
                view = tensors[source]
                for op in chain:
                    view = _apply_view(T, view, op)
                tensors.append(view)
            else:
                _, target, write, mode = step
                if mode == "recorded":
                    _apply_write(T, tensors[target], write, y, tensors)
                elif mode == "no_grad":
                    with T.no_grad():
                        _apply_write(T, tensors[target], write, y, tensors)
                else:  # through a detached alias, grad mode on, with values outside the graph
                    _apply_write(T, tensors[target].detach(), write, y.detach(), [t.detach() for t in tensors])
        loss = x.sum() * 0
        for i, t in enumerate(tensors):
            weights = T.tensor(np.linspace(-1.0, 1.0, max(t.numel(), 1), dtype=np.float32)[:t.numel()]
                               .reshape(tuple(t.shape)) + i * 0.25)
            loss = loss + (t * weights).sum() + (t * t).sum() * 0.1
        loss.backward()
    except (RuntimeError, IndexError, ValueError, NotImplementedError) as exc:
        return _Raised(type(exc).__name__, str(exc))
    grads = [np.zeros(shape, np.float32) if x.grad is None else x.grad.numpy().copy(),
             np.zeros(Y_SIZE, np.float32) if y.grad is None else y.grad.numpy().copy()]
    return [t.detach().numpy().copy() for t in tensors], grads


class _Raised(tuple):
    """The exception a program ended with: (type name, message)."""

    def __new__(cls, name, message):
        return super().__new__(cls, (name, message))


@settings(max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_view_writes_inside_autograd_match_torch(program):
    theirs, ours = _run(rt, program), _run(mt, program)
    if isinstance(theirs, _Raised) or isinstance(ours, _Raised):
        assert isinstance(theirs, _Raised) and isinstance(ours, _Raised) and ours[0] == theirs[0], \
            f"shim: {ours if isinstance(ours, _Raised) else 'no error'}; torch: " \
            f"{theirs if isinstance(theirs, _Raised) else 'no error'}"
        return
    (our_values, our_grads), (their_values, their_grads) = ours, theirs
    for i, (a, b) in enumerate(zip(our_values, their_values)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=f"tensor {i}")
    for a, b, what in zip(our_grads, their_grads, ("x.grad", "y.grad")):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=what)


def test_the_programs_reach_the_replay():
    """The generated programs write through views and into bases with live views (not only plain writes)."""
    from mindnlp_shim.torch import _view_replay

    calls = []
    original = _view_replay.write
    _view_replay.write = lambda *args: (calls.append(1), original(*args))[1]
    try:
        _run(mt, ((4, 6), False, [("view", 0, [("select", (0, 1))]), ("write", 1, ("copy_", (0,)), "recorded"),
                                  ("write", 0, ("add_scalar", (1.0,)), "recorded")]))
    finally:
        _view_replay.write = original
    assert len(calls) == 2
