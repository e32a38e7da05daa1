"""Aliasing against real PyTorch: every view op x every write op x (write through the view / write to the base).

A view shares its base's memory: a write through it changes the base, and a view taken before a write to the
base sees the write. Each case runs the same script with the shim and with real torch on the same data and
compares the base and the view afterwards, or that both raise (a write through an expanded view). Plus the
other ways torch shares memory: `from_numpy`/`numpy()`, `detach()`/`.data`, `state_dict()` tensors.
"""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

BASE = (np.arange(24, dtype=np.float32).reshape(4, 6) - 11.5) / 4

# name -> fn(T, x) giving a view of x (a (4, 6) float32 tensor)
VIEWS = {
    "view": lambda T, x: x.view(6, 4),
    "view_flat": lambda T, x: x.view(-1),
    "view_as": lambda T, x: x.view_as(T.empty(2, 12)),
    "reshape": lambda T, x: x.reshape(2, 12),
    "flatten": lambda T, x: x.flatten(),
    "unflatten": lambda T, x: x.unflatten(1, (2, 3)),
    "unsqueeze": lambda T, x: x.unsqueeze(1),
    "squeeze": lambda T, x: x[:, None].squeeze(1),
    "t": lambda T, x: x.t(),
    "T": lambda T, x: x.T,
    "mT": lambda T, x: x.mT,
    "transpose": lambda T, x: x.transpose(0, 1),
    "swapaxes": lambda T, x: x.swapaxes(0, 1),
    "permute": lambda T, x: x.unflatten(1, (2, 3)).permute(2, 0, 1),
    "movedim": lambda T, x: x.unflatten(1, (2, 3)).movedim(0, 2),
    "narrow": lambda T, x: x.narrow(1, 1, 3),
    "select": lambda T, x: x.select(1, 2),
    "index_int": lambda T, x: x[1],
    "index_slices": lambda T, x: x[1:3, ::2],
    "index_none": lambda T, x: x[None, 2],
    "index_ellipsis": lambda T, x: x[..., 1],
    "chunk": lambda T, x: x.chunk(2, 1)[1],
    "split": lambda T, x: x.split(2, 0)[1],
    "split_sizes": lambda T, x: x.split([1, 5], 1)[1],
    "tensor_split": lambda T, x: x.tensor_split(3, 1)[2],
    "unbind": lambda T, x: x.unbind(1)[3],
    "diagonal": lambda T, x: x.diagonal(),
    "diagonal_offset": lambda T, x: x.diagonal(1),
    "detach": lambda T, x: x.detach(),
    "contiguous": lambda T, x: x.contiguous(),
    "expand": lambda T, x: x[:1].expand(3, 6),
    "expand_as": lambda T, x: x[:, :1].expand_as(T.empty(4, 5)),
    "view_of_slice": lambda T, x: x[:, 2:].view(4, 2, 2),
    "reshape_of_transpose_split": lambda T, x: x.t().reshape(2, 3, 4),
    "view_of_view": lambda T, x: x.view(-1).view(3, 8)[1],
    "unfold": lambda T, x: x.unfold(1, 3, 3),  # (non-overlapping windows: every write has one place)
    "unfold_of_transpose": lambda T, x: x.t().unfold(1, 2, 2),
    "view_dtype_same_size": lambda T, x: x.view(T.int32).view(T.float32),
    "view_dtype_of_transpose": lambda T, x: x.t().view(T.int32).view(T.float32),
    "view_dtype_of_slice_other_size": lambda T, x: x[:, 2:].view(T.float16).view(T.float32),
    "view_dtype_of_rows_step": lambda T, x: x[::2].view(T.int32).view(T.float32),
}

