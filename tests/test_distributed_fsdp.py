"""FullyShardedDataParallel with 2 processes on loopback: the same script (tests/scripts/distributed_fsdp_run.py)
runs on the shim, launched by `python -m mindnlp.run`, and on real torch's gloo backend, launched by real torch's
`python -m torch.distributed.run`, with FULL_SHARD and NO_SHARD units (nested by ModuleWrapPolicy). Gradients
averaged over the ranks, no_sync accumulation, clipped norms, parameters after AdamW steps and the full state dict
must agree, sync_module_states refuses CPU modules as torch does, and ranks that built different parameters are refused where torch would shard them."""
import sys

import numpy as np
import pytest

import distributed_jobs
from shim_runner import script, shim_env

STRATEGIES = ("FULL_SHARD", "NO_SHARD")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("fsdp")
    argv = ["--nproc_per_node", "2", "--standalone", script("distributed_fsdp_run.py"), str(out)]
    distributed_jobs.run_shim_and_oracle([sys.executable, "-m", "mindnlp.run", *argv, "shim"],
                                         [sys.executable, "-m", "torch.distributed.run", *argv, "torch"],
                                         shim_env=shim_env({"SHIM": "1"}), cwd=out, timeout=400)
    return {(tag, s): [np.load(out / f"{tag}_{s}_rank{r}.npz") for r in range(2)]
            for tag in ("shim", "torch") for s in STRATEGIES}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_averaged_gradients_steps_and_state_dict_match_real_torch(runs, strategy):
    shim, torch = runs[("shim", strategy)], runs[("torch", strategy)]
    for r in range(2):
        assert list(shim[r]["state_keys"]) == list(torch[r]["state_keys"])
        assert set(shim[r].files) - {"refused_different_ranks"} == set(torch[r].files)
        np.testing.assert_allclose(shim[r]["norms"], torch[r]["norms"], rtol=1e-5)
        assert str(shim[r]["sync_module_states_on_cpu"]) == str(torch[r]["sync_module_states_on_cpu"])
        assert "requires them to be on GPU" in str(shim[r]["sync_module_states_on_cpu"])
        for key in torch[r].files:
            if key in ("state_keys", "norms", "sync_module_states_on_cpu"):
                continue
            np.testing.assert_array_equal(shim[r][key], shim[0][key], err_msg=key)  # every rank the same
            np.testing.assert_allclose(shim[r][key], torch[r][key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_ranks_with_different_parameters_are_refused_where_torch_shards(runs):
    for r in range(2):
        assert bool(runs[("shim", "FULL_SHARD")][r]["refused_different_ranks"])
