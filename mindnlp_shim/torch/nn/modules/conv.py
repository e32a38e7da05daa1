"""Conv1d/Conv2d/Conv3d: (N, C_in, *) -> (N, C_out, *), weights (C_out, C_in/groups, *kernel)."""
import math

from .. import functional as F, init
from ..parameter import Parameter
from ..._ops.creation import empty
from .module import Module


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvWeights(Module):
    """What direct and transposed convolutions share: a weight of the given shape and an optional bias of
    out_channels, initialised as torch's convolutions are."""

    def _create_parameters(self, weight_shape, out_channels, bias, dtype):
        self.weight = Parameter(empty(weight_shape, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in else 0
            init.uniform_(self.bias, -bound, bound)


def conv_repr(conv):
    """torch's summary of a (transposed) convolution: the settings that differ from their defaults."""
    text = f"{conv.in_channels}, {conv.out_channels}, kernel_size={conv.kernel_size}, stride={conv.stride}"
    if isinstance(conv.padding, str) or any(conv.padding):
        text += f", padding={conv.padding}"
    if any(d != 1 for d in conv.dilation):
        text += f", dilation={conv.dilation}"
    if any(getattr(conv, "output_padding", ())):
        text += f", output_padding={conv.output_padding}"
    if conv.groups != 1:
        text += f", groups={conv.groups}"
    if conv.bias is None:
        text += ", bias=False"
    if conv.padding_mode != "zeros":
        text += f", padding_mode={conv.padding_mode}"
    return text


class _ConvNd(_ConvWeights):
    _dims = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        n = self._dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _tuple(kernel_size, n), _tuple(stride, n), _tuple(dilation, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.padding_mode = padding_mode
        self._create_parameters((out_channels, in_channels // groups) + self.kernel_size, out_channels, bias, dtype)

    def extra_repr(self):
        return conv_repr(self)

    def _border(self):
        """F.pad's (before, after) pairs, last dimension first, for the padding a non-zeros padding_mode applies
        before the convolution: `padding` on both sides, or 'same' split with the odd one after."""
        pairs = []
        for k, d, p in zip(self.kernel_size, self.dilation, _tuple(self.padding, self._dims)):
            if p == "valid":
                pairs.append((0, 0))
            elif p == "same":
                total = d * (k - 1)
                pairs.append((total // 2, total - total // 2))
            else:
                pairs.append((p, p))
        return tuple(v for pair in reversed(pairs) for v in pair)

    def _convolve(self, conv, input):
        if self.padding_mode == "zeros":
            return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        return conv(F.pad(input, self._border(), mode=self.padding_mode), self.weight, self.bias, self.stride, 0,
                    self.dilation, self.groups)


class Conv1d(_ConvNd):
    _dims = 1

    def forward(self, input):
        return self._convolve(F.conv1d, input)


class Conv2d(_ConvNd):
    _dims = 2

    def forward(self, input):
        return self._convolve(F.conv2d, input)


class Conv3d(_ConvNd):
    _dims = 3

    def forward(self, input):
        return self._convolve(F.conv3d, input)
