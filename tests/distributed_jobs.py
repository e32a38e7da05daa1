"""Starting multi-process jobs from tests: each job runs in a session of its own, so that when it outlives its
timeout every process it started (launcher, scheduler, ranks) is killed, not left behind on the shared machine."""
import os
import signal
import subprocess


def start(argv, *, env, cwd):
    return subprocess.Popen(argv, env=env, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def finish(proc, timeout=500):
    """Wait for a started job; returns a CompletedProcess (killing the whole session on timeout, then raising)."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run(argv, *, env, cwd, timeout=500):
    return finish(start(argv, env=env, cwd=cwd), timeout)


# what real torch's gloo teardown prints when a rank aborts at exit (a joinable C++ thread destroyed), now and
# then, on a loaded machine, after its work is done and written
_TORCH_TEARDOWN_ABORT = "terminate called without an active exception"


def run_oracle(argv, *, env, cwd, timeout=500):
    """A real-torch job, run a second time if its first run died of torch's own teardown abort (the oracle's
    flake, not the shim's; any other failure is returned as it is)."""
    done = run(argv, env=env, cwd=cwd, timeout=timeout)
    if done.returncode != 0 and _TORCH_TEARDOWN_ABORT in done.stderr:
        done = run(argv, env=env, cwd=cwd, timeout=timeout)
    return done


def oracle_env(**extra):
    """The environment of a real-torch job: no checkout on the path (its `import torch` is real torch's) and one
    OpenMP thread per rank, as torchrun sets."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SHIM")}
    env.update(OMP_NUM_THREADS="1", **extra)
    return env


def run_shim_and_oracle(shim_argv, oracle_argv, *, shim_env, cwd, timeout):
    """The shim's job started, real torch's run meanwhile, then the shim's awaited; both must succeed."""
    shim = start(shim_argv, env=shim_env, cwd=cwd)
    oracle = run_oracle(oracle_argv, env=oracle_env(), cwd=cwd, timeout=timeout)
    shim = finish(shim, timeout=timeout)
    assert shim.returncode == 0, shim.stdout[-3000:] + shim.stderr[-6000:]
    assert oracle.returncode == 0, oracle.stderr[-4000:]
