"""torch.cpu: the CPU as a device module, like torch.cuda (accelerate's multi-process CPU setup calls
`torch.cpu.device_count()` and `torch.cpu.set_device`). There is one CPU device; selecting it changes nothing."""


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """Nothing to select: every tensor of a CPU process lives on the one CPU device (as in torch)."""


def synchronize(device=None):
    """CPU kernels run synchronously here (the shim turns MindSpore's launch_blocking on): nothing to wait for."""
