"""torch.npu (torch_npu's namespace): Ascend NPUs, available when MindSpore runs on its Ascend target."""
from .._runtime import DEVICE_TARGET


def is_available():
    return DEVICE_TARGET == "Ascend"


def device_count():
    return 1 if is_available() else 0
