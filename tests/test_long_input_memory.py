"""Attention on long inputs (mindnlp_shim/torch/nn/_blockwise_attention.py): query rows in blocks give the same
values and gradients as real torch for every kind of mask, dropout stays reproducible and its backward uses the
forward's masks, and memory does not grow with the (L, S) score tensor.

The parity cases shrink the block size so that small inputs run through several blocks (the last one shorter);
`test_the_blockwise_path_serves_long_inputs_by_default` checks that long inputs take the path unpatched."""
import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from mindnlp_shim.torch.nn import _blockwise_attention as blockwise
from mindnlp_shim.torch.nn import functional as F
from conftest import REPO_ROOT, SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

B, H, L, S, E, EV = 2, 3, 10, 13, 8, 6
ROWS_PER_BLOCK = 4  # 10 query rows: blocks of 4, 4 and 2 per batch entry
BLOCK_ORDER = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]  # (batch entry, row block)
TOL = {np.float32: (1e-5, 2e-6), np.float64: (1e-10, 1e-12), np.float16: (5e-3, 5e-3)}


@pytest.fixture
def small_blocks(monkeypatch):
    """Every call takes the blockwise path, in blocks of ROWS_PER_BLOCK rows; yields the list of block calls."""
    from mindnlp_shim.torch._ops import host_small

    monkeypatch.setattr(host_small, "MAX_ELEMENTS", 0)  # (these small inputs would be computed on the host)
    monkeypatch.setattr(blockwise, "BLOCKWISE_FROM_ELEMENTS", 1)
    monkeypatch.setattr(blockwise, "BLOCK_ELEMENTS", H * S * ROWS_PER_BLOCK)
    calls = []
    weights = blockwise._block_weights

    def counted(plan, entry_index, row_index, query_block, key):
        calls.append((entry_index, row_index, tuple(query_block.shape)))
        return weights(plan, entry_index, row_index, query_block, key)

    monkeypatch.setattr(blockwise, "_block_weights", counted)
    return calls


def _mask(kind, rng):
    if kind == "none" or kind == "causal":
        return None
    if kind == "bool":
        return rng.random((B, 1, L, S)) > 0.3
    if kind == "bool_per_head":
        return rng.random((B, H, L, S)) > 0.3
    if kind == "bool_key_padding":  # one row shared by every query, as (B, 1, 1, S)
        return np.arange(S)[None, None, None, :] < np.array([S, 7]).reshape(B, 1, 1, 1)
    if kind == "bool_2d":
        return rng.random((L, S)) > 0.3
    if kind == "bool_fully_masked_row":
        mask = rng.random((B, 1, L, S)) > 0.3
        mask[1, 0, 5] = False
        return mask
    if kind == "float":
        return (np.where(rng.random((L, S)) > 0.3, 0.0, -np.inf) + rng.standard_normal((L, S))).astype(np.float32)
    if kind == "float_fully_masked_row":
        mask = rng.standard_normal((B, 1, L, S)).astype(np.float32)
        mask[0, 0, 9] = -np.inf
        return mask
    raise AssertionError(kind)


def _attention(T, arrays, dtype, mask, kind, grad_out):
    q, k, v = [T.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    kwargs = {"is_causal": True} if kind == "causal" else {}
    if mask is not None:
        kwargs["attn_mask"] = T.tensor(mask if mask.dtype == np.bool_ else mask.astype(dtype))
    out = T.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
    out.backward(T.tensor(grad_out.astype(dtype)))
    return [np.asarray(t.detach().float().numpy() if dtype == "bfloat16" else t.detach().numpy(), np.float64)
            for t in (out, q.grad, k.grad, v.grad)]


MASKS = ["none", "causal", "bool", "bool_per_head", "bool_key_padding", "bool_2d", "bool_fully_masked_row",
         "float", "float_fully_masked_row"]


@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blockwise_values_and_gradients_equal_real_torch(small_blocks, kind, dtype):
    rng = np.random.default_rng(MASKS.index(kind))
    arrays = [rng.standard_normal((B, H, L, E)), rng.standard_normal((B, H, S, E)), rng.standard_normal((B, H, S, EV))]
    mask = _mask(kind, rng)
    grad_out = rng.standard_normal((B, H, L, EV))
    ours = _attention(mt, arrays, dtype, mask, kind, grad_out)
    theirs = _attention(rt, arrays, dtype, mask, kind, grad_out)
    # per batch entry 3 row blocks, in the forward and again in the backward (weights recomputed per block)
    assert [(e, r) for e, r, _ in small_blocks] == BLOCK_ORDER * 2
    assert [shape for _, _, shape in small_blocks[:3]] == [(1, H, 4, E), (1, H, 4, E), (1, H, 2, E)]
    rtol, atol = TOL[dtype]
    for name, got, want in zip(("out", "grad q", "grad k", "grad v"), ours, theirs):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{kind}: {name}")
    if "fully_masked" in kind:  # torch: a query that sees no key gives zeros and passes no gradient
        row = (1, slice(None), 5) if kind.startswith("bool") else (0, slice(None), 9)
        assert not ours[0][row].any() and not ours[1][row].any()


@pytest.mark.parametrize("kind", ["bool_fully_masked_row", "float_fully_masked_row"])
def test_short_inputs_float64_fully_masked_rows_equal_real_torch(kind):
    """The one-expression path (inputs below the threshold) floors -inf with float64's lowest value as a float64
    tensor: as a Python float MindSpore rounded it to float32, i.e. -inf, and the row came out NaN."""
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal((B, H, L, E)), rng.standard_normal((B, H, S, E)), rng.standard_normal((B, H, S, EV))]
    mask = _mask(kind, rng)
    grad_out = rng.standard_normal((B, H, L, EV))
    assert not blockwise.applies(*[mt.zeros(a.shape) for a in arrays], None)
    ours = _attention(mt, arrays, np.float64, mask, kind, grad_out)
    theirs = _attention(rt, arrays, np.float64, mask, kind, grad_out)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16])
