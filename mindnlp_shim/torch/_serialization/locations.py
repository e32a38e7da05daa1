"""Where a checkpoint's storages are restored: torch's rules for location tags and `map_location`.

Each storage carries the location tag it was saved from ("cpu", "cuda:0", ...). torch applies `map_location`
to the tag (a dict maps tags, a string or device replaces them, a callable may return the storage itself or
None for the default), and then accepts "cpu", a device of a backend it has ("cuda", "mps", "meta", its
privateuse1 backend, "hpu", "xpu", "mtia") only when that device exists, and refuses every other tag. The same
rules hold here, with the process's MindSpore target as the one accelerator: "cuda[:N]" on the GPU target,
"npu[:N]" on Ascend (torch_npu's name for its backend). Tensors are created on the process's target whatever
the tag said, as everywhere in the shim. A storage restored to "meta" gives meta tensors as the shim has them
(`with torch.device("meta")`): they report the meta device and hold real memory.
"""
import importlib
import re

from .._device import PROCESS_DEVICE_TYPE, device
from .rebuild import LoadedStorage

# torch's registered backends that check their device when a storage is restored to it, in its order
_PRIVATEUSE1 = "npu" if PROCESS_DEVICE_TYPE == "npu" else "privateuseone"
_BACKENDS = ("cuda", _PRIVATEUSE1, "hpu", "xpu", "mtia")


def decode(location):
    """torch reads location tags pickled as bytes (Python 2 files) as ASCII."""
    return location.decode("ascii") if isinstance(location, bytes) else location


def is_meta(map_location):
    """Whether `map_location` is the meta device itself, for which torch reads no storage data at all."""
    return (isinstance(map_location, str) and map_location == "meta") or \
        (isinstance(map_location, device) and map_location.type == "meta")


def restore(storage, location, map_location):
    """`storage` (restored from the tag `location`) after `map_location`, marked `meta` when it lands on the
    meta device, or torch's error for a tag it cannot restore."""
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, (str, bytes)):
        target = map_location
    elif isinstance(map_location, device):
        target = str(map_location)
    else:
        result = map_location(storage, location)
        if result is not None:
            if not isinstance(result, LoadedStorage):
                raise NotImplementedError(
                    f"torch.load: map_location returned a {type(result).__name__}; on MindSpore it may only return "
                    "the storage it was given (or None)")
            return result
        target = location
    storage.meta = check(target)
    return storage


def check(location):
    """Whether `location` is the meta device; torch's error when it cannot restore a storage there."""
    if not isinstance(location, str):
        raise TypeError(f"torch.load: a storage location must be a string such as 'cpu', got "
                        f"{type(location).__name__} {location!r:.80}")
    if location == "cpu":
        return False
    for backend in _BACKENDS:
        if location == backend or re.match(f"{backend}(:|[0-9]+)", location):
            _check_device(backend, location)
            return False
    if location.startswith("mps"):
        raise RuntimeError(f"torch.load: a storage is tagged with '{location}', but there is no MPS device here "
                           "(use map_location='cpu')")
    if location == "meta":
        return True
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                       f"{location})")


def _check_device(backend, location):
    if backend != PROCESS_DEVICE_TYPE:
        if backend == "cuda":
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        raise RuntimeError(f"The {backend.upper()} device module is not registered. If you are running on a "
                           "CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map "
                           "your storages to the CPU.")
    index = device(location).index or 0
    count = importlib.import_module(f"{__package__.rpartition('.')[0]}.{backend}").device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on {backend.upper()} device {index} but "
                           f"torch.{backend}.device_count() is {count}. Please use torch.load with map_location to "
                           "map your storages to an existing device.")
