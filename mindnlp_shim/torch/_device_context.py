"""The default-device stack behind `with torch.device(...)` and `torch.set_default_device`.

All tensors live on the process's MindSpore target, so a default device only needs to be validated and
reported (`torch.get_default_device`). A "meta" default is honoured as the process device: parameters get real
(uninitialised-then-initialised) storage, which is what transformers does next anyway.
"""
from ._device import PROCESS_DEVICE, check_reachable

_stack = []


def push(dev):
    _stack.append(check_reachable(dev))


def pop():
    _stack.pop()


def current():
    return _stack[-1] if _stack else PROCESS_DEVICE
