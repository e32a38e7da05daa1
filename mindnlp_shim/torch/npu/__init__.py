"""torch.npu (torch_npu's namespace): Ascend NPUs, available when MindSpore runs on its Ascend target."""
from .._runtime import DEVICE_TARGET
from ... import _mindspore as _ms


def is_available():
    return DEVICE_TARGET == "Ascend"


def device_count():
    return max(1, _ms.device_count("Ascend")) if is_available() else 0
