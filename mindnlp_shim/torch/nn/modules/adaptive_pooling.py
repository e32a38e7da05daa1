"""AdaptiveAvgPool1d/2d: average over windows chosen so the output has `output_size` (Swin's pooler uses 1d)."""
from .. import functional as F
from .module import Module


class AdaptiveAvgPool1d(Module):
    """(N, C, L) or (C, L) -> (..., output_size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(Module):
    """(N, C, H, W) or (C, H, W) -> (..., *output_size); None in output_size keeps that side."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"
