"""torch.broadcast_shapes against real torch: the torch.Size it returns, and the error type for shapes that do not
broadcast (a mismatch, a negative size, an argument that is no shape), over generated argument lists."""
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

API_CENSUS = {"torch.broadcast_shapes": "test_broadcast_shapes_matches_torch"}

sizes = st.sampled_from([0, 1, 1, 2, 3, -1])
shape = st.one_of(st.integers(-1, 3), st.lists(sizes, max_size=4).map(tuple), st.lists(sizes, max_size=4))
argument = st.one_of(shape, shape, shape, st.just(2.0), st.just("2"))


def _answer(T, shapes):
    try:
        return "ok", T.broadcast_shapes(*shapes)
    except Exception as exc:  # noqa: BLE001  (the type is what is compared)
        return "raised", type(exc)


@settings(max_examples=300, deadline=None)
@given(st.lists(argument, max_size=4))
def test_broadcast_shapes_matches_torch(shapes):
    ours, theirs = _answer(mt, shapes), _answer(rt, shapes)
    assert ours[0] == theirs[0], (shapes, ours, theirs)
    if ours[0] == "ok":
        assert type(ours[1]) is mt.Size and tuple(ours[1]) == tuple(theirs[1]), (shapes, ours, theirs)
    else:
        assert ours[1] is theirs[1], (shapes, ours, theirs)


def test_broadcast_shapes_error_names_the_argument():
    with pytest.raises(RuntimeError, match="index 1 had \\(3,\\)"):
        mt.broadcast_shapes((2,), (3,))
