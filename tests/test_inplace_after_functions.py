"""In-place writes into the outputs of ops that the shim computes as custom-gradient Functions, against real torch.

A table of write kind x producing op: the producer's output (linear on 2-D and 3-D input, layer norm, softmax,
attention, GELU, embedding, checkpointed regions and the other Functions of the shim) is written in place the
ways model code does (`h[~mask] = 0`, `masked_fill_`, `h[:, 0] = ...`, `h += t`, `mul_`), then a weighted sum is
back-propagated. The written values and the gradient of every input and parameter must equal real torch's; where
torch refuses (the op saved its output for the backward), the shim must refuse too.

The cases are one source text run by both: in the oracle's process with real torch, here with the shim.
(Attention is compared with torch's math backend: torch's fused CPU kernel keeps its output for the backward and
refuses these writes; the shim's attention keeps only q, k and v, like the math backend.)
"""
import numpy as np
import pytest

import mindnlp_shim.torch as shim_torch
from mindnlp_shim.torch.nn import _blockwise_attention
from mindnlp_shim.torch.nn import _lean_backward
from mindnlp_shim.torch._ops import host_small as _host_small
from mindnlp_shim.torch.nn import functional as shim_F
from mindnlp_shim.torch.utils import checkpoint as shim_checkpoint

from oracle import require_torch, run_torch_json

CASES = r'''
import numpy as np


def _array(seed, *shape):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def _leaf(seed, *shape, dtype=None):
    value = torch.tensor(_array(seed, *shape))
    if dtype is not None:
        value = value.to(dtype)
    return value.requires_grad_(True)


def _spd(seed):
    a = np.random.RandomState(seed).randn(3, 3)
    return torch.tensor(a @ a.T + 3 * np.eye(3)).requires_grad_(True)


def _linear_2d():
    x, w, b = _leaf(1, 3, 4), _leaf(2, 5, 4), _leaf(3, 5)
    return F.linear(x, w, b), [x, w, b]


def _linear_3d():
    x, w, b = _leaf(1, 2, 3, 4), _leaf(2, 5, 4), _leaf(3, 5)
    return F.linear(x, w, b), [x, w, b]


def _linear_module_3d():
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 5, bias=False)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(_array(2, 5, 4)))
    x = _leaf(1, 2, 3, 4)
    return layer(x), [x, layer.weight]


def _matmul_3d_transposed_weight():
    # Falcon's FalconLinear: `hidden_states @ self.weight.T` on 3-D input (the shim's product by transpose flags)
    x, w = _leaf(1, 2, 3, 4), _leaf(2, 5, 4)
    return x @ w.T, [x, w]


def _matmul_3d_transposed_weight_of_a_plain_input():
    x, w = torch.tensor(_array(1, 2, 3, 4)), _leaf(2, 5, 4)
    return x @ w.T, [w]


def _layer_norm():
    x, w, b = _leaf(1, 2, 3, 4), _leaf(2, 4), _leaf(3, 4)
    return F.layer_norm(x, (4,), w, b), [x, w, b]


def _softmax():
    x = _leaf(1, 2, 3, 4)
    return F.softmax(x, -1), [x]


def _log_softmax():
    x = _leaf(1, 2, 3, 4)
    return F.log_softmax(x, -1), [x]


def _sdpa():
    q, k, v = _leaf(1, 2, 2, 3, 4), _leaf(2, 2, 2, 5, 4), _leaf(3, 2, 2, 5, 4)
    return attention(q, k, v), [q, k, v]


def _sdpa_causal():
    q, k, v = _leaf(1, 2, 2, 3, 4), _leaf(2, 2, 2, 3, 4), _leaf(3, 2, 2, 3, 4)
    return attention(q, k, v, is_causal=True), [q, k, v]


def _gelu():
    x = _leaf(1, 2, 3, 4)
    return F.gelu(x), [x]


def _embedding():
    w = _leaf(2, 10, 4)
    return F.embedding(torch.tensor([[1, 2, 3], [4, 1, 6]]), w), [w]


def _checkpointed_linear():
    x, w, b = _leaf(1, 2, 3, 4), _leaf(2, 5, 4), _leaf(3, 5)
    return checkpoint(lambda t: F.linear(t, w, b), x * 1.0, use_reentrant=False), [x, w, b]


def _dense_copy():
    x = _leaf(1, 4, 3)
    return (x * 2.0).t().contiguous(), [x]


def _bilinear_resize():
    x = _leaf(1, 2, 2, 3, 3)
    return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False), [x]


def _log():
    x = _leaf(1, 3, 4)
    return torch.log(x.abs() + 0.5), [x]


def _tanh():
    x = _leaf(1, 3, 4)
    return torch.tanh(x), [x]


def _lgamma_float64():
    x = _leaf(1, 3, 4, dtype=torch.float64)
    return torch.lgamma(x.abs() + 1.0), [x]


def _special_ndtr_float64():
    x = _leaf(1, 3, 4, dtype=torch.float64)
    return torch.special.ndtr(x), [x]


def _cholesky():
    a = _spd(1)
    return torch.linalg.cholesky(a), [a]


PRODUCERS = {
    "linear_2d": _linear_2d, "linear_3d": _linear_3d, "linear_module_3d": _linear_module_3d,
    "matmul_3d_transposed_weight": _matmul_3d_transposed_weight,
    "matmul_3d_transposed_weight_of_a_plain_input": _matmul_3d_transposed_weight_of_a_plain_input,
    "layer_norm": _layer_norm, "softmax": _softmax, "log_softmax": _log_softmax, "sdpa": _sdpa,
    "sdpa_causal": _sdpa_causal, "sdpa_blockwise": _sdpa, "gelu": _gelu, "embedding": _embedding,
    "checkpointed_linear": _checkpointed_linear, "dense_copy": _dense_copy, "bilinear_resize": _bilinear_resize,
    "log": _log, "tanh": _tanh, "lgamma_float64": _lgamma_float64, "special_ndtr_float64": _special_ndtr_float64,
    "cholesky": _cholesky,
}


def _row_mask(y):
    """A boolean mask over all but the last dimension, with both values present (a padding mask)."""
    keep = np.random.RandomState(7).rand(*tuple(y.shape[:-1])) < 0.6
    keep.flat[0], keep.flat[-1] = True, False
    return torch.tensor(keep)


def _zero_padding(y, extra):
    y[~_row_mask(y)] = 0


def _masked_fill(y, extra):
    y.masked_fill_(_row_mask(y)[..., None], -1.5)


def _first_column(y, extra):
    y[:, 0] = 2.0


def _add_tensor(y, extra):
    addend = torch.tensor(_array(11, *tuple(y.shape))).to(y.dtype).requires_grad_(True)
    extra.append(addend)
    y += addend


def _scale(y, extra):
    y.mul_(1.5)


WRITES = {"zero_padding": _zero_padding, "masked_fill_": _masked_fill, "first_column": _first_column,
          "add_tensor": _add_tensor, "mul_": _scale}


def run_case(producer, write):
    """The written values and every leaf's gradient (or the refusal's exception type, and where it came)."""
    y, leaves = PRODUCERS[producer]()
    try:
        WRITES[write](y, leaves)
    except Exception as exc:
        return {"error": type(exc).__name__, "at": "write", "message": str(exc)[:300]}
    values = y.detach().double().numpy().tolist()
    weights = torch.tensor(np.random.RandomState(5).randn(*tuple(y.shape))).to(y.dtype)
    try:
        (y * weights).sum().backward()
    except Exception as exc:
        return {"error": type(exc).__name__, "at": "backward", "message": str(exc)[:300]}
    grads = [None if t.grad is None else t.grad.double().numpy().tolist() for t in leaves]
    return {"values": values, "grads": grads}


def run_table():
    return {f"{p}|{w}": run_case(p, w) for p in PRODUCERS for w in WRITES}
'''

