"""Activation checkpointing of regions whose inputs and outputs are plain Python objects holding tensors (peft's
ShadowCarrier couples the hidden states with a shadow state, and its shadow backbone runs in a forward pre-hook of
the checkpointed block, so its parameters are reached only inside the region). torch's checkpoint passes any
object through; the shim's once took such objects for constants, so the region's outputs left the graph and the
closed-over parameters got no gradient. Outputs and every gradient are compared with real torch, checkpointed with
either variant and without checkpointing, over generated sizes and region layouts."""
import numpy as np
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


class _Carrier:
    def __init__(self, hidden, shadow):
        self.hidden, self.shadow = hidden, shadow


def _run(T, width, batch, checkpointed, reentrant, nested):
    try:
        return _run_or_raise(T, width, batch, checkpointed, reentrant, nested)
    except RuntimeError as exc:  # (torch's reentrant variant takes objects for constants: no graph through them)
        return [type(exc).__name__, str(exc)]


def _run_or_raise(T, width, batch, checkpointed, reentrant, nested):
    modules = [T.nn.Linear(width, width) for _ in range(3)]
    block, seeder, mix = modules
    with T.no_grad():
        for i, p in enumerate(p for m in modules for p in m.parameters()):
            p.copy_(T.from_numpy(np.sin(np.arange(p.numel()) * 0.7 + i).reshape(p.shape).astype(np.float32)))
    base_forward = block.forward
    block.register_forward_pre_hook(lambda module, args: (_Carrier(args[0], seeder(args[0]).tanh()),))
    block.forward = lambda c: _Carrier(base_forward(c.hidden) + c.shadow, {"shadow": [mix(c.shadow)]} if nested
                                       else mix(c.shadow))

    def unpack(c):
        return c.shadow["shadow"][0] if nested else c.shadow

    def second(c):
        return _Carrier(c.hidden * unpack(c).sigmoid(), unpack(c))

    x = T.from_numpy(np.cos(np.arange(batch * width)).reshape(batch, width).astype(np.float32)).requires_grad_()
    if checkpointed:
        c = T.utils.checkpoint.checkpoint(block.__call__, x, use_reentrant=reentrant)
        c = T.utils.checkpoint.checkpoint(second, c, use_reentrant=reentrant)
    else:
        c = second(block(x))
    loss = c.hidden.pow(2).sum() + c.shadow.sum()
    loss.backward()
    return [loss.detach().numpy()] + [p.grad.numpy() for m in modules for p in m.parameters()] + [x.grad.numpy()]


@settings(max_examples=16, deadline=None, database=None)
@given(width=st.integers(1, 6), batch=st.integers(1, 3), checkpointed=st.booleans(), reentrant=st.booleans(),
       nested=st.booleans())
def test_object_carriers_match_torch(width, batch, checkpointed, reentrant, nested):
    ours = _run(mt, width, batch, checkpointed, reentrant, nested)
    theirs = _run(rt, width, batch, checkpointed, reentrant, nested)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(b, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_the_region_receives_the_callers_object_in_the_forward():
    seen = []

    def region(c):
        seen.append(c)
        c.calls = getattr(c, "calls", 0) + 1
        return c.hidden * 2

    carrier = _Carrier(mt.ones(2, requires_grad=True), mt.ones(2))
    mt.utils.checkpoint.checkpoint(region, carrier, use_reentrant=False).sum().backward()
    assert seen[0] is carrier and carrier.calls == 1  # (the recomputation works on a copy)
    assert seen[1] is not carrier
    np.testing.assert_array_equal(carrier.hidden.grad.numpy(), [2.0, 2.0])
