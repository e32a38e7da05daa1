"""Make `os.fork()` safe in a process that uses MindSpore (DataLoader workers, `datasets.map(num_proc=...)`).

A forked child inherits MindSpore's runtime state but none of its threads. Measured on 2.10 CPU, without the
handlers below: in the child small ops, `from_numpy`, a 1M-element `exp` and `stack` of 32 `ones(128)` work,
but a 512x512 matmul and `ones(128) * i` for i in range(32) never return (the child spins in sched_yield,
waiting for pool threads that do not exist) - whether or not the parent ran ops before the fork. MindSpore ships handlers for exactly this
(`mindspore._c_expression.fork_utils`, used by `mindspore.multiprocessing` for its own forked workers): before
the fork they bring the runtime to a quiet point, afterwards the parent resumes and the child rebuilds its
thread pools. Registering them with `os.register_at_fork` covers every fork of the process, not only those
started through `mindspore.multiprocessing`. All three are needed: the child handler alone aborts the child.

Measured: with the handlers a forked child runs small and large ops, `from_numpy`, `stack` and a backward
pass; the parent keeps its thread placement and its synchronous dispatch (the pipeline threads MindSpore
restarts after the fork stay idle).

Kept outside `mindnlp_shim.torch` (like `_cpu_threads`) so that code using plain MindSpore can apply it too.
"""
import os

_registered = False


def register_fork_handlers():
    """Register MindSpore's before/after-fork handlers once per process. Returns True if they are in place."""
    global _registered
    if _registered:
        return True
    if not hasattr(os, "register_at_fork"):
        return False  # no fork on this platform
    from ._mindspore import fork_handlers

    handlers = fork_handlers()
    if handlers is None:
        return False
    before, after_in_parent, after_in_child = handlers
    os.register_at_fork(before=before, after_in_parent=after_in_parent, after_in_child=after_in_child)
    _registered = True
    return True


def fork_is_safe():
    return _registered
