"""torch.nn.functional.embedding_bag: sums, means or maxima of embedding rows over bags of indices.

Bags are the rows of a 2-D input, or the slices of a 1-D input that `offsets` starts; the bag of each index is
worked out on the host (indices take no gradient). Rows are looked up with F.embedding; sum and mean add them
into their bag (index_add, scaled by per_sample_weights in sum mode), max reads each bag's rows from a padded
table and keeps the largest (its gradient goes to that row). Empty bags give zeros; `padding_idx` entries are
left out of the bag (and of a mean's count)."""
import numpy as np

from ... import torch


def _bags(input, offsets, include_last_offset):
    """(flat indices, bag of each index, number of bags) as host arrays."""
    indices = input.numpy()
    if indices.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences.")
        bags, length = indices.shape
        return indices.reshape(-1), np.repeat(np.arange(bags), length), bags
    if indices.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {indices.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    starts = offsets.numpy().astype(np.int64)
    if starts.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if starts.size and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    if starts.size and starts[-1] > indices.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length ({indices.size}), but got offsets[-1] "
                           f"of {starts[-1]}")
    bags = starts.size - 1 if include_last_offset else starts.size
    bounds = np.append(starts[:bags], indices.size) if not include_last_offset else starts
    bag_of = np.zeros(indices.size, np.int64)
    for bag in range(bags):
        bag_of[bounds[bag]:bounds[bag + 1]] = bag
    if include_last_offset:
        indices = indices[:bounds[-1]]
        bag_of = bag_of[:bounds[-1]]
    return indices, bag_of, bags


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    F = torch.nn.functional
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("torch.nn.functional.embedding_bag(max_norm/scale_grad_by_freq/sparse) is not "
                                  "supported on MindSpore by mindnlp-shim")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      f"on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({tuple(input.shape)})")
    indices, bag_of, bags = _bags(input, offsets, include_last_offset)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    keep = np.ones(indices.shape, bool) if padding_idx is None else indices != padding_idx
    indices, bag_of = indices[keep], bag_of[keep]
    rows = F.embedding(torch.tensor(indices.astype(np.int64)), weight)
    dim = weight.shape[1]
    if mode == "max":
        counts = np.bincount(bag_of, minlength=bags)
        width = max(int(counts.max()) if counts.size else 0, 1)
        table = np.full((bags, width), indices.size, np.int64)  # index `size`: a row of -inf
        rank = np.arange(indices.size) - np.repeat(np.cumsum(counts) - counts, counts)
        table[bag_of, rank] = np.arange(indices.size)
        padded = torch.cat([rows, torch.full((1, dim), float("-inf"), dtype=weight.dtype)])
        out = padded[torch.tensor(table)].max(1)[0]
        return torch.where(torch.tensor(counts == 0).unsqueeze(1), torch.zeros_like(out), out)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1)[torch.tensor(np.flatnonzero(keep))].unsqueeze(1)
    out = torch.zeros((bags, dim), dtype=weight.dtype).index_add(0, torch.tensor(bag_of), rows)
    if mode == "mean":
        counts = np.bincount(bag_of, minlength=bags).astype(np.float64)
        out = out / torch.tensor(np.maximum(counts, 1.0), dtype=weight.dtype).unsqueeze(1)
    return out
