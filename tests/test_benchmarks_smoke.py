"""The dispatch benchmark runs end to end and writes its figures (a smoke test: no timing is asserted)."""
import json
import math
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO_ROOT, "benchmarks", "dispatch_overhead.py")


def test_dispatch_benchmark_reports_ours_and_raw_for_each_requested_op(tmp_path):
    out = tmp_path / "dispatch.json"
    env = dict(os.environ, GLOG_v="3")
    proc = subprocess.run(
        [sys.executable, SCRIPT, "--ops", "add,mul", "--sizes", "4", "--rounds", "1", "--repeats", "2",
         "--number", "2", "--skip-context", "--json", str(out)],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["errors"] == {}
    records = figures["records"]
    assert [(r["op"], r["size"]) for r in records] == [("add", 4), ("mul", 4)]
    for record in records:
        for key in ("ours_us", "raw_us", "ours_cpu_us", "raw_cpu_us"):
            value = record[key]
            assert isinstance(value, float) and math.isfinite(value) and value > 0, (record["op"], key, value)
        assert record["overhead_us"] == record["ours_us"] - record["raw_us"]
        assert record["ours_over_raw"] == record["ours_us"] / record["raw_us"]
        assert record["torch_us"] is None  # --skip-context: no real-torch child ran
    assert "median_overhead_us" in figures["summary"]
    assert "| add " in proc.stdout and "| mul " in proc.stdout


def test_dispatch_benchmark_rejects_an_unknown_op():
    proc = subprocess.run([sys.executable, SCRIPT, "--ops", "add,no_such_op", "--skip-context"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "no_such_op" in proc.stderr


TRAINER_STEP = os.path.join(REPO_ROOT, "benchmarks", "trainer_step.py")


@pytest.mark.slow  # three implementations of a training run (~30 s); the benchmark tooling, not the shim
def test_tiny_llama_floor_computes_the_same_losses_as_ours_and_real_torch(tmp_path):
    """trainer_step.py --check on the tiny Llama: the hand-written MindSpore floor, transformers under the shim and
    transformers on real torch load one checkpoint and one batch and report the same dropout-free losses."""
    out = tmp_path / "check.json"
    proc = subprocess.run(
        [sys.executable, TRAINER_STEP, "--models", "tiny-llama", "--check", "--json", str(out)],
        cwd=str(tmp_path), env=dict(os.environ, GLOG_v="3"), capture_output=True, text=True, timeout=400,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text())["models"]["tiny-llama"]["results"]
    losses = {impl: results[impl]["check_losses"] for impl in ("ours", "raw", "torch")}
    reference = losses["torch"]
    # an untrained causal LM over 1024 tokens starts near ln(1024); two AdamW steps on one batch lower the loss
    assert abs(reference[0] - math.log(1024)) < 0.1, reference
    assert reference[2] < reference[1] < reference[0], reference
    for impl in ("raw", "ours"):
        assert len(losses[impl]) == 3
        for mine, theirs in zip(losses[impl], reference):
            assert abs(mine - theirs) <= 1e-4 * abs(theirs), (impl, losses[impl], reference)


SMALL_INPUTS = os.path.join(REPO_ROOT, "benchmarks", "small_inputs.py")


@pytest.mark.slow  # ~25 s; greedy tokens against real torch are in the default run (tests/test_generation.py)
def test_decode_benchmark_checks_our_tokens_against_real_torch(tmp_path):
    """small_inputs.py's decode part (kept small: the Llama, batch 1, 4 new tokens, one timed call): both
    implementations report a throughput, and ours' greedy tokens are compared with real torch's and agree."""
    out = tmp_path / "small.json"
    proc = subprocess.run(
        [sys.executable, SMALL_INPUTS, "--parts", "decode", "--impls", "ours,torch", "--families", "llama",
         "--batches", "1", "--new-tokens", "4", "--repeats", "1", "--json", str(out)],
        cwd=str(tmp_path), env=dict(os.environ, GLOG_v="3"), capture_output=True, text=True, timeout=400,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    figures = json.loads(out.read_text())
    entry = figures["figures"]["decode"]["llama/batch1"]
    assert entry["tokens_equal"] is True
    for impl in ("ours", "torch"):
        assert entry["results"][impl]["tokens_per_s"] > 0, entry["results"][impl]
    assert figures["differ_from_torch"] == []
