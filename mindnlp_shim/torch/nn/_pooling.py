"""Pooling (max, average, power-average, adaptive, unpooling) over 1 to 3 spatial dimensions, as torch defines it.

Every pooling here is one gather. The input's spatial dimensions are flattened and one element is appended that
stands for everything outside the input (padding, a ceil_mode window's overhang, the unused slots of a short
adaptive window): -inf for max, 0 for sums. A host-built table of flat positions, one row of K window elements
per output position, picks the windows, giving (N, C, outputs, K). The reductions over K then follow torch's
rules: max keeps the first largest element (its flat position in the input is the index torch returns) and its
gradient goes to that element only; averages divide by torch's divisor (count_include_pad, the ceil_mode
overhang, divisor_override). The gather's gradient is a scatter-add, the same for every case.
"""
import collections
import functools

import numpy as np
import mindspore
from mindspore import ops

Tensor = mindspore.Tensor
_FLOATS = (mindspore.float16, mindspore.float32, mindspore.float64, mindspore.bfloat16)

# positions: (outputs, K) flat input positions, `size` (the appended element) outside the input;
# in_padded / in_input: (outputs, K) bool, the element lies inside the padded input / the input;
# out_sizes: the spatial output shape
_Table = collections.namedtuple("_Table", "positions in_padded in_input out_sizes")


def _tuple(value, n, name):
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * n
        if len(value) != n:
            raise RuntimeError(f"{name} must either be a single int, or a tuple of {n} ints")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _batched(input, n, name):
    if input.ndim not in (n + 1, n + 2) or any(s == 0 for s in input.shape[-n:]):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D input tensor with non-zero spatial sizes, but "
                           f"got input of size {tuple(input.shape)}")
    return (input, True) if input.ndim == n + 2 else (ops.expand_dims(input, 0), False)


def _table(sizes, coords, valid):
    """The table for per-dimension window coordinates `coords[d]` (outputs_d, K_d) into the input (any value:
    those outside [0, size) are padding) and `valid[d]` (False: a slot that is no element at all)."""
    out_sizes = tuple(c.shape[0] for c in coords)
    mesh_o = [g.reshape(-1, 1) for g in np.meshgrid(*[np.arange(o) for o in out_sizes], indexing="ij")]
    mesh_k = [g.reshape(1, -1) for g in np.meshgrid(*[np.arange(c.shape[1]) for c in coords], indexing="ij")]
    per_dim = [c[o, k] for c, o, k in zip(coords, mesh_o, mesh_k)]
    slot = np.logical_and.reduce([v[o, k] for v, o, k in zip(valid, mesh_o, mesh_k)])
    in_input = slot & np.logical_and.reduce([(c >= 0) & (c < n) for c, n in zip(per_dim, sizes)])
    flat = np.ravel_multi_index(tuple(np.clip(c, 0, n - 1) for c, n in zip(per_dim, sizes)), sizes)
    positions = np.where(in_input, flat, int(np.prod(sizes))).astype(np.int64)
    return positions, slot, in_input, out_sizes, per_dim


def _out_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:  # the last window must start inside the input or left padding
        out -= 1
    return out


@functools.lru_cache(maxsize=256)
def sliding_table(sizes, kernel, stride, padding, dilation, ceil_mode):
    outs = [_out_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in zip(sizes, kernel, stride, padding, dilation)]
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size: {sizes}. Calculated output size: {tuple(outs)}. Output size is too "
                           f"small")
    coords = [np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d
              for o, k, s, p, d in zip(outs, kernel, stride, padding, dilation)]
    positions, slot, in_input, out_sizes, per_dim = _table(sizes, coords, [np.ones(c.shape, bool) for c in coords])
    # inside the padded input: a ceil_mode window's overhang past the right padding is not counted
    in_padded = slot & np.logical_and.reduce([(c >= -p) & (c < n + p) for c, n, p in zip(per_dim, sizes, padding)])
    return _frozen(_Table(positions, in_padded, in_input, out_sizes))


