"""torch.multiprocessing: Python's multiprocessing (tensors cross processes as NumPy data)."""
from multiprocessing import *  # noqa: F401,F403
import multiprocessing as _mp

get_context = _mp.get_context


def set_sharing_strategy(strategy):
    pass  # tensors are sent between processes as NumPy arrays, not shared memory handles


def get_sharing_strategy():
    return "file_system"


from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException, spawn,  # noqa: E402,F401
                    start_processes)
