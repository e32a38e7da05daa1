"""torch.index_reduce: source's slices reduced into a copy of input at the positions `index` names along `dim`
(prod, mean, amax, amin; with or without input's own values). It is scatter_reduce with the 1-D index spread
over source's shape, so values and gradients follow scatter_reduce's rules."""
from ._util import wrap_dim

_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    from .. import scatter_reduce

    if reduce not in _REDUCES:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    if index.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim}")
    dim = wrap_dim(dim, max(input.ndim, 1))
    if index.shape[0] != (source.shape[dim] if source.ndim else 1):
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.shape[0]}) should be equal to "
                           f"source.size(dim): ({source.shape[dim] if source.ndim else 1}), for dim: {dim}")
    if source.ndim and [n for d, n in enumerate(source.shape) if d != dim] != \
            [n for d, n in enumerate(input.shape) if d != dim]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    spread = [1] * source.ndim
    spread[dim] = -1
    positions = index.reshape(spread).expand(tuple(source.shape))
    result = scatter_reduce(input, dim, positions, source, reduce, include_self=include_self)
    if out is not None:
        from ._util import write_out

        return write_out(out, result, "index_reduce", exact=True)
    return result
