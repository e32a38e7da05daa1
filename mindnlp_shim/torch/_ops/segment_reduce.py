"""torch.segment_reduce: consecutive segments of `data` along axis 0 (given by `lengths` or `offsets`) each
reduced to one row: sum, mean, max, min or prod. An empty segment gives `initial`, else the reduction's identity
(0, 1, -inf, +inf; NaN for mean), as torch. `initial` also enters every non-empty segment (not for mean). One
reduction per segment, stacked, so gradients are the reductions' own. Only 1-d lengths/offsets (axis 0)."""

__all__ = ["segment_reduce"]

_EMPTY = {"sum": 0.0, "mean": float("nan"), "max": float("-inf"), "min": float("inf"), "prod": 1.0}


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def _reduce(torch, piece, reduce):
    if reduce == "sum":
        return piece.sum(0)
    if reduce == "mean":
        return piece.mean(0)
    if reduce == "prod":
        return piece.prod(0)
    return piece.amax(0) if reduce == "max" else piece.amin(0)


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    torch = _torch()
    if reduce not in _EMPTY:
        raise RuntimeError(f"segment_reduce(): reduction {reduce!r} is not supported (sum, mean, max, min, prod)")
    if indices is not None:
        raise NotImplementedError("torch.segment_reduce(indices=...) is not supported by mindnlp-shim")
    if (lengths is None) == (offsets is None):
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    bounds = lengths if lengths is not None else offsets
    if axis != bounds.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if bounds.ndim != 1:
        raise NotImplementedError("torch.segment_reduce with batched lengths/offsets is not supported by "
                                  "mindnlp-shim (1-d lengths or offsets, axis 0)")
    if initial is not None and reduce == "mean":
        raise NotImplementedError("torch.segment_reduce(reduce='mean', initial=...) is not supported by mindnlp-shim")
    if lengths is not None:
        sizes = [int(n) for n in lengths.tolist()]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
    else:
        edges = [int(n) for n in offsets.tolist()]
        starts, sizes = edges[:-1], [b - a for a, b in zip(edges, edges[1:])]
    if not unsafe and (any(n < 0 for n in sizes) or sum(sizes) != data.shape[0]):
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to data.size(axis).")
    rows = []
    for start, size in zip(starts, sizes):
        if size == 0:
            fill = _EMPTY[reduce] if initial is None else initial
            rows.append(torch.full(tuple(data.shape[1:]), fill, dtype=data.dtype))
            continue
        row = _reduce(torch, data.narrow(0, start, size), reduce)
        if initial is not None:
            row = _reduce(torch, torch.stack([row, torch.full_like(row, initial)]), reduce)
        rows.append(row)
    return torch.stack(rows)
