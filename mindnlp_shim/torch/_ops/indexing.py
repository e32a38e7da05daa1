"""Gather/scatter, index_select, masked selection, nonzero."""
import mindspore
import numpy as np
from mindspore import mint, ops

from . import host_scatter_add as _host_scatter_add
from . import host_small
from ._util import Tensor, any_outside, index_range, type_name, wrap_dim, write_out
from .._runtime import DEVICE_TARGET
from ... import _mindspore as _ms

_INDEX_DTYPES = frozenset({mindspore.int64, mindspore.int32})


def _long(index):
    return index if index.dtype in (mindspore.int64, mindspore.int32) else index.astype(mindspore.int64)


def _index_dtype(index, message, error=RuntimeError):
    if not isinstance(index, Tensor) or index._dtype not in _INDEX_DTYPES:
        got = type_name(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise error(f"{message}, but got {got}")


def _check_bounds(index, size, dim, error=RuntimeError, allow_negative=False):
    """torch's message for the first bad value: 'index 4 is out of bounds for dimension 1 with size 4'."""
    low, high = index_range(index)
    bad = low if low < (-size if allow_negative else 0) else high if high >= size else None
    if bad is not None:
        raise error(f"index {bad} is out of bounds for dimension {dim} with size {size}")


_dim = wrap_dim


def index_select(input, dim, index, *, out=None):
    if out is not None:  # (torch wants out in the input's own dtype)
        return write_out(out, index_select(input, dim, index), "index_select", exact=True)
    dim = _dim(dim, input.ndim)
    _index_dtype(index, "index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, but got dim: {index.ndim}")
    size = input.shape[dim] if input.ndim else 1
    if size == 0 and input.ndim > 1 and index.numel():
        raise RuntimeError("index_select(): self indexing axis dim should be positive")  # (torch's check first)
    if any_outside(index, size):
        low, high = index_range(index)
        # (torch's CPU kernel: IndexError along dim 0, RuntimeError along the others)
        raise (IndexError if dim == 0 else RuntimeError)(
            f"index_select(): index out of range in self: index {low if low < 0 else high} is out of bounds for "
            f"dimension {dim} with size {size}")
    return ops.index_select(input, dim, index.reshape(-1))


def _check_gather_shapes(input, dim, index, name):
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError(f"{name}(): Index tensor must have the same number of dimensions as input tensor")
    for d, (i, n) in enumerate(zip(index.shape, input.shape)):
        if d != dim and i > n:
            raise RuntimeError(f"{name}(): Size does not match at dimension {d} expected index "
                               f"{list(index.shape)} to be no larger than self {list(input.shape)} apart from "
                               f"dimension {dim}")


def gather(input, dim, index, *, sparse_grad=False, out=None):
    if out is not None:
        return write_out(out, gather(input, dim, index), "gather", exact=True)
    dim = _dim(dim, input.ndim)
    _index_dtype(index, "gather(): Expected dtype int32/int64 for index")
    _check_gather_shapes(input, dim, index, "gather")
    size = input.shape[dim] if input.ndim else 1
    if any_outside(index, size):
        _check_bounds(index, size, dim)
    return ops.gather_elements(input, dim, index)


def take_along_dim(input, indices, dim=None, *, out=None):
    if out is not None:
        return write_out(out, take_along_dim(input, indices, dim), "take_along_dim", exact=True)
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices.ndim != input.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    dim = _dim(dim, input.ndim)
    # unlike gather, torch broadcasts input and indices against each other in every dimension but `dim`
    others = [1 if i == dim else max(a, b) for i, (a, b) in enumerate(zip(input.shape, indices.shape))]
    for i, (a, b) in enumerate(zip(input.shape, indices.shape)):
        if i != dim and a != b and 1 not in (a, b):
            raise RuntimeError(f"torch.take_along_dim(): shape mismatch in dimension {i}: {a} and {b}")

    def expanded(t):
        shape = tuple(t.shape[i] if i == dim else n for i, n in enumerate(others))
        return t if tuple(t.shape) == shape else ops.broadcast_to(t, shape)

    return gather(expanded(input), dim, expanded(indices))


def _check_scatter(input, dim, index, src, name):
    """torch's checks for scatter/scatter_add: an integer index no larger than self (apart from `dim`) and than
    src, src of self's dtype, every index value inside self's `dim`."""
    _index_dtype(index, f"{name}(): Expected dtype int32/int64 for index")
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError(f"{name}(): Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if src._dtype is not input._dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        if src.ndim != index.ndim and not (index.ndim <= 1 and src.ndim <= 1):
            raise RuntimeError(f"{name}(): Index tensor must have the same number of dimensions as src tensor")
    for d, i in enumerate(index.shape):
        too_big_for_self = d != dim and i > input.shape[d]
        too_big_for_src = isinstance(src, Tensor) and src.ndim and i > src.shape[d]
        if too_big_for_self or too_big_for_src:
            raise RuntimeError(f"{name}(): Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {dim} and to be no larger size than src "
                               f"{list(src.shape) if isinstance(src, Tensor) else []}")
    size = input.shape[dim] if input.ndim else 1
    if any_outside(index, size):
        _check_bounds(index, size, dim)


def _src_slice(src, index):
    """The part of `src` that `index` addresses (torch reads src only where index has elements)."""
    if tuple(src.shape) == tuple(index.shape):
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    if src is None:
        src = value
    dim = _dim(dim, input.ndim)
    _check_scatter(input, dim, index, src if isinstance(src, Tensor) else None, "scatter")
    if not isinstance(src, Tensor):
        src = ops.fill(input.dtype, tuple(index.shape), src)
    if reduce is not None:
        if reduce == "add":
            return scatter_add(input, dim, index, src)
        raise NotImplementedError(f"torch.scatter(reduce='{reduce}') is not supported on MindSpore yet")
    if index.numel() == 0:
        return input.clone()
    # not mint.scatter: its CPU kernel keeps state between calls (after a scatter on a 2-D input, a later 1-D
    # scatter writes only its first element); tensor_scatter_elements has no such state
    return ops.tensor_scatter_elements(input, _long(index), _src_slice(src, index).astype(input.dtype), dim, "none")


def scatter_add(input, dim, index, src):
    dim = _dim(dim, input.ndim)
    _check_scatter(input, dim, index, src, "scatter_add")
    return _scatter_add_unchecked(input, dim, index, src)


def _scatter_add_unchecked(input, dim, index, src):
    """input with src (at least index's shape, read where index has elements) added at index along dim."""
    if src._dtype is not input._dtype:
        src = src.astype(input.dtype)
    if DEVICE_TARGET == "CPU":  # (its TensorScatterElements loses updates to repeated indices: host_scatter_add)
        out = _host_scatter_add.scatter_add(input, dim, _long(index), src)
        if out is not None:
            return out
    # MindSpore's CPU backend lacks ScatterAddExt: add a one-hot accumulation built from tensor_scatter_elements
    return ops.tensor_scatter_elements(input, _long(index), _src_slice(src, index), dim, "add")


def index_add(input, dim, index, source, *, alpha=1, out=None):
    if out is not None:
        return write_out(out, index_add(input, dim, index, source, alpha=alpha), "index_add", exact=True)
    dim = _dim(dim, input.ndim)
    _index_dtype(index, "index_add_(): Expected dtype int32/int64 for index")
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim}")
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_add_(): self ({type_name(input.dtype)}) and source ({type_name(source.dtype)}) "
                           f"must have the same scalar type")
    count = source.shape[dim] if source.ndim else 1
    if index.numel() != count:
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {dim}")
    if source.ndim != input.ndim or any(a != b for d, (a, b) in enumerate(zip(source.shape, input.shape))
                                        if d != dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    size = input.shape[dim] if input.ndim else 1
    if any_outside(index, size):
        _check_bounds(index, size, dim)
    if alpha != 1:
        source = ops.mul(source, alpha)
    shape = [1] * source.ndim
    shape[dim] = -1
    idx = ops.broadcast_to(_long(index).reshape(shape), source.shape)
    return _scatter_add_unchecked(input, dim, idx, source)


def index_fill(input, dim, index, value):
    dim = _dim(dim, input.ndim)
    if not isinstance(index, Tensor) or index._dtype is not mindspore.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("index_fill_(): Index has to be a vector/scalar")
    if isinstance(value, complex) and input.dtype not in (mindspore.complex64, mindspore.complex128):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    size = input.shape[dim] if input.ndim else 1
    # unlike the gathers, torch's index_fill takes negative indices counted from the end
    _check_bounds(index, size, dim, IndexError, allow_negative=True)
    index = ops.where(ops.lt(index, 0), ops.add(index, size), index)
    mask_shape = [1] * input.ndim
    mask_shape[dim] = input.shape[dim]
    mask = _ms.zeros(input.shape[dim], mindspore.bool_)
    mask = ops.tensor_scatter_elements(mask.astype(mindspore.int32), index.reshape(-1),
                                       ops.ones(index.numel(), mindspore.int32), 0).astype(mindspore.bool_)
    from .pointwise import masked_fill

    return masked_fill(input, mask.reshape(mask_shape), value)  # (its float64 path keeps float64 exact)


def masked_select(input, mask, *, out=None):
    if out is not None:
        return write_out(out, masked_select(input, mask), "masked_select", exact=True)
    return ops.masked_select(input, mask)


def masked_scatter(input, mask, source):
    """Positions where `mask` is True take `source`'s elements in order (built from cumsum + gather + where,
    which are differentiable on every target)."""
    mask = ops.broadcast_to(mask, tuple(input.shape)) if tuple(mask.shape) != tuple(input.shape) else mask
    flat_mask = mask.reshape(-1)
    taken = ops.cumsum(flat_mask.astype(mindspore.int64), 0) - 1  # index into source for each True position
    if source.numel() < int(taken[-1].item()) + 1 if taken.numel() else False:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    taken = ops.clamp(taken, 0, max(source.numel() - 1, 0))
    values = ops.gather(source.reshape(-1).astype(input.dtype), taken, 0).reshape(input.shape)
    return ops.where(mask, values, input)


def nonzero(input, *, as_tuple=False, out=None):
    if out is not None:
        return write_out(out, nonzero(input), "nonzero", exact=True, differentiable=False)
    if input.ndim == 0:  # (MindSpore's kernel fails on rank 0: torch's answer is 1 or 0 rows of no coordinates)
        idx = _ms.zeros((int(bool(input)), 0), mindspore.int64)
    else:
        idx = ops.nonzero(input).astype(mindspore.int64)
    if as_tuple:
        if input.ndim == 0:
            return (_ms.zeros(int(bool(input)), mindspore.int64),)
        return tuple(idx[:, i] for i in range(input.ndim))
    return idx


def argwhere(input):
    return nonzero(input)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Membership test by broadcasting against the flattened test set."""
    if not isinstance(test_elements, Tensor):
        from .creation import tensor

        test_elements = tensor(test_elements)
    if not isinstance(elements, Tensor):
        from .creation import tensor

        elements = tensor(elements)
    on_host = host_small.isin(elements, test_elements)
    if on_host is not None:
        return ops.logical_not(on_host) if invert else on_host
    if test_elements.numel() == 0:  # (MindSpore's any over an empty axis reads uninitialised memory)
        return ops.fill(mindspore.bool_, tuple(elements.shape), bool(invert))
    matches = ops.equal(ops.expand_dims(elements, -1), test_elements.reshape(-1))
    # the hits counted with ReduceSum, not found with ReduceAny: each ReduceAny call keeps ~1 KB of MindSpore's
    # memory for good (generate's stopping check runs isin every token; docs/long-runs.md)
    hits = ops.gt(_COUNT_LAST(ops.select(matches, _ONE, _ZERO), (-1,)), _ZERO)
    return ops.logical_not(hits) if invert else hits


_COUNT_LAST = ops.ReduceSum(keep_dims=False)
_ONE = Tensor(1, mindspore.int32)
_ZERO = Tensor(0, mindspore.int32)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    if out is not None:
        return write_out(out, searchsorted(sorted_sequence, input, out_int32=out_int32, right=right, side=side),
                         "searchsorted", exact=True, differentiable=False)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    # on the host: MindSpore's kernel has no integer-sequence kernel for some value types and takes no sorter
    boundaries = sorted_sequence.asnumpy()
    if sorter is not None:
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(sorted_sequence.shape)} and got sorter tensor "
                               f"{list(sorter.shape)}")
        boundaries = np.take_along_axis(boundaries, sorter.asnumpy().astype(np.int64), -1)
    scalar = not isinstance(input, Tensor)
    if scalar and boundaries.ndim != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                           f"dimension is 1, but we got boundaries tensor dim({boundaries.ndim}) and input value's "
                           "dim(0) numel(1)")
    values = np.asarray(input) if scalar else input.asnumpy()
    which = "right" if right else "left"
    if boundaries.ndim <= 1:
        positions = np.searchsorted(boundaries.reshape(-1), values, side=which)
    elif boundaries.shape[:-1] != values.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(boundaries.shape)} and input value tensor {list(values.shape)}")
    elif boundaries.shape[-1] == 0 or values.size == 0:
        positions = np.zeros(values.shape, np.int64)
    else:
        rows = zip(boundaries.reshape(-1, boundaries.shape[-1]), values.reshape(-1, values.shape[-1]))
        positions = np.stack([np.searchsorted(row, row_values, side=which) for row, row_values in rows])
    return Tensor(np.ascontiguousarray(positions, dtype=np.int32 if out_int32 else np.int64).reshape(values.shape))


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if out is not None:
        return write_out(out, bucketize(input, boundaries, out_int32=out_int32, right=right), "bucketize",
                         exact=True, differentiable=False)
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)
