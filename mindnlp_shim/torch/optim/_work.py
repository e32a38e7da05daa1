"""NumPy working arrays for one host-side optimizer update.

`WorkBuffers` lends scratch arrays (one growing buffer per dtype, reused for every parameter, so a step
allocates no temporaries the size of the model). `Working` gives the arrays the update reads and writes in
the compute dtype: the zero-copy views themselves for float32/float64 tensors, float32 copies for
float16/bfloat16 ones, written back in the tensor's own dtype by `finish()`.
"""
import numpy as np

from . import _storage


# Updates that walk a parameter in slices of this many elements need scratch space of this size only
# (4 MB in float32) instead of the largest parameter's.
SLICE_ELEMENTS = 1 << 20


class WorkBuffers:
    def __init__(self):
        self._buffers = {}

    def take(self, shape, dtype):
        """A scratch array of `shape`/`dtype`; valid until the next `take` of the same dtype."""
        dtype = np.dtype(dtype)
        size = int(np.prod(shape, dtype=np.int64))
        buffer = self._buffers.get(dtype)
        if buffer is None or buffer.size < size:
            buffer = np.empty(max(size, 1), dtype=dtype)
            self._buffers[dtype] = buffer
        return buffer[:size].reshape(shape)

    @staticmethod
    def slices(size):
        """Consecutive slices covering `size` flat elements, each at most SLICE_ELEMENTS long."""
        step = SLICE_ELEMENTS
        return [slice(start, min(start + step, size)) for start in range(0, max(size, 1), step)]


class Working:
    """The in-place update of a set of tensors, in a common compute dtype."""

    def __init__(self):
        self._opened = []
        self.dtype = None

    def open(self, tensor):
        """A writable array over `tensor` in the compute dtype (set by the first tensor opened)."""
        array, is_copy = _storage.host_array(tensor)
        if self.dtype is None:
            self.dtype = _storage.compute_dtype(array)
        if array.dtype == self.dtype:
            self._opened.append((tensor, array, array, is_copy))
            return array
        work = array.astype(self.dtype)
        self._opened.append((tensor, array, work, is_copy))
        return work

    def read(self, tensor):
        """`tensor`'s values in the compute dtype, read-only use (no write-back)."""
        array = tensor.asnumpy()
        return array if array.dtype == self.dtype else array.astype(self.dtype)

    def finish(self):
        for tensor, array, work, is_copy in self._opened:
            if work is not array:
                array[...] = work.astype(array.dtype)
            if is_copy:  # a zero-copy view needs no write-back (and the common case skips the call)
                _storage.release(tensor, array, is_copy)
        self._opened = []
