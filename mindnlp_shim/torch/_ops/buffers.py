"""Tensors over raw memory: `torch.frombuffer`, and `Tensor.to_dense` (every shim tensor is strided)."""
import numpy as np
import mindspore
from mindspore import ops

from .. import _dtype, _float8
from ... import _mindspore as _ms

Tensor = mindspore.Tensor


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor of `count` elements of `dtype` read from `buffer` (any object with the buffer protocol),
    starting `offset` bytes in; count=-1 reads to the end.

    A writable buffer is shared, as in torch (writes through the tensor reach the buffer and back). A read-only
    one (bytes) is copied: torch shares it too but warns that writing through the tensor then corrupts an
    immutable object; a copy makes such writes harmless, and reading gives the same values."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    float8 = dtype in _float8.FLOAT8  # (read as its bytes, then viewed as float8: NumPy has no float8 type)
    element = 1 if float8 else _dtype.to_numpy_dtype(dtype).itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % element:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({element})")
        count = (length - offset) // element
    elif count * element > length - offset:
        raise ValueError(f"requested buffer length ({count} * {element} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    array = np.frombuffer(view.cast("B"), dtype=np.uint8 if float8 else _dtype.to_numpy_dtype(dtype), count=count,
                          offset=offset)
    if not array.flags.writeable or not array.flags.aligned:
        array = array.copy()  # (MindSpore reads its data pointer as aligned)
    tensor = Tensor.from_numpy(array)
    if float8:
        _float8._require_views()
        tensor = _ms.view_dtype(tensor, dtype)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def to_dense(self, dtype=None, *, masked_grad=True):
    """`self` itself (shim tensors are all strided), or a differentiable cast to `dtype` if it differs."""
    if dtype is None or dtype == self.dtype:
        return self
    return ops.cast(self, dtype)