@pytest.mark.parametrize("kind", ["bool", "causal"])
def test_blockwise_half_precision_within_half_tolerance(small_blocks, dtype, kind):
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal((B, H, L, E)), rng.standard_normal((B, H, S, E)), rng.standard_normal((B, H, S, EV))]
    mask = _mask(kind, rng)
    grad_out = rng.standard_normal((B, H, L, EV))
    ours = _attention(mt, arrays, dtype, mask, kind, grad_out)
    theirs = _attention(rt, arrays, dtype, mask, kind, grad_out)
    assert len(small_blocks) == 12
    rtol, atol = TOL[dtype]
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_whole_batch_entries_share_a_block_when_all_their_rows_fit(small_blocks, monkeypatch):
    monkeypatch.setattr(blockwise, "BLOCK_ELEMENTS", 2 * H * L * S)  # two entries of 4 per block
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((4, H, L, E)), rng.standard_normal((4, H, S, E)), rng.standard_normal((4, H, S, EV))]
    mask = rng.random((4, 1, L, S)) > 0.3
    grad_out = rng.standard_normal((4, H, L, EV))
    ours = _attention(mt, arrays, np.float32, mask, "bool", grad_out)
    theirs = _attention(rt, arrays, np.float32, mask, "bool", grad_out)
    assert [(e, r, shape) for e, r, shape in small_blocks] == [(0, 0, (2, H, L, E)), (1, 0, (2, H, L, E))] * 2
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6)


def test_blockwise_without_grad_equals_the_recorded_forward(small_blocks):
    rng = np.random.default_rng(3)
    q, k, v = [mt.tensor(rng.standard_normal(s).astype(np.float32)) for s in ((B, H, L, E), (B, H, S, E), (B, H, S, EV))]
    mask = mt.tensor(_mask("bool", rng))
    with mt.no_grad():
        plain = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    q.requires_grad_()
    recorded = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert plain.grad_fn is None and recorded.grad_fn is not None
    assert len(small_blocks) == 12
    np.testing.assert_array_equal(plain.numpy(), recorded.detach().numpy())


def _dropout_reference(q, k, v, mask, p, seed):
    """The composition softmax(q k^T / sqrt(E) + mask) * keep / (1 - p) @ v, with the keep masks the blockwise
    path draws after manual_seed(seed): one draw of shape (1, H, rows, S) per block, in block order."""
    mt.manual_seed(seed)
    keep = np.concatenate([np.concatenate([F._keep_bools((1, H, rows, S), p) for rows in (4, 4, 2)], axis=2)
                           for _ in range(B)], axis=0)
    scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(E)) + mask
    weights = mt.softmax(scores, -1) * mt.tensor(keep.astype(np.float32) / (1.0 - p))
    return weights @ v, keep


def test_dropout_is_reproducible_and_its_backward_uses_the_forward_masks(small_blocks):
    p, seed = 0.3, 11
    rng = np.random.default_rng(5)
    q, k, v = [mt.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
               for s in ((B, H, L, E), (B, H, S, E), (B, H, S, EV))]
    mask = mt.tensor(np.where(rng.random((B, 1, L, S)) > 0.2, 0.0, -1e9).astype(np.float32))
    grad_out = mt.tensor(rng.standard_normal((B, H, L, EV)).astype(np.float32))

    mt.manual_seed(seed)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
    mt.manual_seed(12345)  # the generator moves on before the backward: the masks must come from the saved state
    mt.rand(100)
    grads = mt.autograd.grad(out, (q, k, v), grad_out)
    mt.manual_seed(seed)
    again = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
    mt.manual_seed(seed + 1)
    other = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
    np.testing.assert_array_equal(out.detach().numpy(), again.detach().numpy())
    assert not np.allclose(out.detach().numpy(), other.detach().numpy())

    reference, keep = _dropout_reference(q, k, v, mask, p, seed)
    assert 0.2 < 1.0 - keep.mean() < 0.4
    reference_grads = mt.autograd.grad(reference, (q, k, v), grad_out)
    np.testing.assert_allclose(out.detach().numpy(), reference.detach().numpy(), rtol=1e-5, atol=2e-6)
    for got, want in zip(grads, reference_grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)


