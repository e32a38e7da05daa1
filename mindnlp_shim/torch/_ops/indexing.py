"""Gather/scatter, index_select, masked selection, nonzero."""
import mindspore
from mindspore import mint, ops

from ._util import Tensor, wrap_dim


def _long(index):
    return index if index.dtype in (mindspore.int64, mindspore.int32) else index.astype(mindspore.int64)


def index_select(input, dim, index, *, out=None):
    return ops.index_select(input, wrap_dim(dim, input.ndim), _long(index).reshape(-1))


def gather(input, dim, index, *, sparse_grad=False, out=None):
    return ops.gather_elements(input, wrap_dim(dim, input.ndim), _long(index))


def take_along_dim(input, indices, dim=None):
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices.ndim != input.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    dim = wrap_dim(dim, input.ndim)
    # unlike gather, torch broadcasts input and indices against each other in every dimension but `dim`
    others = [1 if i == dim else max(a, b) for i, (a, b) in enumerate(zip(input.shape, indices.shape))]
    for i, (a, b) in enumerate(zip(input.shape, indices.shape)):
        if i != dim and a != b and 1 not in (a, b):
            raise RuntimeError(f"torch.take_along_dim(): shape mismatch in dimension {i}: {a} and {b}")

    def expanded(t):
        shape = tuple(t.shape[i] if i == dim else n for i, n in enumerate(others))
        return t if tuple(t.shape) == shape else ops.broadcast_to(t, shape)

    return gather(expanded(input), dim, expanded(indices))


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    if src is None:
        src = value
    if not isinstance(src, Tensor):
        src = ops.fill(input.dtype, tuple(index.shape), src)
    if reduce is not None:
        if reduce == "add":
            return scatter_add(input, dim, index, src)
        raise NotImplementedError(f"torch.scatter(reduce='{reduce}') is not supported on MindSpore yet")
    return mint.scatter(input, wrap_dim(dim, input.ndim), _long(index), src)


def scatter_add(input, dim, index, src):
    # MindSpore's CPU backend lacks ScatterAddExt: add a one-hot accumulation built from tensor_scatter_elements
    return ops.tensor_scatter_elements(input, _long(index), src.astype(input.dtype), wrap_dim(dim, input.ndim), "add")


def index_add(input, dim, index, source, *, alpha=1):
    dim = wrap_dim(dim, input.ndim)
    if alpha != 1:
        source = ops.mul(source, alpha)
    shape = [1] * source.ndim
    shape[dim] = -1
    idx = ops.broadcast_to(_long(index).reshape(shape), source.shape)
    return scatter_add(input, dim, idx, source)


def index_fill(input, dim, index, value):
    dim = wrap_dim(dim, input.ndim)
    mask_shape = [1] * input.ndim
    mask_shape[dim] = input.shape[dim]
    mask = ops.zeros(input.shape[dim], mindspore.bool_)
    mask = ops.tensor_scatter_elements(mask.astype(mindspore.int32), _long(index).reshape(-1),
                                       ops.ones(index.numel(), mindspore.int32), 0).astype(mindspore.bool_)
    return ops.masked_fill(input, mask.reshape(mask_shape), value)


def masked_select(input, mask):
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


def nonzero(input, *, as_tuple=False):
    idx = ops.nonzero(input).astype(mindspore.int64)
    if as_tuple:
        if input.ndim == 0:
            return (ops.zeros(int(bool(input)), mindspore.int64),)
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
    hits = ops.any(ops.equal(ops.expand_dims(elements, -1), test_elements.reshape(-1)), -1)
    return ops.logical_not(hits) if invert else hits


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    right = right or side == "right"
    out = ops.searchsorted(sorted_sequence, input, right=right)
    return out.astype(mindspore.int32 if out_int32 else mindspore.int64)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)
