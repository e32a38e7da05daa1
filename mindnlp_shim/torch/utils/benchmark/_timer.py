"""torch.utils.benchmark.Timer: times a Python statement with `timeit`, as torch's documented Timer does.

`timeit(n)` runs a warm-up of max(n // 100, 2) executions, then one measurement of n executions.
`blocked_autorange` first finds a block size (a power of ten whose block takes long enough that the timer's
own overhead is under 0.01% and at least a thousandth of `min_run_time`), then times blocks until
`min_run_time` is spent. `adaptive_autorange` times blocks until the IQR of more than three blocks is under
`threshold` of their median (after at least `min_run_time`, at most `max_run_time`). Every run happens with
`torch.set_num_threads(num_threads)`, restored afterwards. C++ statements and Callgrind are not available.
"""
import contextlib
import enum
import textwrap
import timeit as _timeit

import numpy as np

from ._measurement import Measurement, TaskSpec


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


timer = _timeit.default_timer


@contextlib.contextmanager
def set_torch_threads(n):
    from ... import get_num_threads, set_num_threads

    previous = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(previous)


def _cleaned(source):
    source = textwrap.dedent(source)
    return (source[1:] if source.startswith("\n") else source).rstrip()


class Timer:
    """Times `stmt` after `setup`, both Python source run with `globals` (torch is added as `torch`)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise NotImplementedError("torch.utils.benchmark.Timer(language=cpp) is not supported on MindSpore: "
                                      "C++ statements need torch's C++ extension toolchain")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                             f"simply be moved to `setup`.")
        from ... import __name__ as _torch_module_name
        import sys

        self._globals = dict(globals or {})
        self._globals.setdefault("torch", sys.modules[_torch_module_name])
        self._language = Language.PYTHON
        stmt, setup = _cleaned(stmt), _cleaned(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                   sub_label=sub_label, description=description, env=env, num_threads=num_threads)

    def _timeit(self, number):
        # no statement takes under a nanosecond; the floor also keeps ratios finite
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))  # warm-up
            return Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                               task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time):
        with set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or taken > min_run_time:
                    return number
                if number * 10 > 2147483647:  # torch's C++ interface takes an int32
                    return number
                number *= 10

    def _run_blocks(self, number, enough, min_run_time, max_run_time=None, callback=None):
        total, times = 0.0, []
        with set_torch_threads(self._task_spec.num_threads):
            while True:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                stop = enough(times)
                if max_run_time and total > max_run_time:
                    break
                if total >= min_run_time and stop:
                    break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        number = self._block_size(min_run_time)
        times = self._run_blocks(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        number = self._block_size(min_run_time=0.05)

        def enough(times):
            return len(times) > 3 and Measurement(number, times, self._task_spec).meets_confidence(threshold)

        times = self._run_blocks(number, enough, min_run_time, max_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError("torch.utils.benchmark.Timer.collect_callgrind is not supported on MindSpore: "
                                  "it instruments torch's C++ library with Valgrind")
