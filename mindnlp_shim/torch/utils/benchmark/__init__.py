"""torch.utils.benchmark: Timer, Measurement, TaskSpec and Compare (Python statements; see _timer.py).

torch's fuzzers, Callgrind statistics and C++ timing are not provided."""
from ._compare import Colorize, Compare  # noqa: F401
from ._measurement import (Measurement, TaskSpec, ordered_unique, select_unit, trim_sigfig,  # noqa: F401
                           unit_to_english)
from ._timer import Language, Timer, set_torch_threads, timer  # noqa: F401

_ABSENT = ("CallgrindStats", "FunctionCount", "FunctionCounts", "Fuzzer", "FuzzedParameter", "FuzzedTensor",
           "FuzzedSparseTensor", "ParameterAlias", "CopyIfCallgrind")


def __getattr__(name):
    if name in _ABSENT:
        raise NotImplementedError(f"torch.utils.benchmark.{name} is not supported on MindSpore: mindnlp-shim "
                                  f"provides Timer, Measurement, TaskSpec and Compare")
    raise AttributeError(f"module 'torch.utils.benchmark' has no attribute '{name}'")
