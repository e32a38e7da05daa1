"""torch.profiler: profiling is MindSpore's own (mindspore.Profiler); torch's profiler API is not provided."""
import contextlib
import enum


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3


class profile:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.profiler.profile is not supported on MindSpore: use mindspore.Profiler")


@contextlib.contextmanager
def record_function(name, args=None):
    """Labels a region for a profiler; with no torch profiler running, the label has no reader."""
    yield


def schedule(*args, **kwargs):
    raise NotImplementedError("torch.profiler.schedule is not supported on MindSpore: use mindspore.Profiler")