# name -> fn(T, t): an in-place write into t
WRITES = {
    "add_": lambda T, t: t.add_(1.5),
    "add_tensor": lambda T, t: t.add_(T.ones(t.shape[-1:] if t.ndim else ()) * 0.25),
    "sub_": lambda T, t: t.sub_(0.5),
    "mul_": lambda T, t: t.mul_(-2),
    "div_": lambda T, t: t.div_(4),
    "iadd": lambda T, t: t.__iadd__(3),
    "zero_": lambda T, t: t.zero_(),
    "fill_": lambda T, t: t.fill_(7),
    "copy_": lambda T, t: t.copy_(T.full(t.shape, -3.0)),
    "clamp_": lambda T, t: t.clamp_(-1, 1),
    "relu_": lambda T, t: t.relu_(),
    "neg_": lambda T, t: t.neg_(),
    "masked_fill_": lambda T, t: t.masked_fill_(t > 0, 9.0),
    "setitem_all": lambda T, t: t.__setitem__(Ellipsis, 5.0),
    "setitem_first": lambda T, t: t.__setitem__(0, -8.0),
    "setitem_mask": lambda T, t: t.__setitem__(t < 0, 0.5),
    "setitem_tensor": lambda T, t: t.__setitem__(Ellipsis, T.arange(t.numel(), dtype=T.float32).reshape(t.shape)),
}


def _outcome(T, script):
    """Run `script(T)`: the tensors it returns as arrays, or the type of the exception it raised."""
    try:
        return [np.array(t.numpy()) for t in script(T)]
    except (RuntimeError, IndexError, ValueError) as exc:
        return type(exc).__name__


def assert_same_outcome(script):
    ours, theirs = _outcome(mt, script), _outcome(rt, script)
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs, f"shim: {ours if isinstance(ours, str) else 'no error'}, torch: {theirs}"
        return
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("through_view", [True, False], ids=["write_through_view", "view_sees_base_write"])
@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_and_base_see_each_others_writes(view, write, through_view):
    def script(T):
        base = T.tensor(BASE.copy())
        alias = VIEWS[view](T, base)
        WRITES[write](T, alias if through_view else base)
        return base, alias

    assert_same_outcome(script)


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_shares_storage(view):
    """The view's memory lies inside the base's: `data_ptr` within the base's span, as in torch."""
    for T in (mt, rt):
        base = T.tensor(BASE.copy())
        alias = VIEWS[view](T, base)
        offset = alias.data_ptr() - base.data_ptr()
        assert 0 <= offset < base.numel() * base.element_size(), (T.__name__, offset)
        assert alias.storage_offset() * alias.element_size() == offset


@pytest.mark.parametrize("shape, index", [((4, 6), (slice(None), slice(None, 3))), ((2, 3, 8), (Ellipsis, slice(4)))])
def test_view_of_non_contiguous_refuses_what_torch_refuses(shape, index):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    for target in ((-1,), (shape[0] * shape[1], -1), (shape[0], -1, 1)):
        def script(T, target=target):
            sliced = T.tensor(data.copy())[index]
            return [sliced.view(*target)]

        assert_same_outcome(script)


def test_transposed_view_refused_reshape_copies():
    def script(T):
        x = T.tensor(BASE.copy()).t()
        copy = x.reshape(-1)  # not viewable: a copy, so the write below stays in it
        copy.zero_()
        return [x, copy]

    assert_same_outcome(script)
    for T in (mt, rt):
        with pytest.raises(RuntimeError):
            T.tensor(BASE.copy()).t().view(-1)


# ---------------------------------------------------------------- NumPy shares memory both ways
@pytest.mark.parametrize("write", sorted(WRITES))
def test_from_numpy_shares_memory(write):
    arrays = {}
    for T in (mt, rt):
        array = BASE.copy()
        WRITES[write](T, T.from_numpy(array))
        arrays[T] = array
    np.testing.assert_allclose(arrays[mt], arrays[rt], rtol=1e-6)


@pytest.mark.parametrize("view", ["index_slices", "t", "diagonal", "narrow", "view"])
@pytest.mark.parametrize("write", ["add_", "fill_", "setitem_first"])
def test_numpy_array_sees_later_writes(view, write):
    arrays = {}
    for T in (mt, rt):
        base = T.tensor(BASE.copy())
        alias = VIEWS[view](T, base)
        array = alias.numpy()
        WRITES[write](T, base)
        arrays[T] = array.copy()
    np.testing.assert_allclose(arrays[mt], arrays[rt], rtol=1e-6)


