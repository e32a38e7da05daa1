"""A value that requires grad written in place into a tensor outside the graph while views of it are alive: torch
gives the views the write's history (their gradients reach the written value); the shim cannot reach those views
from the base, so it raises NotImplementedError rather than leave them without a gradient. With the views gone, the
write gives torch's gradients. Each view kind x write, against real torch."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

VIEWS = {
    "select": lambda r: r[0],
    "slice": lambda r: r[:, 1:],
    "transpose": lambda r: r.t(),
    "view": lambda r: r.view(6),
    "unsqueeze": lambda r: r.unsqueeze(0),
    "narrow": lambda r: r.narrow(0, 1, 1),
}
WRITES = {
    "add_": lambda r, x: r.add_(x),
    "copy_": lambda r, x: r.copy_(x),
    "mul_": lambda r, x: r.mul_(x),
    "iadd": lambda r, x: r.__iadd__(x),
    "setitem": lambda r, x: r.__setitem__(Ellipsis, x),
}


def _inputs(T):
    base = T.tensor(np.arange(1.0, 7.0).reshape(2, 3), dtype=T.float32)
    x = T.tensor(np.linspace(0.5, 1.5, 6).reshape(2, 3), dtype=T.float32, requires_grad=True)
    return base, x


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_live_view_of_the_base_is_torchs_or_refused(view, write):
    base, x = _inputs(rt)
    v = VIEWS[view](base)
    WRITES[write](base, x)
    v.sum().backward()
    assert x.grad is not None and x.grad.abs().sum() > 0  # torch: the view's gradient reaches x

    base, x = _inputs(mt)
    v = VIEWS[view](base)
    with pytest.raises(NotImplementedError, match="alive"):
        WRITES[write](base, x)


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_a_dropped_view_leaves_torchs_gradients(view, write):
    grads = []
    for T in (rt, mt):
        base, x = _inputs(T)
        VIEWS[view](base).sum()  # a view used and dropped before the write
        out = WRITES[write](base, x)
        out = base if out is None else out
        (out * T.arange(6.0).reshape(2, 3)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
