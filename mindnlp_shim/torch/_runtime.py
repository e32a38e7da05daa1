"""MindSpore process setup done once, before the first op: log level, threads, autograd recording."""
import os

os.environ.setdefault("GLOG_v", "3")  # MindSpore's C++ logs: errors only, unless the user chose otherwise

import mindspore  # noqa: E402
from mindspore.graph.api import _pynative_executor  # noqa: E402

DEVICE_TARGET = mindspore.get_context("device_target")  # "CPU", "GPU" or "Ascend"
ON_CPU = DEVICE_TARGET == "CPU"
# kernel threads on the CPU target: one per core this process may run on, unless the user sets the count
CPU_THREADS = int(os.environ.get("MINDNLP_SHIM_THREADS", "0")) or max(1, len(os.sched_getaffinity(0)))


def _configure_cpu():
    # Measured on small multi-core machines: MindSpore's default 25-thread kernel pool plus its asynchronous
    # dispatch pipeline oversubscribe the cores and make eager training 3-4x slower.
    from mindspore._c_expression import disable_multi_thread

    disable_multi_thread()
    # Report a kernel error at the op that caused it, not at a later sync point in unrelated code.
    mindspore.runtime.launch_blocking()
    try:
        mindspore.device_context.cpu.op_tuning.threads_num(CPU_THREADS)
    except RuntimeError:
        pass  # already set by the user before importing the shim
    if os.environ.get("MINDNLP_SHIM_PIN_THREADS", "1") != "0":
        from .._cpu_threads import pin_kernel_threads

        pin_kernel_threads()


def ensure_recording():
    """The tape records only while the grad flag is on; a TypeError inside MindSpore's dispatch resets it."""
    _pynative_executor.set_grad_flag(True)


if ON_CPU:
    _configure_cpu()
ensure_recording()

# A forked child (DataLoader workers, datasets.map(num_proc=...)) must be able to run ops: see _fork_safety.
# grad mode as MindSpore's executor holds it: the C method itself (`_pynative_executor.enable_grad()` is a Python
# method around it, ~1 µs a call on paths that ask once per op)
grad_enabled = _pynative_executor._executor.enable_grad

from .._fork_safety import register_fork_handlers  # noqa: E402

register_fork_handlers()