def test_numpy_write_reaches_tensor_and_views():
    x = mt.tensor(BASE.copy())
    row = x[1]
    x.numpy()[1, :] = 42.0
    x.t().numpy()[0, 0] = -1.0  # a transposed view's array writes the same memory
    assert row.tolist() == [42.0] * 6
    assert x[0, 0].item() == -1.0


def test_from_numpy_sees_numpy_writes():
    array = BASE.copy()
    t = mt.from_numpy(array)
    view = t[2:]
    array[3] = 0.0
    assert view[1].abs().sum().item() == 0.0


# ---------------------------------------------------------------- detach, .data, state_dict, parameters
def test_state_dict_edit_reaches_model():
    """An EMA update written on `state_dict()` tensors changes the model, as in torch."""
    results = {}
    for T in (mt, rt):
        T.manual_seed(0)
        model = T.nn.Linear(3, 2)
        with T.no_grad():
            model.weight.copy_(T.tensor(BASE[:2, :3].copy()))
            model.bias.copy_(T.tensor([0.5, -0.5]))
        shadow = {k: v.clone() * 0 for k, v in model.state_dict().items()}
        for key, value in model.state_dict().items():
            value.mul_(0.9).add_(shadow[key], alpha=0.1)
        results[T] = (model.weight.detach().numpy().copy(), model.bias.detach().numpy().copy())
    for a, b in zip(results[mt], results[rt]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_parameter_data_and_detach_alias_the_parameter():
    for T in (mt, rt):
        p = T.nn.Parameter(T.ones(2, 3))
        d = p.detach()
        p.data.mul_(3)
        assert d.sum().item() == 18.0
        with T.no_grad():
            p[0].fill_(0)
        assert d.sum().item() == 9.0


def test_optimizer_step_is_seen_by_earlier_views():
    for T in (mt, rt):
        p = T.nn.Parameter(T.ones(4))
        first = p.detach()[:2]
        p.grad = T.ones(4)
        T.optim.SGD([p], lr=0.5).step()
        assert first.tolist() == [0.5, 0.5], T.__name__


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "bool"])
def test_writes_through_views_in_other_dtypes(dtype):
    def script(T):
        base = T.tensor(BASE.copy()).to(getattr(T, dtype))
        row = base[1]
        col = base.t()[2]
        row.fill_(1)
        col.zero_()
        return [base.float(), row.float(), col.float()]

    assert_same_outcome(script)


def test_setitem_through_views_and_advanced_indices():
    def script(T):
        base = T.tensor(BASE.copy())
        view = base.t()
        view[T.tensor([0, 2])] = -1.0
        view[1, T.tensor([True, False, True, False])] = T.tensor([7.0, 8.0])
        base.view(-1)[T.tensor([23])] = 99.0
        return [base, view]

    assert_same_outcome(script)


# ---------------------------------------------------------------- inside the autograd graph
# torch records a write through a view on the base (CopySlices) and replays the base's other views; the shim does
# the same (`_view_replay`): values and gradients must be torch's, and torch's errors must stay.
GRAPH_VIEWS = ["view", "reshape", "t", "index_int", "index_slices", "narrow", "chunk", "unsqueeze", "diagonal",
               "select", "split", "unbind", "expand"]
GRAPH_WRITES = ["add_", "mul_", "zero_", "fill_", "copy_", "setitem_first", "masked_fill_", "clamp_"]
_WEIGHTS = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)


def _graph_outcome(T, view, write, target, keep_view=True):
    try:
        leaf = T.tensor(BASE.copy(), requires_grad=True)
        base = leaf * 2
        alias = VIEWS[view](T, base)
        WRITES[write](T, {"view": alias, "base": base, "leaf_view": VIEWS[view](T, leaf)}[target])
        loss = (base * T.tensor(_WEIGHTS)).sum() + ((alias * alias).sum() if keep_view else 0)
        loss.backward()
        return [np.array(t.detach().numpy()) for t in (base, alias, leaf.grad)]
    except NotImplementedError:
        return "NotImplementedError"
    except (RuntimeError, IndexError, ValueError) as exc:
        return type(exc).__name__


