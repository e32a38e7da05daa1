"""MindSpore process setup done once, before the first op: log level, threads, autograd recording."""
import os

from .. import _mindspore as _ms  # (sets GLOG_v before MindSpore loads, and checks the release)

import mindspore  # noqa: E402

DEVICE_TARGET = mindspore.get_context("device_target")
# the process that loaded MindSpore: a different pid later means a child forked off it (torch.distributed then
# forms its groups on a torch Store, as MindSpore's cluster does not form in forked children)
MINDSPORE_PID = os.getpid()  # "CPU", "GPU" or "Ascend"
ON_CPU = DEVICE_TARGET == "CPU"
# kernel threads on the CPU target: one per core this process may run on, unless the user sets the count
CPU_THREADS = int(os.environ.get("MINDNLP_SHIM_THREADS", "0")) or max(1, len(os.sched_getaffinity(0)))


def _configure_cpu():
    # Measured on small multi-core machines: MindSpore's default 25-thread kernel pool plus its asynchronous
    # dispatch pipeline oversubscribe the cores and make eager training 3-4x slower.
    _ms.disable_multi_thread()
    # Report a kernel error at the op that caused it, not at a later sync point in unrelated code.
    _ms.launch_blocking()
    _ms.set_cpu_kernel_threads(CPU_THREADS)  # (False where the user set it before importing the shim)
    if os.environ.get("MINDNLP_SHIM_PIN_THREADS", "1") != "0":
        from .._cpu_threads import pin_kernel_threads

        pin_kernel_threads()


def ensure_recording():
    """The tape records only while the grad flag is on; a TypeError inside MindSpore's dispatch resets it."""
    _ms.set_grad_flag(True)


if ON_CPU:
    _configure_cpu()
ensure_recording()

# A forked child (DataLoader workers, datasets.map(num_proc=...)) must be able to run ops: see _fork_safety.
grad_enabled = _ms.grad_enabled  # grad mode as MindSpore's executor holds it

from .._fork_safety import register_fork_handlers  # noqa: E402

register_fork_handlers()
