"""torch.cuda answered from MindSpore: CUDA is "available" exactly when MindSpore runs on its GPU target."""
import contextlib

from .._runtime import DEVICE_TARGET
from .. import _stand_ins
from .._functions import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)
from . import amp  # noqa: F401
from ... import _mindspore as _ms

_ON_GPU = DEVICE_TARGET == "GPU"


def is_available():
    return _ON_GPU


def is_initialized():
    return _ON_GPU


def device_count():
    if not _ON_GPU:
        return 0
    return max(1, _ms.device_count("GPU"))


def current_device():
    if not _ON_GPU:
        raise RuntimeError("torch.cuda.current_device(): no CUDA device; MindSpore runs on its " + DEVICE_TARGET)
    return 0


def set_device(device):
    if not _ON_GPU:
        raise RuntimeError("torch.cuda.set_device(): no CUDA device; MindSpore runs on its " + DEVICE_TARGET)


def manual_seed(seed):
    """The GPU target draws from the same generator as everything else; on other targets there is no CUDA RNG."""
    if _ON_GPU:
        from ..random import manual_seed as _seed

        _seed(seed)


manual_seed_all = manual_seed


def synchronize(device=None):
    pass  # the shim runs MindSpore synchronously


def empty_cache():
    pass


def _zero(*args, **kwargs):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero


def reset_peak_memory_stats(device=None):
    pass


reset_max_memory_allocated = reset_max_memory_cached = reset_peak_memory_stats  # nothing is tracked: no-ops


def get_device_name(device=None):
    return "MindSpore GPU" if _ON_GPU else ""


def get_device_capability(device=None):
    return (8, 0) if _ON_GPU else (0, 0)


def is_bf16_supported(including_emulation=True):
    return _ON_GPU


is_current_stream_capturing = _stand_ins.answer(False, "MindSpore has no CUDA-graph stream capture here.")
Stream = _stand_ins.placeholder_type("torch.cuda.Stream")
Event = _stand_ins.placeholder_type("torch.cuda.Event")
CUDAGraph = _stand_ins.placeholder_type("torch.cuda.CUDAGraph")
StreamContext = _stand_ins.placeholder_type("torch.cuda.StreamContext")
graph = _stand_ins.placeholder_type("torch.cuda.graph")


def current_stream(device=None):
    return None


@contextlib.contextmanager
def stream(s):
    yield


def get_rng_state(device="cuda"):
    from ..random import get_rng_state as _get

    return _get()


def set_rng_state(new_state, device="cuda"):
    from ..random import set_rng_state as _set

    _set(new_state)


def get_rng_state_all():
    return [get_rng_state()] if _ON_GPU else []


def set_rng_state_all(states):
    for s in states:
        set_rng_state(s)
