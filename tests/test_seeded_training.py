"""Same seed, same training as real PyTorch: the unmodified Trainer on a tiny BERT created from its config
(random initialisation under the seed), a shuffled DataLoader and dropout on. Every random number (weights,
sample order, dropout masks) comes from the generator, so a wrong draw anywhere moves the losses by ~1e-3 or
more; with torch's generator they agree with real torch's to ~1e-6 (the forward's own float differences).

A Trainer resuming a checkpoint real torch wrote restores its CPU RNG state and continues torch's loss curve.
"""
import json
import os

import numpy as np
import pytest

from oracle import require_torch, run_torch
from shim_runner import run_shim_json, script

RUN = script("seeded_training_run.py")
SAVE_STEPS = 4
TOLERANCE = 1e-5  # absolute, per step's loss


def _runs(output_dir, steps):
    require_torch()
    theirs = json.loads(run_torch(f"""
        import runpy, sys
        sys.argv = [{RUN!r}, "--side", "torch", "--output-dir", {str(output_dir)!r}, "--steps", "{steps}",
                    "--save-steps", "{SAVE_STEPS}"]
        runpy.run_path({RUN!r}, run_name="__main__")
    """, timeout=1200).strip().splitlines()[-1])["plain"]
    checkpoint = os.path.join(str(output_dir), "torch", f"checkpoint-{SAVE_STEPS}")
    ours = run_shim_json([RUN, "--output-dir", str(output_dir), "--steps", str(steps), "--save-steps",
                          str(SAVE_STEPS), "--resume-from", checkpoint], timeout=1200)
    return theirs, ours


def _check_same_curve(theirs, ours, steps):
    assert theirs["global_step"] == ours["plain"]["global_step"] == steps
    assert len(theirs["losses"]) == len(ours["plain"]["losses"]) == steps
    np.testing.assert_allclose(ours["plain"]["losses"], theirs["losses"], rtol=0, atol=TOLERANCE)
    # the curve is not flat: a step's loss depends on that step's batch and masks
    assert np.ptp(theirs["losses"]) > 100 * TOLERANCE


def _check_resumed(theirs, ours, steps):
    resumed = ours["resumed"]
    assert resumed["global_step"] == steps and len(resumed["losses"]) == steps - SAVE_STEPS
    np.testing.assert_allclose(resumed["losses"], theirs["losses"][SAVE_STEPS:], rtol=0, atol=TOLERANCE)


@pytest.fixture(scope="module")
def short_runs(tmp_path_factory):
    return _runs(tmp_path_factory.mktemp("seeded_short"), 10)


def test_per_step_losses_equal_real_torchs(short_runs):
    _check_same_curve(*short_runs, 10)


def test_resuming_real_torchs_checkpoint_continues_its_curve(short_runs):
    _check_resumed(*short_runs, 10)


@pytest.mark.slow
def test_forty_steps_equal_real_torchs_and_resume(tmp_path_factory):
    theirs, ours = _runs(tmp_path_factory.mktemp("seeded_long"), 40)
    _check_same_curve(theirs, ours, 40)
    _check_resumed(theirs, ours, 40)
