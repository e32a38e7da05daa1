"""Smaller torch.* functions: conv_tbc (a 1-d convolution over time-batch-channel input), embedding_renorm_
(rows an index names rescaled to a maximum norm, in place), histogramdd (NumPy's D-dimensional histogram),
from_file (a binary file's elements as a 1-d tensor), cudnn_is_acceptable (no cuDNN here: False, as torch answers
for a CPU tensor) and the DLPack exchange (to_dlpack / from_dlpack through NumPy's zero-copy DLPack support)."""
import builtins

import numpy as np

from ..return_types import return_type

__all__ = ["conv_tbc", "embedding_renorm_", "histogramdd", "from_file", "cudnn_is_acceptable", "to_dlpack",
           "from_dlpack"]

_histogramdd_result = return_type("histogramdd", ["hist", "bin_edges"])


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def conv_tbc(input, weight, bias, pad=0):
    """input (time, batch, in), weight (kernel, in, out), bias (out,): output (time', batch, out)."""
    F = _torch().nn.functional
    out = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def embedding_renorm_(input, indices, max_norm, norm_type):
    torch = _torch()
    with torch.no_grad():
        rows = torch.unique(indices.reshape(-1))
        norms = torch.linalg.vector_norm(input[rows], norm_type, -1, keepdim=True)
        # torch scales a row whose norm exceeds max_norm by max_norm / (norm + 1e-7)
        scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
        input[rows] = input[rows] * scale
    return input


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    torch = _torch()
    points = input.detach().double().numpy().reshape(-1, input.shape[-1])
    dims = points.shape[1]
    if isinstance(bins, int):
        bins = [bins] * dims
    elif isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], torch.Tensor):
        bins = [b.double().numpy() for b in bins]
    ranges = None if range is None else [tuple(range[2 * d:2 * d + 2]) for d in builtins.range(dims)]
    weights = None if weight is None else weight.detach().double().numpy().reshape(-1)
    hist, edges = np.histogramdd(points, bins=bins, range=ranges, weights=weights, density=density)
    dtype = input.dtype
    return _histogramdd_result(torch.tensor(hist, dtype=dtype), [torch.tensor(e, dtype=dtype) for e in edges])



def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False):
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    np_dtype = torch.empty(0, dtype=dtype).numpy().dtype
    data = np.fromfile(filename, dtype=np_dtype, count=size)
    if data.size < size:
        raise RuntimeError(f"unexpected EOF, expected {size} elements but got {data.size}")
    return torch.tensor(data)


def cudnn_is_acceptable(tensor):
    return False


class _Capsule:
    """What NumPy's from_dlpack needs around a bare DLPack capsule (a CPU one)."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def to_dlpack(tensor):
    return np.ascontiguousarray(tensor.numpy()).__dlpack__()


def from_dlpack(ext_tensor):
    import mindspore

    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    return mindspore.Tensor.from_numpy(np.from_dlpack(source))