@pytest.mark.parametrize("target", ["view", "base", "leaf_view"])
@pytest.mark.parametrize("write", GRAPH_WRITES)
@pytest.mark.parametrize("view", GRAPH_VIEWS)
def test_writes_inside_the_graph(view, write, target):
    ours, theirs = _graph_outcome(mt, view, write, target), _graph_outcome(rt, view, write, target)
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs, f"shim: {ours if isinstance(ours, str) else 'no error'}, torch: {theirs}"
        return
    for a, b, what in zip(ours, theirs, ("base", "view", "gradient")):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)


def _assert_same_base_and_gradient(ours, theirs):
    for a, b in zip(ours, theirs):
        if b is None:  # (torch: a write that does not read the old value leaves the leaf without a gradient)
            assert a is None or not a.any()
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("write", GRAPH_WRITES)
def test_write_into_graph_tensor_without_views_matches_torch(write):
    """The common case (no view of the written tensor is alive) is never refused and gives torch's gradients."""
    def outcome(T):
        leaf = T.tensor(BASE.copy(), requires_grad=True)
        base = leaf * 2
        WRITES[write](T, base)
        (base * T.tensor(_WEIGHTS)).sum().backward()
        return [None if t is None else np.array(t.detach().numpy()) for t in (base, leaf.grad)]

    _assert_same_base_and_gradient(outcome(mt), outcome(rt))


def _outside_autograd_outcome(T, view, write, target):
    # a write under no_grad into a tensor of the graph or a view of it: the memory changes, the nodes stay
    leaf = T.tensor(BASE.copy(), requires_grad=True)
    base = leaf * 2
    alias = VIEWS[view](T, base)
    try:
        with T.no_grad():
            WRITES[write](T, alias if target == "view" else base)
    except (RuntimeError, NotImplementedError) as exc:
        return type(exc).__name__
    (base * T.tensor(_WEIGHTS)).sum().backward()
    return [np.array(t.detach().numpy()) for t in (base, alias, leaf.grad)]


@pytest.mark.parametrize("target", ["view", "base"])
@pytest.mark.parametrize("write", GRAPH_WRITES)
@pytest.mark.parametrize("view", GRAPH_VIEWS)
def test_writes_outside_autograd_into_graph_tensors_match_torch(view, write, target):
    ours, theirs = _outside_autograd_outcome(mt, view, write, target), _outside_autograd_outcome(rt, view, write, target)
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs
        return
    for a, b, what in zip(ours, theirs, ("base", "view", "gradient")):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("grad_mode", ["enabled", "no_grad"])
@pytest.mark.parametrize("write", GRAPH_WRITES)
def test_write_into_a_base_whose_views_took_an_earlier_write_matches_torch(write, grad_mode):
    """A write through a view gives the base a new node (`_view_replay`); once the view is gone, the next write
    into the base is an ordinary one, and must land in its memory and give torch's gradients."""
    def outcome(T):
        leaf = T.tensor(BASE.copy(), requires_grad=True)
        base = leaf * 2
        alias = base[1:3]
        alias.mul_(3.0)
        del alias
        if grad_mode == "no_grad":
            with T.no_grad():
                WRITES[write](T, base)
        else:
            WRITES[write](T, base)
        (base * T.tensor(_WEIGHTS)).sum().backward()
        return [None if t is None else np.array(t.detach().numpy()) for t in (base, leaf.grad)]

    _assert_same_base_and_gradient(outcome(mt), outcome(rt))


@pytest.mark.parametrize("view", GRAPH_VIEWS)
def test_views_taken_after_a_write_are_not_refused(view):
    def outcome(T):
        leaf = T.tensor(BASE.copy(), requires_grad=True)
        base = leaf * 2
        base.mul_(3)
        alias = VIEWS[view](T, base)
        ((alias * alias).sum() + base.sum()).backward()
        return [np.array(leaf.grad.numpy())]

    np.testing.assert_allclose(outcome(mt)[0], outcome(rt)[0], rtol=1e-5, atol=1e-6)
