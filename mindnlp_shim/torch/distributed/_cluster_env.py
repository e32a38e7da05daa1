"""Torch's launch variables and MindSpore's dynamic-cluster variables, each derived from the other.

torchrun gives each worker RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT; MindSpore's cluster is
formed by one scheduler process (MS_ROLE=MS_SCHED) and the workers (MS_ROLE=MS_WORKER, MS_NODE_ID), all pointed
at MS_SCHED_HOST:MS_SCHED_PORT and told MS_WORKER_NUM. `mindnlp.run` (the torchrun of this package) sets both;
msrun sets only MindSpore's, and other launchers only torch's.
"""
import os
import socket
import subprocess
import sys


def scheduler_host(addr):
    """MindSpore's scheduler address must be an IP address; torch's MASTER_ADDR may be a host name ("localhost",
    what torchrun --standalone gives)."""
    try:
        return socket.gethostbyname(addr)
    except OSError:
        return addr


def worker_env(*, rank, local_rank, world_size, local_world_size, node_rank, master_addr, master_port,
               timeout_s=None):
    """The variables of one worker, torch's and MindSpore's."""
    env = {
        "RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(world_size),
        "LOCAL_WORLD_SIZE": str(local_world_size), "GROUP_RANK": str(node_rank), "ROLE_RANK": str(rank),
        "ROLE_WORLD_SIZE": str(world_size), "MASTER_ADDR": master_addr, "MASTER_PORT": str(master_port),
        "MS_ROLE": "MS_WORKER", "MS_NODE_ID": str(rank), "MS_WORKER_NUM": str(world_size),
        "MS_SCHED_HOST": scheduler_host(master_addr), "MS_SCHED_PORT": str(master_port),
        # what msrun also exports: MindSpore's own rank variables and the device of this local rank
        "RANK_ID": str(rank), "RANK_SIZE": str(world_size), "DEVICE_ID": str(local_rank),
    }
    if timeout_s is not None:
        env["MS_TOPO_TIMEOUT"] = str(int(timeout_s))
    return env


def scheduler_env(*, world_size, master_addr, master_port, timeout_s=None):
    env = {"MS_ROLE": "MS_SCHED", "MS_WORKER_NUM": str(world_size), "MS_SCHED_HOST": scheduler_host(master_addr),
           "MS_SCHED_PORT": str(master_port), "RANK_ID": "0"}
    if timeout_s is not None:
        env["MS_TOPO_TIMEOUT"] = str(int(timeout_s))
    return env


def start_scheduler(env_overrides, *, stdout=None):
    """MindSpore's scheduler in its own small process (it imports MindSpore only, not the user's script)."""
    env = dict(os.environ)
    env.update(env_overrides)
    env.setdefault("GLOG_v", "3")
    for name in ("MS_NODE_ID", "RANK", "LOCAL_RANK"):
        env.pop(name, None)
    return subprocess.Popen([sys.executable, "-m", "mindnlp_shim.torch.distributed._scheduler"], env=env,
                            stdout=stdout, stderr=subprocess.STDOUT if stdout is not None else None)


def free_port(host="127.0.0.1"):
    """A TCP port free at the moment of asking (the OS picks it when binding to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def launched_by_mindspore():
    """Started as part of MindSpore's cluster (by this package's launcher or msrun). msrun also runs the script as
    the scheduler (MS_SCHED): there `communication.init()` serves the cluster and ends the process."""
    return os.environ.get("MS_ROLE") in ("MS_WORKER", "MS_SCHED")


def export_torch_env_under_msrun():
    """msrun gives a worker only MindSpore's variables; accelerate and transformers look for torch's (RANK,
    LOCAL_RANK, WORLD_SIZE) to decide that they run distributed. Derive them: the rank is msrun's RANK_ID (checked
    against MindSpore's own rank once the group is formed), the local rank its DEVICE_ID."""
    if os.environ.get("MS_ROLE") != "MS_WORKER" or "RANK" in os.environ or "RANK_ID" not in os.environ:
        return
    os.environ["RANK"] = os.environ["RANK_ID"]
    os.environ["WORLD_SIZE"] = os.environ.get("MS_WORKER_NUM", os.environ.get("RANK_SIZE", "1"))
    os.environ.setdefault("LOCAL_RANK", os.environ.get("DEVICE_ID", "0"))
    os.environ.setdefault("MASTER_ADDR", os.environ.get("MS_SCHED_HOST", "127.0.0.1"))
    os.environ.setdefault("MASTER_PORT", os.environ.get("MS_SCHED_PORT", "0"))


def adopt_torch_env(rank, world_size):
    """A process started by a launcher that set only torch's variables (real torchrun, a manual RANK/WORLD_SIZE
    setup): it joins a MindSpore cluster whose scheduler rank 0 starts, on MASTER_PORT + 1 (a torch launcher may
    hold MASTER_PORT itself for its own rendezvous store). Returns the scheduler process on rank 0, else None."""
    addr = os.environ.get("MASTER_ADDR")
    port = os.environ.get("MASTER_PORT")
    if not addr or not port:
        raise ValueError("torch.distributed.init_process_group: MASTER_ADDR and MASTER_PORT must be set (env://) "
                         "when the process was not started by `python -m mindnlp.run`/torchrun or msrun")
    sched_port = int(port) + 1
    os.environ.update(worker_env(rank=rank, local_rank=int(os.environ.get("LOCAL_RANK", rank)),
                                 world_size=world_size,
                                 local_world_size=int(os.environ.get("LOCAL_WORLD_SIZE", world_size)),
                                 node_rank=int(os.environ.get("GROUP_RANK", 0)), master_addr=addr,
                                 master_port=sched_port))
    os.environ["MASTER_PORT"] = port  # torch's own value stays what the launcher gave
    if rank == 0:
        return start_scheduler(scheduler_env(world_size=world_size, master_addr=addr, master_port=sched_port))
    return None