_namespace = {}
exec(compile(CASES, "<inplace cases>", "exec"), _namespace)
PRODUCERS, WRITES = list(_namespace["PRODUCERS"]), list(_namespace["WRITES"])
# ops whose torch kernel saves its output for the backward: torch refuses a write into that output
_SAVES_OUTPUT = {"softmax", "log_softmax", "tanh", "cholesky"}


# torch's fused CPU attention keeps its output for the backward and so refuses writes into it; its math backend
# (the definition the shim computes) does not: the oracle's attention is the math backend's
_ORACLE_ATTENTION = """
from torch.nn.attention import SDPBackend, sdpa_kernel


def attention(*args, **kwargs):
    with sdpa_kernel(SDPBackend.MATH):
        return F.scaled_dot_product_attention(*args, **kwargs)
"""


@pytest.fixture(scope="module")
def oracle_table():
    require_torch()
    code = ("import json, torch\nimport torch.nn.functional as F\nfrom torch.utils.checkpoint import checkpoint\n"
            + _ORACLE_ATTENTION + CASES + "\nprint(json.dumps(run_table()))\n")
    return run_torch_json(code)


@pytest.fixture(scope="module")
def shim_namespace():
    namespace = {"torch": shim_torch, "F": shim_F, "checkpoint": shim_checkpoint.checkpoint,
                 "attention": shim_F.scaled_dot_product_attention}
    exec(compile(CASES, "<inplace cases>", "exec"), namespace)
    return namespace


