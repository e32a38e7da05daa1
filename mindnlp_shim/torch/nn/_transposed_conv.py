"""torch.nn.functional.conv_transpose1d/2d/3d: the adjoint of a strided convolution, as a plain convolution.

The input is dilated by the stride (stride - 1 zeros between elements), padded by dilation * (k - 1) - padding on
each side (cropped where that is negative) plus output_padding at the end, and convolved with stride 1 by the
kernel flipped in space, its in/out channels swapped within each group. Output size per dimension:
(size - 1) * stride - 2 padding + dilation (k - 1) + output_padding + 1."""
from ... import torch


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _dilate(x, stride):
    """Insert stride - 1 zeros between neighbouring elements of each spatial dimension."""
    if all(s == 1 for s in stride):
        return x
    n, c, *sizes = x.shape
    spread_shape = [n, c]
    for size, s in zip(sizes, stride):
        spread_shape += [size, s]
    corner_shape = [1, 1]
    for s in stride:
        corner_shape += [1, s]
    corner = torch.zeros(corner_shape, dtype=x.dtype)
    corner[(0,) * len(corner_shape)] = 1  # each element lands on the first of its stride slots
    spread = torch.zeros(spread_shape, dtype=x.dtype)
    spread = spread + x.reshape([n, c] + [v for size in sizes for v in (size, 1)]) * corner
    spread = spread.reshape([n, c] + [size * s for size, s in zip(sizes, stride)])
    return spread[(slice(None), slice(None)) + tuple(slice(0, (size - 1) * s + 1) for size, s in zip(sizes, stride))]


def _conv_transpose(name, dims, conv, input, weight, bias, stride, padding, output_padding, groups, dilation):
    if isinstance(padding, str):
        raise RuntimeError(f"{name}: padding must be an int or a tuple of ints, not a string")
    torch.nn.functional._product_dtypes.convolution(input, weight, bias)
    torch.nn.functional._check_convolution_dtype(input, weight, name)
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    stride, padding = _tuple(stride, dims), _tuple(padding, dims)
    output_padding, dilation = _tuple(output_padding, dims), _tuple(dilation, dims)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                               f"output_padding={output_padding}, stride={stride}, dilation={dilation}")
    c_in, c_out_per_group, *kernel_size = weight.shape
    if x.shape[1] != c_in:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input "
                           f"{list(x.shape)} to have {c_in} channels, but got {x.shape[1]} channels instead")
    kernel = weight.reshape(groups, c_in // groups, c_out_per_group, *kernel_size).transpose(1, 2)
    kernel = kernel.reshape(groups * c_out_per_group, c_in // groups, *kernel_size)
    kernel = kernel.flip(tuple(range(2, dims + 2)))
    x = _dilate(x, stride)
    pads = []
    for k, d, p, op in reversed(list(zip(kernel_size, dilation, padding, output_padding))):
        edge = d * (k - 1) - p
        pads += [edge, edge + op]
    x = torch.nn.functional.pad(x, tuple(pads))
    out = conv(x, kernel, bias, 1, 0, dilation, groups)
    return out if batched else out.squeeze(0)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose2d", 2, torch.nn.functional.conv2d, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose3d", 3, torch.nn.functional.conv3d, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    torch.nn.functional._product_dtypes.convolution(input, weight, bias)
    torch.nn.functional._check_convolution_dtype(input, weight, "conv_transpose1d")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    first = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
    out = conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, first(stride)), (0, first(padding)),
                           (0, first(output_padding)), groups, (1, first(dilation)))
    out = out.squeeze(2)
    return out if batched else out.squeeze(0)
