"""torch.nn.functional's pooling functions (max, avg, lp, adaptive, unpool) over 1-3 spatial dimensions, on the
window gathers of `_pooling`."""
import math

import numpy as np
import mindspore
from mindspore import ops

from . import _pooling as _p

Tensor = mindspore.Tensor


def _max_pool(n, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, name):
    kernel, stride, padding, dilation = _p.sliding_args(n, kernel_size, stride, padding, dilation, name)
    x, batched = _p.batched(input, n, name)
    table = _p.sliding_table(tuple(x.shape[2:]), kernel, stride, padding, dilation, bool(ceil_mode))
    values, indices = _p.unbatch(_p.max_over_windows(x, table), batched)
    return (values, indices) if return_indices else values


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, True, "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, True, "max_pool2d")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, True, "max_pool3d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool3d")


def _avg_pool(n, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, name):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{name}: divisor must be not zero")
    kernel, stride, padding, dilation = _p.sliding_args(n, kernel_size, stride, padding, 1, name)
    x, batched = _p.batched(input, n, name)
    table = _p.sliding_table(tuple(x.shape[2:]), kernel, stride, padding, dilation, bool(ceil_mode))
    total = _p.sum_over_windows(x, table)
    if divisor_override is not None:
        out = total / divisor_override
    else:
        out = total / _p.counts(table.in_padded if count_include_pad else table.in_input, table.out_sizes, x.dtype)
    return out if batched else out.squeeze(0)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, "avg_pool1d")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                     "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                     "avg_pool3d")


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode, name):
    # torch: (sum over the window of x^p)^(1/p), computed as an average times the window size
    kernel = _p._tuple(kernel_size, n, "kernel_size")
    powered = input.pow(norm_type)
    out = _avg_pool(n, powered, kernel, stride, 0, ceil_mode, True, None, name)
    return (out.sign() * ops.relu(out.abs())).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode, "lp_pool1d")


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode, "lp_pool2d")


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode, "lp_pool3d")


def _adaptive_max(n, input, output_size, return_indices, name):
    x, batched = _p.batched(input, n, name)
    sizes, wanted = _p.adaptive_sizes(x, n, output_size)
    values, indices = _p.unbatch(_p.max_over_windows(x, _p.adaptive_table(sizes, wanted)), batched)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(1, input, output_size, True, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(2, input, output_size, True, "adaptive_max_pool2d")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(3, input, output_size, True, "adaptive_max_pool3d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max(1, input, output_size, return_indices, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive_max(2, input, output_size, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max(3, input, output_size, return_indices, "adaptive_max_pool3d")


def adaptive_avg_pool3d(input, output_size):
    x, batched = _p.batched(input, 3, "adaptive_avg_pool3d")
    sizes, wanted = _p.adaptive_sizes(x, 3, output_size)
    table = _p.adaptive_table(sizes, wanted)
    out = _p.sum_over_windows(x, table) / _p.counts(table.in_input, table.out_sizes, x.dtype)
    return out if batched else out.squeeze(0)


def _max_unpool(n, input, indices, kernel_size, stride, padding, output_size, name):
    kernel = _p._tuple(kernel_size, n, "kernel_size")
    stride = kernel if stride is None else _p._tuple(stride, n, "stride")
    padding = _p._tuple(padding, n, "padding")
    batched = input.ndim == n + 2
    x = input if batched else ops.expand_dims(input, 0)
    idx = indices if batched else ops.expand_dims(indices, 0)
    default = tuple((x.shape[2 + d] - 1) * stride[d] - 2 * padding[d] + kernel[d] for d in range(n))
    if output_size is None:
        out_sizes = default
    else:
        out_sizes = tuple(int(v) for v in tuple(output_size)[-n:])
        for d, (size, base) in enumerate(zip(out_sizes, default)):
            if not base - stride[d] < size < base + stride[d]:
                raise ValueError(f'invalid output_size "{tuple(out_sizes)}" (dim {d} must be between '
                                 f'{base - stride[d]} and {base + stride[d]})')
    total = int(np.prod(out_sizes))
    flat_idx = idx.reshape(idx.shape[0], idx.shape[1], -1).astype(mindspore.int64)
    low, high = int(flat_idx.min()) if flat_idx.size else 0, int(flat_idx.max()) if flat_idx.size else 0
    if low < 0 or high >= total:
        raise RuntimeError(f"{name}: found an invalid max index {high if high >= total else low} (output volume "
                           f"of size {total})")
    from ... import torch as _torch  # (its scatter has torch's semantics and gradient)

    zeros = _torch.zeros((x.shape[0], x.shape[1], total), dtype=x.dtype)
    out = zeros.scatter(2, flat_idx, x.reshape(x.shape[0], x.shape[1], -1))
    out = out.reshape(tuple(x.shape[:2]) + out_sizes)
    return out if batched else out.squeeze(0)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size, "max_unpool3d")


from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)
