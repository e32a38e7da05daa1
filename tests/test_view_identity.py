"""A view op returns a distinct tensor even where it changes nothing (`x.view(x.shape)`, `x.transpose(0, 0)`,
`x.expand_as(x)`, `x[...]`, a split into one piece), as torch's do: a hook, `.grad`, `requires_grad_()` or an
attribute on the view must not act on its input. torch returns the input itself only from the ops listed in
SAME_OBJECT (flatten that flattens nothing, contiguous, same-dtype conversions). Compared with real torch."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# name -> (shape of the input, the op)
OPS = {
    "view_same": ((2, 3), lambda x: x.view(2, 3)),
    "view_minus_one": ((4,), lambda x: x.view(-1)),
    "reshape_same": ((2, 3), lambda x: x.reshape(2, 3)),
    "view_as": ((2, 3), lambda x: x.view_as(x)),
    "reshape_as": ((2, 3), lambda x: x.reshape_as(x)),
    "view_same_dtype": ((2, 3), lambda x: x.view(x.dtype)),
    "transpose_same_dim": ((2, 3), lambda x: x.transpose(1, 1)),
    "transpose_1d": ((4,), lambda x: x.transpose(0, -1)),
    "swapaxes_same": ((2, 3), lambda x: x.swapaxes(0, 0)),
    "t_1d": ((4,), lambda x: x.t()),
    "t_0d": ((), lambda x: x.t()),
    "T_1d": ((4,), lambda x: x.T),
    "permute_identity": ((2, 3), lambda x: x.permute(0, 1)),
    "movedim_identity": ((2, 3), lambda x: x.movedim(1, 1)),
    "expand_same": ((2, 3), lambda x: x.expand(2, 3)),
    "expand_as_self": ((2, 3), lambda x: x.expand_as(x)),
    "squeeze_nothing": ((2, 3), lambda x: x.squeeze()),
    "squeeze_dim_not_one": ((2, 3), lambda x: x.squeeze(0)),
    "unflatten_one": ((2, 3), lambda x: x.unflatten(1, (3,))),
    "narrow_full": ((2, 3), lambda x: x.narrow(0, 0, 2)),
    "getitem_ellipsis": ((2, 3), lambda x: x[...]),
    "getitem_full_slice": ((2, 3), lambda x: x[:]),
    "split_one_piece": ((2, 3), lambda x: x.split(2)[0]),
    "chunk_one": ((2, 3), lambda x: x.chunk(1)[0]),
    "ravel_1d": ((4,), lambda x: x.ravel()),
    "transposed_view_same": ((3, 2), lambda x: x.t().view(2, 3)),
    # torch returns the input itself from these
    "flatten_1d": ((4,), lambda x: x.flatten()),
    "flatten_nothing": ((2, 3), lambda x: x.flatten(1, 1)),
    "contiguous": ((2, 3), lambda x: x.contiguous()),
    "to_same_dtype": ((2, 3), lambda x: x.to(x.dtype)),
    "float_of_float": ((2, 3), lambda x: x.float()),
}
SAME_OBJECT = {"flatten_1d", "flatten_nothing", "contiguous", "to_same_dtype", "float_of_float"}


def _input(T, shape):
    return T.from_numpy(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


@pytest.mark.parametrize("name", sorted(OPS))
def test_identity_and_aliasing_as_torch(name):
    shape, op = OPS[name]
    answers = []
    for T in (rt, mt):
        x = _input(T, shape)
        base = x.t() if name == "transposed_view_same" else x
        out = op(x)
        same = out is base
        out.add_(1) if out.numel() else None  # a write through the result reaches the input (a view or itself)
        answers.append((same, base.detach().numpy().tolist(), tuple(out.shape), tuple(out.stride())))
    assert answers[1] == answers[0]
    assert answers[0][0] == (name in SAME_OBJECT)


@pytest.mark.parametrize("name", ["view_same", "reshape_same", "expand_as_self", "permute_identity",
                                  "transpose_same_dim", "getitem_ellipsis", "squeeze_nothing"])
def test_hook_and_grad_of_a_view_are_its_own(name):
    """A hook on the view sees the gradient that flows through the view only; the view is not a leaf."""
    shape, op = OPS[name]
    answers = []
    for T in (rt, mt):
        w = _input(T, shape).requires_grad_()
        seen = []
        view = op(w)
        view.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
        ((view * 2).sum() + (w * 3).sum()).backward()
        answers.append((view.is_leaf, view.grad_fn is not None, seen[0].tolist(), w.grad.numpy().tolist()))
    assert answers[1] == answers[0]
    assert answers[0][0] is False


@pytest.mark.parametrize("name", ["view_same", "expand_same", "getitem_ellipsis", "split_one_piece"])
def test_requires_grad_and_attributes_of_a_view_stay_on_it(name):
    shape, op = OPS[name]
    answers = []
    for T in (rt, mt):
        x = _input(T, shape)
        view = op(x)
        view.requires_grad_()
        view.marker = 1
        answers.append((x.requires_grad, hasattr(x, "marker"), view.requires_grad))
    assert answers[1] == answers[0] == (False, False, True)
