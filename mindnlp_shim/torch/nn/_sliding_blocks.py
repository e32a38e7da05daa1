"""torch.nn.functional.unfold (im2col) and fold (col2im) on the window tables of `_pooling`.

unfold: (N, C, H, W) -> (N, C kh kw, L), each column one sliding block (zeros outside the input).
fold: the adjoint, (N, C kh kw, L) -> (N, C, H, W), summing overlapping blocks."""
import numpy as np
import mindspore

from ... import torch
from . import _pooling as _p


def _args(kernel_size, dilation, padding, stride):
    kernel, dilation = _p._tuple(kernel_size, 2, "kernel_size"), _p._tuple(dilation, 2, "dilation")
    padding, stride = _p._tuple(padding, 2, "padding"), _p._tuple(stride, 2, "stride")
    if any(v <= 0 for v in kernel + dilation + stride) or any(v < 0 for v in padding):
        raise RuntimeError("kernel_size, dilation and stride must be greater than zero, padding non-negative")
    return kernel, dilation, padding, stride


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    kernel, dilation, padding, stride = _args(kernel_size, dilation, padding, stride)
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    x = input if input.dim() == 4 else input.unsqueeze(0)
    table = _p.sliding_table(tuple(x.shape[2:]), kernel, stride, padding, dilation, False)
    windows = _p._windows(x, table, 0)  # (N, C, L, K)
    n, c, blocks, k = windows.shape
    out = windows.permute(0, 1, 3, 2).reshape(n, c * k, blocks)
    return out if input.dim() == 4 else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    kernel, dilation, padding, stride = _args(kernel_size, dilation, padding, stride)
    sizes = _p._tuple(output_size, 2, "output_size")
    if input.dim() not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.dim()}D)")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    k = kernel[0] * kernel[1]
    table = _p.sliding_table(sizes, kernel, stride, padding, dilation, False)
    blocks = table.positions.shape[0]
    if x.shape[1] % k or x.shape[2] != blocks:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size "
                           f"({k}) and its dimension 2 to match the calculated number of sliding blocks "
                           f"({blocks}), but got input of size {tuple(x.shape)}")
    n, c = x.shape[0], x.shape[1] // k
    values = x.reshape(n, c, k, blocks).permute(0, 1, 3, 2).reshape(n, c, blocks * k)
    total = int(np.prod(sizes))
    positions = torch.tensor(np.ascontiguousarray(table.positions.reshape(-1)))
    # the extra slot `total` collects the elements that fall into the padding
    out = torch.zeros((n, c, total + 1), dtype=x.dtype).index_add(2, positions, values)
    out = out[:, :, :total].reshape((n, c) + sizes)
    return out if input.dim() == 3 else out.squeeze(0)
