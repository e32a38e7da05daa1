"""torch.multiprocessing.spawn / start_processes: run `fn(i, *args)` in `nprocs` processes and join them.

A process that raises writes its traceback to an error file and exits with 1; `ProcessContext.join` then stops
the others (SIGTERM, then SIGKILL after a grace period) and raises ProcessRaisedException carrying that
traceback, or ProcessExitedException where a process died without one (its exit code or signal), as torch does.
Importing this module in a child installs the shim first, so the function and its arguments unpickle against
the shim's torch (the child unpickles `_wrap`, and so imports this module, before the function)."""
import multiprocessing
import os
import pickle
import signal
import tempfile
import time
import traceback

import mindnlp_shim

mindnlp_shim.install()


class ProcessException(Exception):
    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, error_pid
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited without raising: a non-zero exit code, or a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # (the parent stopped this process)
    except Exception:  # noqa: BLE001  (reported to the parent, which raises it)
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        raise SystemExit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def join(self, timeout=None, grace_period=None):
        """True once every process has ended well; False while some still run (after `timeout` seconds);
        raises as soon as one has failed, after stopping the others."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0 and failed is None:
                failed = index
        if failed is None:
            return not self.sentinels
        self._stop_the_others(grace_period)
        process = self.processes[failed]
        error_file = self.error_files[failed]
        if os.path.exists(error_file) and os.path.getsize(error_file):
            with open(error_file, "rb") as f:
                original = pickle.load(f)
            message = f"\n\n-- Process {failed} terminated with the following error:\n{original}"
            raise ProcessRaisedException(message, failed, process.pid)
        if process.exitcode < 0:
            name = signal.Signals(-process.exitcode).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, process.pid,
                                         process.exitcode, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {process.exitcode}", failed,
                                     process.pid, process.exitcode)

    def _stop_the_others(self, grace_period):
        alive = [process for process in self.processes if process.is_alive()]
        for process in alive:
            process.terminate()
        deadline = time.monotonic() + (grace_period if grace_period is not None else 30)
        for process in alive:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        self.sentinels.clear()


SpawnContext = ProcessContext


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    context = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        handle, error_file = tempfile.mkstemp(prefix="mindnlp-shim-spawn-")
        os.close(handle)
        os.unlink(error_file)  # (the child creates it only when it fails)
        process = context.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    process_context = ProcessContext(processes, error_files)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