@functools.lru_cache(maxsize=256)
def adaptive_table(sizes, out_sizes):
    coords, valid = [], []
    for n, o in zip(sizes, out_sizes):
        start = (np.arange(o) * n) // o
        end = -((-(np.arange(o) + 1) * n) // o)  # ceil((i + 1) * n / o)
        width = int((end - start).max())
        c = start[:, None] + np.arange(width)[None, :]
        coords.append(c)
        valid.append(c < end[:, None])
    positions, slot, in_input, outs, _ = _table(sizes, coords, valid)
    return _frozen(_Table(positions, slot, in_input, outs))


def _frozen(table):
    for array in table[:3]:
        array.setflags(write=False)
    return table


def _windows(x, table, fill):
    """(N, C, outputs, K): the windows of x (N, C, *spatial), `fill` outside the input."""
    n, c = x.shape[0], x.shape[1]
    flat = x.reshape(n, c, -1)
    outside = ops.full((n, c, 1), fill, dtype=x.dtype)
    extended = ops.concat((flat, outside), 2)
    picked = ops.gather(extended, Tensor.from_numpy(np.ascontiguousarray(table.positions.reshape(-1))), 2)
    return picked.reshape(n, c, table.positions.shape[0], table.positions.shape[1])


def _lowest(dtype):
    if dtype in _FLOATS:
        return float("-inf")
    raise RuntimeError(f"max pooling of {dtype} tensors is not supported by mindnlp-shim (floating inputs only)")


def max_over_windows(x, table):
    """(values, indices), both (N, C, *out_sizes): the first largest element of each window (NaN counts as
    largest) and its flat position in the input."""
    windows = _windows(x, table, _lowest(x.dtype))
    host = windows.asnumpy()
    # torch scans a window in order and keeps an element that is larger, or NaN
    choice = np.argmax(np.where(np.isnan(host), np.inf, host), axis=-1) if np.isnan(host).any() else \
        np.argmax(host, axis=-1)
    choice_t = Tensor.from_numpy(np.ascontiguousarray(choice[..., None].astype(np.int64)))
    values = ops.gather_elements(windows, 3, choice_t).squeeze(-1)
    index = np.take_along_axis(np.broadcast_to(table.positions, host.shape), choice[..., None], -1)[..., 0]
    out_shape = tuple(x.shape[:2]) + tuple(table.out_sizes)
    return values.reshape(out_shape), Tensor.from_numpy(np.ascontiguousarray(index.reshape(out_shape)))


def sum_over_windows(x, table):
    windows = _windows(x, table, 0)
    return windows.sum(-1).reshape(tuple(x.shape[:2]) + tuple(table.out_sizes))


def counts(mask, out_sizes, dtype):
    """The per-output number of elements in `mask` (outputs, K), shaped to broadcast over (N, C, *out)."""
    return Tensor.from_numpy(mask.sum(-1).reshape(out_sizes).astype(np.float64)).astype(dtype)


def unbatch(tensors, batched):
    return tensors if batched else tuple(t.squeeze(0) for t in tensors)


def sliding_args(n, kernel_size, stride, padding, dilation, name):
    kernel = _tuple(kernel_size, n, "kernel_size")
    empty_stride = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    stride = kernel if empty_stride else _tuple(stride, n, "stride")
    padding, dilation = _tuple(padding, n, "padding"), _tuple(dilation, n, "dilation")
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be greater than zero")
    for p, k in zip(padding, kernel):
        if p < 0 or p > k // 2:
            raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k}")
    return kernel, stride, padding, dilation


def batched(input, n, name):
    return _batched(input, n, name)


def adaptive_sizes(input, n, output_size):
    sizes = tuple(input.shape[-n:])
    wanted = _tuple(output_size, n, "output_size") if not isinstance(output_size, (tuple, list)) else \
        tuple(sizes[i] if v is None else int(v) for i, v in enumerate(output_size))
    if len(wanted) != n:
        raise RuntimeError(f"output_size must have {n} elements")
    return sizes, wanted
