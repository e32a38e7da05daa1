"""torch.nn.attention: attention backend selection. Attention runs as matmul/softmax on MindSpore."""
import contextlib
import enum

from . import flex_attention  # noqa: F401


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Every backend request is served by the one math implementation."""
    yield
