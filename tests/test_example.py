"""examples/text_classification.py, run as a user would: the full fine-tune (slow), a 3-step smoke run with
optim="adamw_torch", and a clear message for a missing data file."""
import os
import re
import time

import pytest

from example_runs import needs_minilm, read_summary
from shim_runner import REPO_ROOT, run_process

EXAMPLE = os.path.join(REPO_ROOT, "examples", "text_classification.py")
SUMMARY_LINES = ("backend:", "model:", "train loss:", "eval accuracy:", "time per step:", "model saved to:",
                 "reloaded logits:")
RELOADED_EXACTLY = "max |difference| 0 over 32 test texts"


def _run_example(tmp_path, *extra, timeout):
    output_dir = str(tmp_path / "out")
    proc = run_process([EXAMPLE, "--output-dir", output_dir, *extra], timeout=timeout)
    return read_summary(proc.stdout), output_dir


@needs_minilm
def test_three_step_run_with_adamw_torch_prints_summary(tmp_path):
    # the default optim (adamw_torch_fused) runs in the slow full fine-tune and in tests/test_trainer.py
    summary, output_dir = _run_example(tmp_path, "--max-steps", "3", "--epochs", "1", "--optim", "adamw_torch",
                                       timeout=900)
    for key in SUMMARY_LINES:
        assert key in summary, (key, summary)
    assert summary["backend:"].startswith("torch API") and "on MindSpore" in summary["backend:"]
    assert 0 < float(summary["train loss:"]) < 2
    assert 0 <= float(summary["eval accuracy:"]) <= 1
    assert re.fullmatch(r"[0-9.]+ s \(median of 2 steps\)", summary["time per step:"]), summary["time per step:"]
    final_dir = os.path.join(output_dir, "final")
    assert summary["model saved to:"] == final_dir
    assert os.path.isfile(os.path.join(final_dir, "model.safetensors"))
    assert summary["reloaded logits:"] == RELOADED_EXACTLY
    with open(os.path.join(output_dir, "checkpoint-3", "trainer_state.json")) as f:
        assert '"global_step": 3' in f.read()


@needs_minilm
def test_missing_data_file_is_a_clear_error(tmp_path):
    missing = str(tmp_path / "no_such_train.csv")
    proc = run_process([EXAMPLE, "--train-file", missing, "--output-dir", str(tmp_path / "out")], timeout=300,
                       check=False)
    assert proc.returncode != 0
    assert f"data file not found: {missing}" in proc.stderr
    assert "Traceback" not in proc.stderr


@needs_minilm
@pytest.mark.slow
def test_full_fine_tune_reaches_accuracy(tmp_path):
    start = time.perf_counter()
    summary, output_dir = _run_example(tmp_path, timeout=3600)
    elapsed = time.perf_counter() - start
    accuracy = float(summary["eval accuracy:"])
    print(f"\nfull example run: eval accuracy {accuracy:.4f}, train loss {summary['train loss:']}, "
          f"{summary['time per step:']} per step, {elapsed:.0f} s wall")
    assert accuracy >= 0.9
    assert summary["reloaded logits:"] == RELOADED_EXACTLY
    assert os.path.isfile(os.path.join(summary["model saved to:"], "model.safetensors"))
    assert summary["model saved to:"] == os.path.join(output_dir, "final")