def _close(got, want, rtol, atol):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=rtol, atol=atol)


# the default run: every write after the ops that needed the change (and one that saves its output), two writes
# after the others; the rest of the table is marked slow
_EVERY_WRITE_AFTER = {"linear_3d", "linear_module_3d", "checkpointed_linear", "softmax"}
_DEFAULT_WRITES = {"zero_padding", "add_tensor"}


def _table():
    for producer in PRODUCERS:
        for write in WRITES:
            default = producer in _EVERY_WRITE_AFTER or write in _DEFAULT_WRITES
            yield pytest.param(producer, write, marks=() if default else pytest.mark.slow, id=f"{producer}-{write}")


@pytest.mark.parametrize("producer,write", list(_table()))
def test_write_after_function_matches_torch(producer, write, oracle_table, shim_namespace, monkeypatch):
    if producer == "sdpa_blockwise":  # the same attention, served block by block
        monkeypatch.setattr(_blockwise_attention, "BLOCKWISE_FROM_ELEMENTS", 1)
    want = oracle_table[f"{producer}|{write}"]
    got = shim_namespace["run_case"](producer, write)
    # the table's premise about torch: it refuses exactly where the op saved its output
    assert (want.get("error") == "RuntimeError") == (producer in _SAVES_OUTPUT), want
    if "error" in want:
        assert got.get("error") == want["error"], (got, want)
        return
    assert "error" not in got, got
    _close(got["values"], want["values"], 1e-5, 1e-6)
    assert len(got["grads"]) == len(want["grads"])
    for index, (g, w) in enumerate(zip(got["grads"], want["grads"])):
        assert (g is None) == (w is None), (index, g, w)
        if w is not None:
            _close(g, w, 1e-4, 1e-5)


def test_blockwise_case_takes_the_blockwise_function(monkeypatch):
    monkeypatch.setattr(_blockwise_attention, "BLOCKWISE_FROM_ELEMENTS", 1)
    # (inputs this small go to the host's attention first: the blockwise one serves large ones)
    monkeypatch.setattr(_host_small, "attention_in_every_mode", lambda *args: False)
    calls = []
    original = _blockwise_attention._BlockwiseAttention.apply
    monkeypatch.setattr(_blockwise_attention._BlockwiseAttention, "apply",
                        lambda *args: calls.append(1) or original(*args))
    q = shim_torch.ones(2, 2, 3, 4, requires_grad=True)
    out = shim_F.scaled_dot_product_attention(q, q, q)
    out += 1.0
    assert calls == [1]


def test_small_attention_takes_the_host_function_and_its_output_takes_writes(monkeypatch):
    calls = []
    original = _lean_backward._HostAttention.apply
    monkeypatch.setattr(_lean_backward._HostAttention, "apply", lambda *args: calls.append(1) or original(*args))
    q = shim_torch.ones(2, 2, 3, 4, requires_grad=True)
    out = shim_F.scaled_dot_product_attention(q, q, q * 2.0)
    out += 1.0
    (out * out).sum().backward()
    assert calls == [1]
    np.testing.assert_allclose(out.detach().numpy(), 3.0)
    np.testing.assert_allclose(q.grad.numpy(), 12.0, rtol=1e-6)  # d/dq sum((2q + 1)^2) through v only


def test_reentrant_checkpoint_outputs_take_writes_with_the_same_gradients():
    """use_reentrant=True is the same Function: its outputs (views made in the region) are writable too."""
    grads = {}
    for reentrant in (False, True):
        x = shim_torch.tensor(np.random.RandomState(1).randn(2, 3, 4).astype(np.float32), requires_grad=True)
        w = shim_torch.tensor(np.random.RandomState(2).randn(5, 4).astype(np.float32), requires_grad=True)
        y = shim_checkpoint.checkpoint(lambda t: shim_F.linear(t, w), x * 1.0, use_reentrant=reentrant)
        y[:, 0] = 2.0
        y.mul_(3.0)
        (y * y).sum().backward()
        grads[reentrant] = (x.grad.numpy(), w.grad.numpy())
    for a, b in zip(grads[False], grads[True]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert np.abs(grads[True][0]).sum() > 0


def test_an_input_returned_by_a_checkpointed_region_is_still_refused():
    x = shim_torch.ones(2, 3, requires_grad=True)
    y = shim_checkpoint.checkpoint(lambda t: t, x * 1.0, use_reentrant=True)
    with pytest.raises(NotImplementedError, match="custom-gradient function"):
        y.mul_(2.0)
