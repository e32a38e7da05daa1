"""torch.nn.functional.conv_transpose1d/2d: the adjoint of a strided convolution, as a plain convolution.

The input is dilated by the stride (stride - 1 zeros between elements), padded by dilation * (k - 1) - padding on
each side (cropped where that is negative) plus output_padding at the end, and convolved with stride 1 by the
kernel flipped in space, its in/out channels swapped within each group. Output size per dimension:
(size - 1) * stride - 2 padding + dilation (k - 1) + output_padding + 1."""
from ... import torch


def _pair(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _dilate(x, stride):
    """Insert stride - 1 zeros between neighbouring elements of the last two dimensions."""
    sh, sw = stride
    if sh == 1 and sw == 1:
        return x
    n, c, h, w = x.shape
    spread = torch.zeros((n, c, h, sh, w, sw), dtype=x.dtype)
    spread = spread + x.reshape(n, c, h, 1, w, 1) * _corner(sh, sw, x.dtype)
    return spread.reshape(n, c, h * sh, w * sw)[:, :, :(h - 1) * sh + 1, :(w - 1) * sw + 1]


def _corner(sh, sw, dtype):
    corner = torch.zeros((1, 1, 1, sh, 1, sw), dtype=dtype)
    corner[0, 0, 0, 0, 0, 0] = 1
    return corner


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if isinstance(padding, str):
        raise RuntimeError("conv_transpose2d: padding must be an int or a tuple of ints, not a string")
    torch.nn.functional._check_convolution_dtype(input, weight, "conv_transpose2d")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    stride, padding = _pair(stride, 2), _pair(padding, 2)
    output_padding, dilation = _pair(output_padding, 2), _pair(dilation, 2)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                               f"output_padding={output_padding}, stride={stride}, dilation={dilation}")
    c_in, c_out_per_group, kh, kw = weight.shape
    if x.shape[1] != c_in:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input "
                           f"{list(x.shape)} to have {c_in} channels, but got {x.shape[1]} channels instead")
    kernel = weight.reshape(groups, c_in // groups, c_out_per_group, kh, kw).transpose(1, 2)
    kernel = kernel.reshape(groups * c_out_per_group, c_in // groups, kh, kw).flip((2, 3))
    x = _dilate(x, stride)
    pads = []
    for k, d, p, op in reversed(list(zip((kh, kw), dilation, padding, output_padding))):
        edge = d * (k - 1) - p
        pads += [edge, edge + op]
    x = torch.nn.functional.pad(x, tuple(pads))
    out = torch.nn.functional.conv2d(x, kernel, bias, 1, 0, dilation, groups)
    return out if batched else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    torch.nn.functional._check_convolution_dtype(input, weight, "conv_transpose1d")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    first = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
    out = conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, first(stride)), (0, first(padding)),
                           (0, first(output_padding)), groups, (1, first(dilation)))
    out = out.squeeze(2)
    return out if batched else out.squeeze(0)
