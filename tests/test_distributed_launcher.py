"""The launcher: `torchrun` of the user-facing install (the stand-in's console script, called here as its entry
function under the shim), the variables each rank gets, a failing rank stopping the job, a job started by real
torch's launcher (torch's variables only), and `accelerate launch` with a multi-process config."""
import json
import os
import sys
import time
import tomllib

import pytest

import distributed_jobs
from shim_runner import REPO_ROOT, script, shim_env
from test_import_order import user_python  # noqa: F401  (fixture: the user-facing venv with the torch stand-in)

PROBE = script("distributed_launch_probe.py")


def _run(argv, env, cwd, timeout=300):
    return distributed_jobs.run(argv, env=env, cwd=cwd, timeout=timeout)


def _reports(out, world):
    return [json.load(open(out / f"env{r}.json")) for r in range(world)]


def test_stand_in_declares_torchrun_as_torchs_launcher_entry():
    with open(os.path.join(REPO_ROOT, "packaging", "torch-stand-in", "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)["project"]
    assert project["scripts"]["torchrun"] == "torch.distributed.run:main"


def test_torchrun_entry_starts_ranks_with_torchs_and_mindspores_variables(tmp_path):
    code = ("import mindnlp, sys\nfrom torch.distributed.run import main\n"
            "import mindnlp_shim.torch.distributed.run as ours\nassert main is ours.main\n"
            f"main(['--nproc_per_node', '2', '--standalone', {PROBE!r}, 'env', {str(tmp_path)!r}])\n")
    proc = _run([sys.executable, "-c", code], shim_env(), tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    reports = _reports(tmp_path, 2)
    for rank, rep in enumerate(reports):
        assert (rep["rank"], rep["world"], rep["backend"], rep["elastic"]) == (rank, 2, "gloo", True)
        assert rep["RANK"] == rep["LOCAL_RANK"] == rep["MS_NODE_ID"] == str(rank)
        assert rep["WORLD_SIZE"] == rep["LOCAL_WORLD_SIZE"] == rep["MS_WORKER_NUM"] == "2"
        assert rep["MS_ROLE"] == "MS_WORKER" and rep["GROUP_RANK"] == "0" and rep["MASTER_ADDR"] == "127.0.0.1"
        assert rep["MASTER_PORT"] == rep["MS_SCHED_PORT"] and int(rep["MASTER_PORT"]) > 0
        assert rep["argv"] == ["env", str(tmp_path)]
        assert int(rep["MINDNLP_SHIM_THREADS"]) == max(1, len(os.sched_getaffinity(0)) // 2)
    assert reports[0]["TORCHELASTIC_RUN_ID"] == reports[1]["TORCHELASTIC_RUN_ID"]


@pytest.mark.slow  # one more 2-rank job (~20 s); the default run starts ranks through the torchrun entry
def test_a_failing_rank_stops_the_job_with_its_exit_code(tmp_path):
    start = time.monotonic()
    proc = _run([sys.executable, "-m", "mindnlp.run", "--nproc_per_node", "2", "--standalone", PROBE, "fail",
                 str(tmp_path)], shim_env(), tmp_path)
    assert proc.returncode == 3, proc.stderr[-4000:]
    assert "local rank 1" in proc.stderr and "exited with code 3" in proc.stderr
    assert time.monotonic() - start < 200  # rank 0, blocked in a barrier, was stopped rather than waited for


def test_unsupported_launcher_options_raise_clearly(tmp_path):
    proc = _run([sys.executable, "-m", "mindnlp.run", "--max_restarts", "2", PROBE, "env", str(tmp_path)],
                shim_env(), tmp_path)
    assert proc.returncode != 0 and "--max_restarts > 0 is not supported on MindSpore" in proc.stderr


@pytest.mark.slow  # one more 2-rank job (~20-30 s); the default run starts ranks through the torchrun entry
def test_ranks_started_by_real_torchs_launcher_join_with_torchs_variables(tmp_path):
    """Real torchrun sets only RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT; init_process_group forms MindSpore's
    cluster from them (rank 0 starts the scheduler on MASTER_PORT + 1)."""
    env = {k: v for k, v in shim_env().items() if k not in ("MS_ROLE", "MS_NODE_ID")}
    proc = _run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--standalone", PROBE,
                 "env", str(tmp_path)], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for rank, rep in enumerate(_reports(tmp_path, 2)):
        assert (rep["rank"], rep["world"], rep["RANK"]) == (rank, 2, str(rank))
        assert int(rep["MS_SCHED_PORT"]) == int(rep["MASTER_PORT"]) + 1


@pytest.mark.slow  # one more 2-rank job (~20-30 s); the default run starts ranks through the torchrun entry
def test_accelerate_launch_multi_process_goes_through_this_launcher(tmp_path):
    code = ("import mindnlp, sys\nfrom accelerate.commands.accelerate_cli import main\n"
            "sys.argv = ['accelerate', 'launch', '--multi_gpu', '--num_processes', '2', '--num_machines', '1', "
            f"'--mixed_precision', 'no', '--dynamo_backend', 'no', '--main_process_port', '0', {PROBE!r}, "
            f"'env', {str(tmp_path)!r}]\nmain()\n")
    proc = _run([sys.executable, "-c", code], shim_env(), tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for rank, rep in enumerate(_reports(tmp_path, 2)):
        assert (rep["rank"], rep["world"], rep["MS_ROLE"]) == (rank, 2, "MS_WORKER")


@pytest.mark.slow  # one more 2-rank job (~20-30 s); the default run starts ranks through the torchrun entry
def test_msrun_started_ranks_get_torchs_variables(tmp_path):
    """MindSpore's own launcher: msrun also runs the script as the scheduler; the workers get RANK/WORLD_SIZE/
    LOCAL_RANK derived from msrun's variables (what accelerate looks for)."""
    from mindnlp_shim.torch.distributed._cluster_env import free_port

    msrun = os.path.join(os.path.dirname(sys.executable), "msrun")
    env = dict(shim_env(), PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    proc = _run([msrun, "--worker_num", "2", "--local_worker_num", "2", "--master_addr", "127.0.0.1",
                 "--master_port", str(free_port()), "--join", "True", "--log_dir", str(tmp_path / "logs"), PROBE,
                 "env", str(tmp_path)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:]
    for rank, rep in enumerate(_reports(tmp_path, 2)):
        assert (rep["rank"], rep["world"]) == (rank, 2)
        assert (rep["RANK"], rep["LOCAL_RANK"], rep["WORLD_SIZE"]) == (str(rank), str(rank), "2")


@pytest.mark.slow  # builds the user-facing venv (the stand-in wheel) and starts a 2-rank job with its torchrun
def test_user_install_torchrun_command_starts_the_ranks(user_python, tmp_path):
    torchrun = os.path.join(os.path.dirname(user_python), "torchrun")
    assert os.path.exists(torchrun)
    env = dict(shim_env(), PATH=os.path.dirname(user_python) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PYTHONNOUSERSITE", None)
    proc = _run([torchrun, "--nproc_per_node", "2", "--standalone", PROBE, "env", str(tmp_path)], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for rank, rep in enumerate(_reports(tmp_path, 2)):
        assert (rep["rank"], rep["world"], rep["MS_ROLE"]) == (rank, 2, "MS_WORKER")