def test_the_blockwise_path_serves_long_inputs_by_default():
    """Unpatched thresholds: a MiniLM-sized attention at 2 x 1024 tokens is blockwise, the MiniLM Trainer step's
    batch 16 x 128 keeps the one-expression path."""
    def shapes(batch, length):
        q = mt.zeros((batch, 12, length, 32))
        return q, q, q

    assert blockwise.applies(*shapes(2, 1024), None)
    assert not blockwise.applies(*shapes(16, 128), None)
    plan = blockwise._Plan(*shapes(8, 2048)[:2], None, False, 0.0)
    assert plan.entries == 1 and plan.rows * 12 * 2048 <= blockwise.BLOCK_ELEMENTS and len(plan.row_starts) > 1


# ---------------------------------------------------------------- memory (in a fresh process: peak RSS is per process)
_MEMORY_CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindnlp_shim.torch as torch
    from mindnlp_shim.torch.nn import _blockwise_attention as blockwise

    def hwm_mb():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024.0

    batch, heads, length, width, threshold = (int(a) for a in sys.argv[1:6])
    blockwise.BLOCKWISE_FROM_ELEMENTS = threshold
    rng = np.random.default_rng(0)
    q, k, v = [torch.tensor(rng.standard_normal((batch, heads, length, width)).astype(np.float32),
                            requires_grad=True) for _ in range(3)]
    lengths = np.array([length, length // 2] * batch)[:batch].reshape(batch, 1, 1, 1)
    mask = torch.tensor((np.arange(length)[None, None, None, :] < lengths).repeat(length, 2))  # (batch, 1, L, L)
    small = [torch.tensor(rng.standard_normal((1, heads, 64, width)).astype(np.float32), requires_grad=True)
             for _ in range(3)]
    torch.nn.functional.scaled_dot_product_attention(*small).sum().backward()  # kernels and pools warmed up
    before = hwm_mb()
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.1)
    out.sum().backward()
    print(json.dumps({"growth_mb": hwm_mb() - before}))
""")


def _attention_peak_growth_mb(batch, heads, length, width, threshold):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    env.update(PYTHONPATH=REPO_ROOT, GLOG_v="3")
    proc = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(batch), str(heads), str(length), str(width),
                           str(threshold)], env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])["growth_mb"]


def test_attention_memory_does_not_hold_the_score_tensor():
    """Forward + backward with a padding mask and dropout at 1 x 12 x 2048 x 32: the (1, 12, 2048, 2048) scores are
    192 MiB. Blockwise, the peak grows by well under one score tensor; the one-expression path (the threshold
    raised out of reach) holds several at once, which shows the measurement can tell them apart."""
    score_mb = 12 * 2048 * 2048 * 4 / 2 ** 20
    blockwise_growth = _attention_peak_growth_mb(1, 12, 2048, 32, blockwise.BLOCKWISE_FROM_ELEMENTS)
    whole_growth = _attention_peak_growth_mb(1, 12, 2048, 32, 1 << 62)
    assert blockwise_growth < 0.75 * score_mb, (blockwise_growth, whole_growth)
    assert whole_growth > 3 * score_mb, (blockwise_growth, whole_growth)


@pytest.mark.slow
def test_minilm_sized_bert_at_8_x_2048_peaks_within_1_5x_of_real_torch(tmp_path):
    """benchmarks/long_inputs.py: forward (eval, no grad) of a MiniLM-sized BERT at batch 8 x 2048, ours against
    real torch, each in its own process."""
    out = tmp_path / "long.json"
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "benchmarks", "long_inputs.py"), "--seqs", "2048",
                           "--modes", "forward", "--json", str(out)],
                          cwd=str(tmp_path), env=dict(os.environ, GLOG_v="3"), capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    record, = json.loads(out.read_text())["records"]
    assert record["ours"]["torch_module"].startswith("mindnlp_shim") and record["torch"]["torch_module"] == "torch"
    assert record["ratio"] <= 1.5, record


def test_a_large_dropout_draw_in_pieces_equals_one_draw(monkeypatch):
    """Dropout masks larger than the draw piece are drawn piece by piece into a bool array: the same values as
    one draw from the same seed."""
    shape = (3, 50, 70)
    mt.manual_seed(21)
    whole = F._keep_bools(shape, 0.4)
    monkeypatch.setattr(F, "_DRAW_PIECE_ELEMENTS", 1000)
    mt.manual_seed(21)
    pieces = F._keep_bools(shape, 0.4)
    np.testing.assert_array_equal(pieces, whole)
    assert 0.3 < 1.0 - pieces.mean() < 0.5
