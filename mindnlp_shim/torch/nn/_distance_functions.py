"""torch.nn.functional.pairwise_distance and pdist."""
import numpy as np

from ... import torch


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps over the last dimension (of the broadcast shape)."""
    dim = max(x1.dim(), x2.dim()) - 1
    return torch.linalg.vector_norm(x1 - x2 + eps, p, dim, keepdim)


def pdist(input, p=2):
    """Distances between the rows of an (N, M) input, for i < j in row-major order: N (N - 1) / 2 values."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = np.triu_indices(input.shape[0], 1)
    first = input[torch.tensor(rows.astype(np.int64))]
    second = input[torch.tensor(cols.astype(np.int64))]
    return torch.linalg.vector_norm(first - second, p, -1)
