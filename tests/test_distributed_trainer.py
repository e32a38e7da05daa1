"""The unmodified Trainer on 2 processes over loopback: a tiny BERT (from a config, fixed weights, dropout off,
sequential sampler, gradient accumulation 2) trained for 3 steps, launched by `python -m mindnlp.run
--nproc_per_node 2` on the shim and by real torch's `python -m torch.distributed.run` on its gloo backend
(tests/scripts/distributed_trainer_run.py). Then a resume from the step-2 checkpoint on the shim."""
import json
import os
import sys

import numpy as np
import pytest

import distributed_jobs
from shim_runner import script, shim_env

SCRIPT = script("distributed_trainer_run.py")
LAUNCH = ["--nproc_per_node", "2", "--standalone"]


def _load(out, tag):
    return [(json.load(open(out / f"{tag}_rank{r}.json")), dict(np.load(out / f"{tag}_rank{r}.npz")))
            for r in range(2)]


def _shim_launch(out, tag, *extra):
    return distributed_jobs.start([sys.executable, "-m", "mindnlp.run", *LAUNCH, SCRIPT, str(out), tag, *extra],
                                  env=shim_env({"SHIM": "1"}), cwd=out)


def _finish(proc):
    done = distributed_jobs.finish(proc, timeout=500)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-8000:]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    out = tmp_path_factory.mktemp("trainer")
    shim = _shim_launch(out, "shim")
    oracle = distributed_jobs.run_oracle([sys.executable, "-m", "torch.distributed.run", *LAUNCH, SCRIPT, str(out),
                                          "torch"], env=distributed_jobs.oracle_env(HF_HUB_OFFLINE="1"), cwd=out, timeout=500)
    _finish(shim)
    assert oracle.returncode == 0, oracle.stderr[-6000:]
    return out


def test_accelerate_sees_two_processes_and_wraps_the_model(out):
    for rank, (report, _) in enumerate(_load(out, "shim")):
        assert report["rank"] == report["env_rank"] == rank and report["world_size"] == 2
        assert report["wrapped"] == "DistributedDataParallel"
        assert report["distributed_type"] == "DistributedType.MULTI_CPU"
        assert report["global_step"] == 3


def test_data_is_sharded_like_real_torch(out):
    shim, torch = _load(out, "shim"), _load(out, "torch")
    seen = [shim[r][0]["seen"] for r in range(2)]
    assert not set(seen[0]) & set(seen[1]) and sorted(seen[0] + seen[1]) == list(range(24))
    assert seen == [torch[r][0]["seen"] for r in range(2)]


def test_parameters_equal_real_torch_and_both_ranks_hold_the_same(out):
    shim, torch = _load(out, "shim"), _load(out, "torch")
    params = shim[0][1]
    assert set(params) == set(torch[0][1]) and len(params) > 20
    for name, value in params.items():
        np.testing.assert_array_equal(value, shim[1][1][name], err_msg=name)
        np.testing.assert_allclose(value, torch[0][1][name], rtol=1e-4, atol=5e-5, err_msg=name)
    start = dict(np.load(out / "shim_initial.npz"))
    moved = max(float(np.abs(params[n] - start[n]).max()) for n in start)
    assert moved > 1e-3  # training really changed them (so the comparison above is not of untouched weights)
    np.testing.assert_allclose(shim[0][0]["losses"], torch[0][0]["losses"], rtol=1e-5)


def test_checkpoints_are_written_once_by_rank_0_and_logging_is_on_rank_0(out):
    reports = [report for report, _ in _load(out, "shim")]
    assert [r["should_save"] for r in reports] == [True, False]
    assert [r["should_log"] for r in reports] == [True, False]
    assert [r["is_world_process_zero"] for r in reports] == [True, False]
    checkpoints = sorted(os.listdir(out / "shim_output"))
    assert checkpoints == ["checkpoint-2", "checkpoint-3"]
    files = sorted(os.listdir(out / "shim_output" / "checkpoint-2"))
    # one model, optimizer and state; an RNG state per rank
    assert files == sorted(os.listdir(out / "torch_output" / "checkpoint-2"))
    assert {"model.safetensors", "optimizer.pt", "trainer_state.json", "rng_state_0.pth",
            "rng_state_1.pth"} <= set(files)


@pytest.mark.slow  # a second 2-rank Trainer job (~30 s); the default run checks the checkpoint's contents
def test_resume_from_checkpoint_gives_the_uninterrupted_parameters(out):
    _finish(_shim_launch(out, "shim_resume", "--resume", str(out / "shim_output" / "checkpoint-2")))
    resumed, full = _load(out, "shim_resume"), _load(out, "shim")
    assert resumed[0][0]["global_step"] == 3
    # only step 3 ran (its two micro-batches per rank); steps 1-2's logs come from the checkpoint's state
    assert [resumed[r][0]["seen"] for r in range(2)] == [full[r][0]["seen"][8:] for r in range(2)]
    np.testing.assert_allclose(resumed[0][0]["losses"], full[0][0]["losses"], rtol=1e-6)
    for name, value in full[0][1].items():
        np.testing.assert_allclose(resumed[0][1][name], value, rtol=1e-6, atol=1e-7, err_msg=name)
        np.testing.assert_array_equal(resumed[1][1][name], resumed[0][1][name], err_msg=name)
