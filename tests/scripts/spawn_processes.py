"""torch.multiprocessing.spawn / start_processes in four situations; prints what each gave, as JSON.
`python spawn_processes.py shim` runs them under the shim, `... real` under real torch."""
import json
import os
import signal
import sys
import tempfile

if sys.argv[1] == "shim":  # (also in each spawned child, which runs this file again as __mp_main__)
    import mindnlp  # noqa: F401
import torch
import torch.multiprocessing as mp
from torch.multiprocessing.spawn import ProcessExitedException, ProcessRaisedException


def write_rank(i, folder):
    # the child's torch is the parent's: a tensor op, its result written by rank
    with open(os.path.join(folder, str(i)), "w") as f:
        f.write(str(torch.arange(3.0).mul(i).sum().item()))


def raise_in_one(i):
    if i == 1:
        raise ValueError("boom from 1")


def exit_in_one(i):
    if i == 0:
        os._exit(3)


def kill_one(i):
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    folder = tempfile.mkdtemp()
    report = {"spawn": mp.spawn(write_rank, args=(folder,), nprocs=2)}
    report["files"] = {name: open(os.path.join(folder, name)).read() for name in sorted(os.listdir(folder))}
    context = mp.start_processes(write_rank, args=(folder,), nprocs=3, join=False)
    report["context"] = [type(context).__name__, len(context.pids())]
    while not context.join():
        pass
    try:
        mp.spawn(raise_in_one, nprocs=2)
    except ProcessRaisedException as exc:
        report["raised"] = [exc.error_index, "ValueError: boom from 1" in str(exc),
                            str(exc).startswith("\n\n-- Process 1 terminated with the following error:\n")]
    for name, fn in (("exited", exit_in_one), ("killed", kill_one)):
        try:
            mp.start_processes(fn, nprocs=2, start_method="spawn")
        except ProcessExitedException as exc:
            report[name] = [exc.error_index, exc.exit_code, exc.signal_name, str(exc)]
    print(json.dumps(report))
