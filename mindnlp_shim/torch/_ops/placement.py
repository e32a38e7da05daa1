"""Writes at computed positions (index_put, index_copy, put, the *_scatter family, fill_diagonal_), `take`, and
the reshaping helpers MindSpore's Tensor also names (ravel, fliplr, hsplit, rot90, unfold, sum_to_size).

The positions a write reaches are found in NumPy on an array of flat indices, indexed the way the torch op
indexes its input (NumPy's indexing rules for index arrays, masks and slices are torch's). The write itself is
one scatter into the flattened input, so gradients reach both the input (zero where overwritten) and the
written values."""
import mindspore
import numpy as np
from mindspore import ops

from . import indexing, reduction as red, shape as sh
from ._util import Tensor, type_name, wrap_dim


def _fresh(x):
    from .._tensor import clone

    return clone(x)  # (a new tensor on the graph, as torch's out-of-place ops answer)


def _flat_positions(input):
    return np.arange(input.numel(), dtype=np.int64).reshape(tuple(input.shape))


def _host_index(index):
    if isinstance(index, Tensor):
        return index.asnumpy()
    return index


def _place(input, positions, values, accumulate=False):
    """`input` with `values` (broadcast to `positions`' shape) written, or added, at the flat `positions`."""
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    if not isinstance(values, Tensor):
        values = ops.fill(input.dtype, (), values)
    if values.dtype != input.dtype:
        values = ops.cast(values, input.dtype)
    try:
        values = sh.broadcast_to(values, positions.shape) if tuple(values.shape) != positions.shape else values
    except (ValueError, RuntimeError, TypeError):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(positions.shape)}") from None
    work = input if input.dtype != mindspore.bool_ else ops.cast(input, mindspore.uint8)
    if values.dtype != work.dtype:
        values = ops.cast(values, work.dtype)
    flat, index, vals = work.reshape(-1), Tensor(positions.reshape(-1)), values.reshape(-1)
    if positions.size == 0:
        out = _fresh(flat)
    elif accumulate:
        out = indexing.scatter_add(flat, 0, index, vals)
    else:
        out = indexing.scatter(flat, 0, index, vals)
    out = out.reshape(tuple(input.shape))
    return out if input.dtype != mindspore.bool_ else ops.cast(out, mindspore.bool_)


def index_put(input, indices, values, accumulate=False):
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be a tuple of Tensors")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if values.dtype != input.dtype:  # (torch does not cast here, where x[i] = v does)
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{type_name(input.dtype)} for the destination and {type_name(values.dtype)} for the source.")
    np_index = tuple(slice(None) if i is None else _host_index(i) for i in indices)
    return _place(input, _flat_positions(input)[np_index], values, accumulate)


def index_copy(input, dim, index, source):
    dim = wrap_dim(dim, input.ndim)
    positions = np.take(_flat_positions(input), _host_index(index).reshape(-1), axis=dim) if input.ndim else \
        _flat_positions(input)
    if tuple(source.shape) != positions.shape and source.numel() != positions.size:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes.")
    return _place(input, positions, source.reshape(positions.shape))


def put(input, index, source, accumulate=False):
    if source.numel() != index.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    positions = _flat_positions(input).reshape(-1)[_host_index(index)]
    return _place(input, positions, source.reshape(positions.shape), accumulate)


def take(input, index):
    positions = _flat_positions(input).reshape(-1)[_host_index(index)]  # negative indices count from the end
    return indexing.index_select(input.reshape(-1), 0, Tensor(positions.reshape(-1))).reshape(positions.shape)


def _scatter_into(input, src, positions, name):
    if tuple(src.shape) != positions.shape:
        raise RuntimeError(f"{name}(): expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(positions.shape)}")
    return _place(input, positions, src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    positions = np.diagonal(_flat_positions(input), offset, wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim))
    return _scatter_into(input, src, positions, "diagonal_scatter")


def select_scatter(input, src, dim, index):
    return _scatter_into(input, src, np.take(_flat_positions(input), index, axis=wrap_dim(dim, input.ndim)),
                         "select_scatter")


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    window = [slice(None)] * input.ndim
    window[wrap_dim(dim, input.ndim)] = slice(start, end, step)
    return _scatter_into(input, src, _flat_positions(input)[tuple(window)], "slice_scatter")


def _fill_diagonal(input, fill_value, wrap=False):
    """Out-of-place core of Tensor.fill_diagonal_ (a Tensor-only method)."""
    if input.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(tuple(input.shape), dtype=bool)
    np.fill_diagonal(mask, True, wrap=wrap)  # (NumPy's wrap rule for tall matrices is torch's)
    return _place(input, np.flatnonzero(mask), fill_value)


# ---------------------------------------------------------------- reshaping under MindSpore-taken names
def ravel(input):
    return input.reshape(-1)


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return sh.flip(input, (1,))


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return sh.flip(input, (0,))


def _split_along(input, indices_or_sections, dim, name, min_ndim):
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, int) and input.shape[dim] % indices_or_sections:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {indices_or_sections}!")
    return sh.tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    return _split_along(input, indices_or_sections, 0 if input.ndim == 1 else 1, "hsplit", 1)


def vsplit(input, indices_or_sections):
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees k times in the plane `dims`, from the first axis towards the second."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return sh.transpose(sh.flip(input, (d1,)), d0, d1)
    if k == 2:
        return sh.flip(input, (d0, d1))
    if k == 3:
        return sh.transpose(sh.flip(input, (d0,)), d0, d1)
    return _fresh(input)


def _unfold(input, dimension, size, step):
    """Tensor.unfold: every window of `size` elements along `dimension`, `step` apart, as a new last dimension."""
    if input.ndim == 0:
        if size != 1:
            raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}")
        return input.reshape(1)
    dim = wrap_dim(dimension, input.ndim)
    length = input.shape[dim]
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (length - size) // step + 1
    # a view over input's memory, as torch's (writes through the windows reach the input)
    from .strided_views import as_strided

    stride = input.stride()
    shape = tuple(input.shape[:dim]) + (count,) + tuple(input.shape[dim + 1:]) + (size,)
    strides = tuple(stride[:dim]) + (stride[dim] * step,) + tuple(stride[dim + 1:]) + (stride[dim],)
    return as_strided(input, shape, strides, input.storage_offset())


def _sum_to_size(input, *size):
    """Tensor.sum_to_size: sum the dimensions that broadcasting `size` to input's shape would have expanded."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = input.ndim - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, input.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(input.shape)}}}.")
    out = red.sum(input, tuple(range(lead))) if lead else input
    summed = tuple(i for i, (s, n) in enumerate(zip(size, out.shape)) if s == 1 and n != 1)
    return red.sum(out, summed, True) if summed else out
