"""ConvTranspose1d/2d/3d: (N, C_in, *) -> (N, C_out, *), weights (C_in, C_out/groups, *kernel); the adjoint of the
convolution with the same arguments. `forward(input, output_size)` picks the output_padding that gives that
size, as torch."""
from .. import functional as F
from .conv import _ConvWeights, _tuple, conv_repr


class _ConvTransposeNd(_ConvWeights):
    _dims = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        n = self._dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding, self.dilation = _tuple(padding, n), _tuple(dilation, n)
        self.output_padding, self.padding_mode, self.transposed = _tuple(output_padding, n), padding_mode, True
        self._create_parameters((in_channels, out_channels // groups) + self.kernel_size, out_channels, bias, dtype)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        n = self._dims
        wanted = tuple(output_size)[-n:]
        if len(wanted) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(tuple(output_size))})")
        padding = []
        for d in range(n):
            size = input.shape[input.dim() - n + d]
            smallest = ((size - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            largest = smallest + self.stride[d] - 1
            if not smallest <= wanted[d] <= largest:
                raise ValueError(f"requested an output size of {list(wanted)}, but valid sizes range from "
                                 f"{smallest} to {largest} (for an input of {list(input.shape[2:])})")
            padding.append(wanted[d] - smallest)
        return tuple(padding)

    def extra_repr(self):
        return conv_repr(self)


class ConvTranspose1d(_ConvTransposeNd):
    _dims = 1

    def forward(self, input, output_size=None):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    _dims = 2

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3

    def forward(self, input, output_size=None):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)
