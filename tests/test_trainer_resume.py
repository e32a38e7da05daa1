"""Resume is exact: a Trainer run interrupted at step k and resumed in a new Trainer (other initial weights) gives
the per-step losses, learning rates, batches and RNG draws of the uninterrupted run, with dropout on; and
`ignore_data_skip` restarts the interrupted epoch's data instead of skipping what was seen.

Scenarios: tests/scripts/trainer_resume_run.py (all in one child process).
"""
import os

import numpy as np
import pytest

from oracle import require_torch, run_torch_json
from trainer_scenarios import result, run_scenarios

SCENARIOS = ["baseline", "resume_max_steps", "resume_path", "ignore_data_skip"]
N_STEPS = 12
STEPS_PER_EPOCH = 5
CHECKPOINT_FILES = {"model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth", "trainer_state.json",
                    "training_args.bin"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    output_dir = tmp_path_factory.mktemp("trainer_resume")
    reports = run_scenarios("trainer_resume_run.py", SCENARIOS, output_dir)
    reports["output_dir"] = str(output_dir)
    return reports


def _after(records, step):
    return [r for r in records if r[0] > step]


def _assert_continues_baseline(baseline, first, second, k):
    # the first run is the baseline's first k steps
    np.testing.assert_allclose([v for _, v in first["losses"]], [v for _, v in baseline["losses"][:k]], atol=1e-6)
    assert first["global_step"] == k
    # the resumed run picks up at k+1 and matches the uninterrupted one step by step
    assert second["global_step"] == N_STEPS
    resumed_losses, expected_losses = _after(second["losses"], k), _after(baseline["losses"], k)
    assert [s for s, _ in resumed_losses] == list(range(k + 1, N_STEPS + 1))
    np.testing.assert_allclose([v for _, v in resumed_losses], [v for _, v in expected_losses], rtol=0, atol=1e-6)
    np.testing.assert_allclose([v for _, v in _after(second["grad_norms"], k)],
                               [v for _, v in _after(baseline["grad_norms"], k)], rtol=1e-5)
    assert _after(second["learning_rates"], k) == _after(baseline["learning_rates"], k)  # scheduler restored
    assert second["batches"] == baseline["batches"][k:]  # data order restored, seen batches skipped
    # Python, NumPy and torch RNG states continue from where the interrupted run was
    assert second["rng_draws"] == baseline["rng_draws"][k:]


def test_uninterrupted_run_learns_with_dropout(runs):
    baseline = result(runs, "baseline")
    losses = [v for _, v in baseline["losses"]]
    assert len(losses) == N_STEPS and len(baseline["batches"]) == N_STEPS
    assert len({round(v, 6) for v in losses}) == N_STEPS  # every step's loss differs: nothing repeats trivially
    assert [lr for _, lr in baseline["learning_rates"][:3]] == [0.0, 1e-3, 2e-3]  # 2 warmup steps, then constant


def test_resume_from_latest_checkpoint_after_max_steps_equals_uninterrupted_run(runs):
    baseline, run = result(runs, "baseline"), result(runs, "resume_max_steps")
    assert set(run["checkpoints"]) == {"checkpoint-7"}  # k=7 is mid-epoch: the resume skips 2 batches
    assert CHECKPOINT_FILES <= set(run["checkpoints"]["checkpoint-7"])
    _assert_continues_baseline(baseline, run["first"], run["second"], 7)
    assert run["checkpoints_after"] == ["checkpoint-12", "checkpoint-7"]


def test_resume_from_checkpoint_path_at_epoch_boundary_equals_uninterrupted_run(runs):
    baseline, run = result(runs, "baseline"), result(runs, "resume_path")
    assert set(run["checkpoints"]) == {"checkpoint-5"}  # saved by the interrupting callback
    assert CHECKPOINT_FILES <= set(run["checkpoints"]["checkpoint-5"])
    _assert_continues_baseline(baseline, run["first"], run["second"], STEPS_PER_EPOCH)


def test_ignore_data_skip_restarts_the_interrupted_epoch(runs):
    baseline, run = result(runs, "baseline"), result(runs, "ignore_data_skip")
    second = run["second"]
    assert second["global_step"] == N_STEPS
    # checkpoint-7 is 2 batches into epoch 2; without skipping, step 8 trains on epoch 2's first batch
    assert second["batches"] == baseline["batches"][STEPS_PER_EPOCH:STEPS_PER_EPOCH + 5]
    assert second["batches"][0] != baseline["batches"][7]
    assert _after(second["learning_rates"], 7) == _after(baseline["learning_rates"], 7)
    losses = [v for _, v in _after(second["losses"], 7)]
    assert len(losses) == 5 and not np.allclose(losses, [v for _, v in _after(baseline["losses"], 7)], atol=1e-6)


def test_rng_state_file_loads_in_real_torch(runs):
    require_torch()
    rng_file = os.path.join(runs["output_dir"], "resume_max_steps", "checkpoint-7", "rng_state.pth")
    found = run_torch_json(f"""
        import json, random, numpy as np, torch
        from transformers.trainer_pt_utils import safe_globals  # what the Trainer loads it with

        with safe_globals():
            state = torch.load({rng_file!r}, weights_only=True)
        random.setstate(state["python"])
        np.random.set_state(state["numpy"])
        torch.set_rng_state(state["cpu"])  # torch's own generator state: real torch adopts it
        print(json.dumps({{"keys": sorted(state), "cpu_dtype": str(state["cpu"].dtype),
                          "cpu_numel": state["cpu"].numel(), "python": random.random(),
                          "numpy": float(np.random.random())}}))
    """)
    assert found["keys"] == ["cpu", "numpy", "python"]
    assert found["cpu_dtype"] == "torch.uint8" and found["cpu_numel"] == 5056
    # "cpu" is torch's CPU generator state (docs/random.md); real torch also restores the Python and NumPy
    # generators the resumed run drew from at step 8
    draw = result(runs, "baseline")["rng_draws"][7]
    assert draw[0] == 8 and found["python"] == draw[1] and found["numpy"] == draw[2]
