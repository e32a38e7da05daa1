"""torch.accelerator: the accelerator MindSpore runs on, or None on its CPU target."""
from .._device import PROCESS_DEVICE, PROCESS_DEVICE_TYPE


def is_available():
    return PROCESS_DEVICE_TYPE != "cpu"


def current_accelerator(check_available=False):
    return PROCESS_DEVICE if PROCESS_DEVICE_TYPE != "cpu" else None


def device_count():
    return 1 if is_available() else 0


def current_device_index():
    return 0


def synchronize(device=None):
    pass
