"""torch.mode: the most frequent value along a dim and where it is. Among values equally frequent the smallest
wins, and its index is its last occurrence (torch's CPU answer). The indices are found on the host; the values
are gathered from the input at them, so gradients reach those elements as torch's do."""
import collections

import numpy as np

from ._util import wrap_dim
from ..return_types import return_type

mode_result = return_type("mode", ["values", "indices"])


def _mode_index(row):
    counts = collections.Counter(row.tolist())
    best = max(counts.values())
    value = min(v for v, c in counts.items() if c == best)
    return len(row) - 1 - int(np.flatnonzero(row[::-1] == value)[0])


def mode(input, dim=-1, keepdim=False):
    from .. import tensor, int64

    if input.ndim == 0:
        values, indices = input.clone(), tensor(0, dtype=int64)
    else:
        dim = wrap_dim(dim, input.ndim)
        host = np.moveaxis(input.detach().numpy(), dim, -1)
        flat = host.reshape(-1, host.shape[-1])
        found = np.array([_mode_index(row) for row in flat], dtype=np.int64).reshape(host.shape[:-1])
        indices = tensor(np.expand_dims(found, dim))
        values = input.gather(dim, indices)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
    return mode_result(values, indices)
