"""Thread placement for MindSpore's CPU runtime: its dispatch thread and kernel workers get a core each (Linux).

Kept outside `mindnlp_shim.torch` so that code measuring plain MindSpore (the benchmarks' floors) can apply the
same placement without installing the shim.
"""
import os
import time

import mindspore


def pin_kernel_threads():
    """Pin MindSpore's ActorThread to the first allowed core and each KernelThread to one of the others.

    While a kernel runs, the Python thread that launched it waits by spinning with sched_yield, and so do idle
    workers. Unpinned, these spinners share the cores with the threads doing the arithmetic (measured on 2
    cores: 1.4-1.9 s of system time per MiniLM training step, mostly sched_yield). With the dispatch thread on
    one core and each kernel worker on another, a step took 1.6-1.7 s instead of 2.7-2.8 s. The Python thread
    itself stays unpinned, so processes and threads it starts keep every core. Processes that share the cores
    with others of the same job are left alone (`_shares_the_cores`). Returns the pinned thread ids.
    """
    tasks = "/proc/self/task"
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cpus) < 2 or not os.path.isdir(tasks) or _shares_the_cores():
        return []
    from mindspore import ops

    ops.add(mindspore.Tensor(0.0), 1.0)  # MindSpore starts its dispatch and kernel threads at the first op
    # a thread names itself after it starts: on a busy machine the names can lag the op by some milliseconds
    for _ in range(200):
        actors, workers = _runtime_threads(tasks)
        if actors and workers:
            break
        time.sleep(0.001)
    try:
        for tid in actors:
            os.sched_setaffinity(tid, {cpus[0]})
        for index, tid in enumerate(sorted(workers)):
            os.sched_setaffinity(tid, {cpus[1 + index % (len(cpus) - 1)]})
    except OSError:
        return []  # not permitted here: the threads keep the process's cores
    return actors + workers


def _runtime_threads(tasks):
    """The thread ids of MindSpore's ActorThreads and KernelThreads in this process."""
    actors, workers = [], []
    for tid in os.listdir(tasks):
        try:
            with open(f"{tasks}/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name.startswith("ActorThread"):
            actors.append(int(tid))
        elif name.startswith("KernelThread"):
            workers.append(int(tid))
    return actors, workers


def _shares_the_cores():
    """True in a process that runs beside others of the same job (a multiprocessing child such as a DataLoader
    worker, or one rank of a distributed launch): pinned the same way, their threads would all crowd the same
    cores, so they keep the scheduler's placement."""
    import multiprocessing

    process = multiprocessing.current_process()
    if getattr(process, "_inheriting", False) or multiprocessing.parent_process() is not None:
        return True
    for name in ("WORLD_SIZE", "RANK_SIZE", "MS_WORKER_NUM", "LOCAL_WORLD_SIZE"):
        try:
            if int(os.environ.get(name, "1")) > 1:
                return True
        except ValueError:
            continue
    return False
