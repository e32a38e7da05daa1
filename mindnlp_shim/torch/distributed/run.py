"""`torchrun` / `python -m torch.distributed.run` (also `python -m mindnlp.run`): start the ranks of one node.

Takes torchrun's arguments. The ranks form MindSpore's dynamic cluster: on node 0 a scheduler process listens on
--master_addr:--master_port, and every worker gets torch's variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, ...) and MindSpore's (MS_ROLE, MS_NODE_ID, MS_WORKER_NUM, MS_SCHED_HOST, MS_SCHED_PORT), so
`torch.distributed.init_process_group()` joins it. Rendezvous is static (no elastic restarts).
When a worker fails, the others are stopped and the launcher exits with the failed worker's code.
"""
import argparse
import os
import signal
import subprocess
import sys
import time
import uuid

from . import _cluster_env

_STOP_GRACE_S = 10


def _nproc(value):
    if value in ("auto", "cpu", "gpu", "xpu"):
        return value
    return int(value)


def _nnodes(value):
    low, _, high = str(value).partition(":")
    if high and low != high:
        raise argparse.ArgumentTypeError(f"--nnodes {value}: elastic node ranges are not supported; give one number")
    return int(low)


def get_args_parser():
    parser = argparse.ArgumentParser(prog="torchrun", description="Start the ranks of a torch.distributed job on "
                                     "MindSpore (also: python -m mindnlp.run)")
    parser.add_argument("--nnodes", type=_nnodes, default=1)
    parser.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc_per_node", type=_nproc, default=1)
    parser.add_argument("--node-rank", "--node_rank", dest="node_rank", type=int, default=0)
    parser.add_argument("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1")
    parser.add_argument("--master-port", "--master_port", dest="master_port", type=int, default=29500)
    parser.add_argument("--standalone", action="store_true",
                        help="one node; the scheduler port is chosen free (overrides --master_addr/--master_port)")
    parser.add_argument("--rdzv-endpoint", "--rdzv_endpoint", dest="rdzv_endpoint", default="",
                        help="host:port of node 0, taken as --master_addr/--master_port")
    parser.add_argument("--rdzv-backend", "--rdzv_backend", dest="rdzv_backend", default="static")
    parser.add_argument("--rdzv-id", "--rdzv_id", dest="rdzv_id", default="none")
    parser.add_argument("--rdzv-conf", "--rdzv_conf", dest="rdzv_conf", default="")
    parser.add_argument("--max-restarts", "--max_restarts", dest="max_restarts", type=int, default=0)
    parser.add_argument("--monitor-interval", "--monitor_interval", dest="monitor_interval", type=float,
                        default=0.1)
    parser.add_argument("--start-method", "--start_method", dest="start_method", default="spawn")
    parser.add_argument("--role", default="default")
    parser.add_argument("--log-dir", "--log_dir", dest="log_dir", default=None)
    parser.add_argument("--redirects", "-r", default="0")
    parser.add_argument("--tee", "-t", default="0")
    parser.add_argument("--local-ranks-filter", "--local_ranks_filter", dest="local_ranks_filter", default="")
    parser.add_argument("--run-path", "--run_path", dest="run_path", action="store_true")
    parser.add_argument("--module", "-m", dest="module", action="store_true",
                        help="run training_script as a module (python -m)")
    parser.add_argument("--no-python", "--no_python", dest="no_python", action="store_true",
                        help="run training_script as an executable, not with python")
    parser.add_argument("--timeout", type=int, default=None, help="seconds the ranks wait for each other to join")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args=None):
    return get_args_parser().parse_args(args)


def _local_world_size(nproc):
    if isinstance(nproc, int):
        return nproc
    if nproc == "gpu":
        raise ValueError("--nproc_per_node gpu: ask for a number of processes on MindSpore")
    return max(1, len(os.sched_getaffinity(0))) if nproc in ("auto", "cpu") else 1


def _command(args):
    if args.no_python:
        return [args.training_script, *args.training_script_args]
    if args.module:
        return [sys.executable, "-u", "-m", args.training_script, *args.training_script_args]
    return [sys.executable, "-u", args.training_script, *args.training_script_args]


