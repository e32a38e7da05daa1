"""torch.hash_tensor (also Tensor.hash_tensor): the elements upcast to 64 bits (floats to float64, integers and
bools to int64), their bit patterns read as uint64 and reduced with xor, over all elements or the given dims.
Computed on the host with NumPy (no gradient: the result is an integer)."""
import numpy as np

from ._util import no_kernel, Tensor, wrap_dim

__all__ = ["hash_tensor"]


def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input.is_complex():
        raise no_kernel("xor_sum_cpu", input.dtype)
    array = np.asarray(input.detach().numpy())
    wide = np.float64 if input.is_floating_point() else np.int64
    bits = np.ascontiguousarray(array.astype(wide)).view(np.uint64).reshape(array.shape)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        if bits.size == 0:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        axes = tuple(range(bits.ndim))
    else:
        axes = tuple(sorted({wrap_dim(d, bits.ndim) for d in ((dim,) if isinstance(dim, int) else dim)}))
        for axis in axes:
            if bits.ndim and bits.shape[axis] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {axis} to have non-zero size.")
    out = np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim) if bits.ndim else bits
    return Tensor(np.asarray(out, dtype=np.uint64))
