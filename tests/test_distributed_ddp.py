"""DistributedDataParallel with 2 processes on loopback: the same script (tests/scripts/distributed_ddp_run.py)
runs on the shim, launched by `python -m mindnlp.run`, and on real torch's gloo backend, launched by real torch's
`python -m torch.distributed.run`; broadcast at construction, averaged gradients, no_sync accumulation,
find_unused_parameters and the parameters after SGD steps must agree. Also DataParallel and DistributedSampler."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import distributed_jobs
from shim_runner import REPO_ROOT, script, shim_env

NAMES = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "side.weight", "side.bias"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    argv = ["--nproc_per_node", "2", "--standalone", script("distributed_ddp_run.py"), str(out)]
    distributed_jobs.run_shim_and_oracle([sys.executable, "-m", "mindnlp.run", *argv, "shim"],
                                         [sys.executable, "-m", "torch.distributed.run", *argv, "torch"],
                                         shim_env=shim_env({"SHIM": "1"}), cwd=out, timeout=400)
    return {tag: [np.load(out / f"{tag}_rank{r}.npz") for r in range(2)] for tag in ("shim", "torch")}


def test_ranks_start_from_rank0_parameters(runs):
    for r in range(2):
        for n in NAMES:
            np.testing.assert_array_equal(runs["shim"][r][f"start_{n}"], runs["shim"][0][f"start_{n}"])
    assert bool(runs["shim"][0]["module_is_wrapped"])


@pytest.mark.parametrize("stage", ["sync", "accum", "unused", "final"])
def test_both_ranks_hold_identical_values_equal_to_real_torch(runs, stage):
    for n in NAMES:
        key = f"{stage}_{n}"
        np.testing.assert_array_equal(runs["shim"][0][key], runs["shim"][1][key], err_msg=key)
        np.testing.assert_allclose(runs["shim"][0][key], runs["torch"][0][key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_gradient_is_the_mean_of_the_ranks_local_gradients(runs):
    for n in NAMES:
        local = [runs["shim"][r][f"local_{n}"] for r in range(2)]
        np.testing.assert_allclose(runs["shim"][0][f"sync_{n}"], (local[0] + local[1]) / 2, rtol=1e-6, atol=1e-7)


def test_unused_branch_gets_the_average_with_a_zero_contribution(runs):
    # rank 1 skipped `side`: its gradient is rank 0's halved, and present on both ranks (not None)
    shim = runs["shim"]
    assert not np.isnan(shim[1]["unused_side.weight"]).any()
    np.testing.assert_allclose(shim[1]["unused_side.weight"], runs["torch"][1]["unused_side.weight"], rtol=1e-5,
                               atol=1e-6)


# ---------------------------------------------------------------- single-process parts
def test_data_parallel_passes_through_on_one_device_and_refuses_several():
    import mindnlp_shim.torch as torch

    lin = torch.nn.Linear(3, 2)
    x = torch.ones(4, 3)
    assert torch.nn.DataParallel(lin)(x).tolist() == lin(x).tolist()
    assert torch.nn.DataParallel(lin, device_ids=[0]).module is lin
    with pytest.raises(NotImplementedError, match="DataParallel over 2 devices"):
        torch.nn.DataParallel(lin, device_ids=[0, 1])


def test_ddp_needs_a_process_group():
    import mindnlp_shim.torch as torch

    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))


_SAMPLER_CASES = [(10, 3, False, 0, 0), (10, 2, False, 5, 0), (10, 2, False, 5, 1), (11, 4, True, 7, 2),
                  (11, 4, False, 0, 3), (5, 3, False, 1, 0)]


def _sampler_shards(sampler_cls, cases):
    out = []
    for n, replicas, drop_last, seed, epoch in cases:
        shards = []
        for rank in range(replicas):
            s = sampler_cls(list(range(n)), num_replicas=replicas, rank=rank, shuffle=True, seed=seed,
                            drop_last=drop_last)
            s.set_epoch(epoch)
            shards.append(list(s))
        out.append(shards)
    return out


def test_distributed_sampler_matches_real_torch_with_shuffle():
    from mindnlp_shim.torch.utils.data.distributed import DistributedSampler

    code = ("import json, sys; sys.path.insert(0, %r); from test_distributed_ddp import _sampler_shards, "
            "_SAMPLER_CASES; from torch.utils.data.distributed import DistributedSampler; "
            "print(json.dumps(_sampler_shards(DistributedSampler, _SAMPLER_CASES)))") % os.path.join(REPO_ROOT,
                                                                                                     "tests")
    proc = subprocess.run([sys.executable, "-c", code], env=distributed_jobs.oracle_env(), capture_output=True, text=True,
                          timeout=300, cwd=os.path.join(REPO_ROOT, "tests"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    want = json.loads(proc.stdout.strip().splitlines()[-1])
    assert _sampler_shards(DistributedSampler, _SAMPLER_CASES) == want
