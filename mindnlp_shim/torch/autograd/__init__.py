"""torch.autograd on MindSpore's tape engine."""
from . import engine, grad_mode, function, graph
from .engine import backward, grad
from .function import Function
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                        is_inference_mode_enabled)
from mindspore import Tensor as Variable


class _AnomalyMode:
    """torch.autograd.detect_anomaly / set_detect_anomaly: accepted; MindSpore reports kernel errors itself."""

    def __init__(self, mode=True, check_nan=True):
        self.mode = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


detect_anomaly = _AnomalyMode
set_detect_anomaly = _AnomalyMode