def _check_supported(args):
    if args.max_restarts:
        raise NotImplementedError("torchrun --max_restarts > 0 is not supported on MindSpore: the cluster is "
                                  "formed once (static rendezvous)")
    if args.rdzv_backend not in ("static", "c10d"):
        raise NotImplementedError(f"torchrun --rdzv_backend {args.rdzv_backend} is not supported on MindSpore: "
                                  "use --master_addr/--master_port (or --rdzv_endpoint)")


def _endpoint(args):
    if args.standalone:
        return "127.0.0.1", _cluster_env.free_port(), 1, 0
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, rdzv_port = args.rdzv_endpoint.partition(":")
        addr, port = host or addr, int(rdzv_port) if rdzv_port else port
    return addr, port, args.nnodes, args.node_rank


def _thread_budget(local_world_size):
    """Kernel threads per rank: the cores of this node shared among its ranks (torchrun sets OMP_NUM_THREADS=1)."""
    return str(max(1, len(os.sched_getaffinity(0)) // local_world_size))


def _stop(processes):
    for proc in processes:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + _STOP_GRACE_S
    for proc in processes:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _coerce(args):
    """accelerate's launcher fills the parsed arguments with strings ("2", "29500"): give them their types."""
    if isinstance(args.nproc_per_node, str):
        args.nproc_per_node = _nproc(args.nproc_per_node)
    args.nnodes = _nnodes(args.nnodes)
    args.node_rank, args.master_port = int(args.node_rank), int(args.master_port)
    args.max_restarts = int(args.max_restarts or 0)
    args.training_script_args = list(args.training_script_args or [])


def launch(args):
    """Start the scheduler (node 0) and this node's workers; wait; return the exit code."""
    _coerce(args)
    _check_supported(args)
    addr, port, nnodes, node_rank = _endpoint(args)
    local_world_size = _local_world_size(args.nproc_per_node)
    world_size = nnodes * local_world_size
    run_id = os.environ.get("TORCHELASTIC_RUN_ID") or (args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex)
    scheduler = None
    if node_rank == 0:
        scheduler = _cluster_env.start_scheduler(
            _cluster_env.scheduler_env(world_size=world_size, master_addr=addr, master_port=port,
                                       timeout_s=args.timeout))
    workers = []
    for local_rank in range(local_world_size):
        env = dict(os.environ)
        env.update(_cluster_env.worker_env(rank=node_rank * local_world_size + local_rank, local_rank=local_rank,
                                           world_size=world_size, local_world_size=local_world_size,
                                           node_rank=node_rank, master_addr=addr, master_port=port,
                                           timeout_s=args.timeout))
        env["TORCHELASTIC_RUN_ID"] = run_id
        if local_world_size > 1:
            env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("MINDNLP_SHIM_THREADS", _thread_budget(local_world_size))
        # a rank killed by a signal inside MindSpore's C++ code then still shows where its Python code was
        env.setdefault("PYTHONFAULTHANDLER", "1")
        workers.append(subprocess.Popen(_command(args), env=env))
    return _wait(workers, scheduler, args.monitor_interval)


def _wait(workers, scheduler, interval):
    try:
        while True:
            codes = [w.poll() for w in workers]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                local_rank, code = failed[0]
                _stop(workers + ([scheduler] if scheduler else []))
                print(f"mindnlp.run: local rank {local_rank} (pid {workers[local_rank].pid}) exited with code "
                      f"{code}; the other ranks were stopped", file=sys.stderr, flush=True)
                return code if code > 0 else 128 - code
            if all(c == 0 for c in codes):
                if scheduler is not None:
                    try:
                        scheduler.wait(timeout=_STOP_GRACE_S)  # it finishes once the workers have left
                    except subprocess.TimeoutExpired:
                        _stop([scheduler])
                return 0
            time.sleep(interval)
    except KeyboardInterrupt:
        _stop(workers + ([scheduler] if scheduler else []))
        return 130


def run(args):
    """torch.distributed.run.run: launch with parsed arguments; raise when a worker failed (accelerate calls it)."""
    code = launch(args)
    if code != 0:
        raise ChildFailedError(f"a worker of {args.training_script} exited with code {code}", code)


class ChildFailedError(Exception):
    def __init__(self, message, exitcode=1):
        super().__init__(message)
        self.exitcode = exitcode


def main(args=None):
    sys.exit(launch(parse_args(args)))


if __name__ == "__main__":
    main()
