"""torch.autograd.graph.saved_tensors_hooks and save_on_cpu against real torch: gradients through hooks that give
the saved values back (offloading, measuring) are torch's for drawn ops and shapes; the hooks run only inside the
context, unpack only in the backward, the innermost context's; a custom Function's saves are exactly its
save_for_backward tensors and a value-changing hook changes its gradient as in torch; a value-changing hook on a
built-in op's save (MindSpore saves other tensors than torch there) raises instead of giving another gradient."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from mindnlp_shim import _mindspore
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

needs_hooks = pytest.mark.skipif(not _mindspore.HAS_SAVED_TENSORS_HOOKS,
                                 reason="this MindSpore release has no saved-tensor hooks (its refusal is tested)")

OPS = {
    "mul": lambda T, x, w: x * w[0],
    "linear": lambda T, x, w: T.nn.functional.linear(x, w),
    "exp": lambda T, x, w: x.exp() * w.sum(),
    "pow": lambda T, x, w: x.pow(3) + w.sum(),
    "relu": lambda T, x, w: T.relu(x) * w.mean(),
    "softmax": lambda T, x, w: T.softmax(x, -1) * w.sum(),
    "log_softmax": lambda T, x, w: T.log_softmax(x @ w.t(), -1),
    "tanh": lambda T, x, w: T.tanh(x) @ w.t(),
    "sigmoid": lambda T, x, w: T.sigmoid(x @ w.t()),
    "gelu": lambda T, x, w: T.nn.functional.gelu(x) @ w.t(),
    "layer_norm": lambda T, x, w: T.nn.functional.layer_norm(x, (x.shape[-1],), w[0], w[1]),
    "matmul": lambda T, x, w: T.matmul(x, w.t()),
    "mse": lambda T, x, w: T.nn.functional.mse_loss(x @ w.t(), (x @ w.t()).detach() * 0.5),
    "mean": lambda T, x, w: x.mean() + w.mean(),
}


class Counting:
    """Identity hooks that count their calls."""

    def __init__(self):
        self.packed = self.unpacked = 0

    def pack(self, t):
        self.packed += 1
        return t

    def unpack(self, t):
        self.unpacked += 1
        return t


def _grads(T, name, rows, seed, hooks):
    rng = np.random.default_rng(seed)
    x = T.from_numpy(rng.standard_normal((rows, 3)).astype(np.float32)).requires_grad_()
    w = T.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)).requires_grad_()
    with hooks:
        out = OPS[name](T, x, w)
    return out, x, w


@needs_hooks
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(OPS)), st.integers(1, 4), st.integers(0, 999), st.sampled_from(["count", "cpu"]))
def test_gradients_through_value_keeping_hooks_are_torchs(name, rows, seed, kind):
    results = []
    for T in (mt, rt):
        counting = Counting()
        hooks = T.autograd.graph.saved_tensors_hooks(counting.pack, counting.unpack) if kind == "count" \
            else T.autograd.graph.save_on_cpu()
        out, x, w = _grads(T, name, rows, seed, hooks)
        before_backward = counting.unpacked
        (out * T.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
        assert before_backward == 0  # unpack runs in the backward only
        assert counting.unpacked <= counting.packed
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@needs_hooks
def test_hooks_run_inside_their_context_only_and_the_innermost_wins():
    """exp saves one tensor under both engines: which context's hook packs it is compared with torch."""
    answers = []
    for T in (mt, rt):
        log = []
        x = T.ones(3, requires_grad=True)
        outside = x.exp()
        with T.autograd.graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
            a = x.exp()
            with T.autograd.graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
                b = x.exp()
            c = x.exp()
        after = x.exp()
        (outside + a + b + c + after).sum().backward()
        answers.append((log, x.grad.tolist()))
    assert answers[0] == answers[1]


class _Scaled:
    """A custom Function saving its input and a compressed copy, as peft's VeLoRA saves a compressed activation."""

    @staticmethod
    def make(T):
        class Compressed(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x.mean(0, keepdim=True), w)
                return x @ w.t()

            @staticmethod
            def backward(ctx, grad):
                mean, w = ctx.saved_tensors
                return grad @ w, grad.sum(0, keepdim=True).t() @ mean

        return Compressed


@needs_hooks
@pytest.mark.parametrize("unpack_scale", [1.0, 2.0])
def test_a_custom_functions_saves_reach_the_hooks_as_in_torch(unpack_scale):
    answers = []
    for T in (mt, rt):
        seen = []

        def pack(t):
            seen.append((tuple(t.shape), t.numel() * t.element_size()))
            return t

        x = T.arange(12.0).reshape(4, 3).requires_grad_()
        w = (T.arange(6.0).reshape(2, 3) / 7).requires_grad_()
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t * unpack_scale):
            out = _Scaled.make(T).apply(x, w)
        out.sum().backward()
        answers.append((seen, x.grad.tolist(), w.grad.tolist()))
    assert answers[0] == answers[1]


@needs_hooks
def test_a_value_changing_hook_on_a_built_in_ops_save_raises():
    x = mt.ones(3, requires_grad=True)
    with mt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2):
        y = x.exp()
    with pytest.raises(NotImplementedError, match="unpack_hook returned other values"):
        y.sum().backward()
    # torch answers with a gradient computed from its own saved tensor (exp's result), which MindSpore does not save
    rx = rt.ones(3, requires_grad=True)
    with rt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2):
        ry = rx.exp()
    ry.sum().backward()
    assert rx.grad is not None


def test_a_release_without_hooks_refuses_and_save_on_cpu_still_runs(monkeypatch):
    monkeypatch.setattr(_mindspore, "_SAVED_TENSORS_HOOKS", None)
    monkeypatch.setattr(_mindspore, "HAS_SAVED_TENSORS_HOOKS", False)
    with pytest.raises(NotImplementedError, match="saved-tensor hooks from 2.7.2"):
        with mt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    x = mt.ones(2, requires_grad=True)
    with mt.autograd.graph.save_on_cpu():
        y = (x * 3).exp()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3.0) * np.ones(2), rtol=1e-6)
