"""torch.device, and the mapping between torch device types and MindSpore device targets."""
from ._runtime import DEVICE_TARGET

# The torch device type that MindSpore's device target answers to. Ascend NPUs keep torch_npu's name "npu".
TARGET_TO_TYPE = {"CPU": "cpu", "GPU": "cuda", "Ascend": "npu"}
PROCESS_DEVICE_TYPE = TARGET_TO_TYPE[DEVICE_TARGET]
_KNOWN_TYPES = ("cpu", "cuda", "npu", "meta", "mps", "xpu", "xla", "hpu", "privateuseone")


class device:
    """A torch.device: a type ("cpu", "cuda", "npu", "meta") and an optional index."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int):
            type, index = PROCESS_DEVICE_TYPE, type
        elif isinstance(type, str):
            if ":" in type:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
                type, _, idx = type.partition(":")
                if not idx.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
                index = int(idx)
        else:
            raise TypeError(f"torch.device(): expected a string, int or device, got {type!r}")
        if type not in _KNOWN_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN_TYPES)} device type at start of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError("torch.device is immutable")

    def __eq__(self, other):
        # torch compares devices with devices only: `device("cpu") == "cpu"` is False, and a string that names no
        # device type (transformers asks `"disk" in device_map.values()`) is simply unequal
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))

    # torch.device is also a context manager that sets the default device for factory functions
    def __enter__(self):
        from . import _device_context

        _device_context.push(self)
        return self

    def __exit__(self, *exc):
        from . import _device_context

        _device_context.pop()
        return False


# The device every tensor of this process lives on.
PROCESS_DEVICE = device(PROCESS_DEVICE_TYPE) if PROCESS_DEVICE_TYPE == "cpu" else device(PROCESS_DEVICE_TYPE, 0)


def check_reachable(dev):
    """Devices other than the process's own (and "meta", which we treat as the process device) cannot hold
    tensors: MindSpore runs one device target per process."""
    dev = dev if isinstance(dev, device) else device(dev)
    if dev.type in (PROCESS_DEVICE_TYPE, "meta"):
        return dev
    raise RuntimeError(
        f"Tensor device '{dev}' is not available: MindSpore runs this process on its {DEVICE_TARGET} target "
        f"(torch device '{PROCESS_DEVICE}'). Set mindspore.set_device(...) before importing mindnlp to use another."
    )
