"""NumPy working arrays for one host-side optimizer update.

`WorkBuffers` lends scratch arrays (one growing buffer per dtype and thread, reused for every parameter, so a
step allocates no temporaries the size of the model) and runs an elementwise update over a parameter in
slices, on `torch.get_num_threads()` threads. `Working` gives the arrays the update reads and writes in
the compute dtype: the zero-copy views themselves for float32/float64 tensors, float32 copies for
float16/bfloat16 ones, written back in the tensor's own dtype by `finish()`.
"""
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _storage


# Updates walk a parameter in slices of this many elements: the dozen passes of an Adam update then find the
# slice's arrays in the cache, and the scratch space is this size (512 KB in float32), not the largest
# parameter's. AdamW over MiniLM's 22.7 M parameters: 105-108 ms in slices of 2^17, 164-166 ms in slices of
# 2^20 (one thread); 66-68 ms on two threads (2 cores, quiet machine).
SLICE_ELEMENTS = 1 << 17


class _Helpers:
    """Threads that run slices beside the calling thread (NumPy's ufuncs release the GIL on large arrays).
    Made per process: a forked child (a DataLoader worker) has none of its parent's threads."""

    def __init__(self):
        self._pid = None
        self._pool = None
        self._size = 0

    def pool(self, size):
        if self._pid != os.getpid() or self._size < size:
            if self._pid == os.getpid():
                self._pool.shutdown(wait=False)  # (a smaller pool of this process: its threads end)
            self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="mindnlp-optim")
            self._pid, self._size = os.getpid(), size
        return self._pool


_helpers = _Helpers()


def _thread_count():
    from .._functions import get_num_threads

    return get_num_threads()


class WorkBuffers:
    def __init__(self):
        self._buffers = {}

    def take(self, shape, dtype, lane=0):
        """A scratch array of `shape`/`dtype`; valid until the next `take` of the same dtype and `lane` (each
        thread of `over_slices` takes from its own lane)."""
        dtype = np.dtype(dtype)
        size = int(np.prod(shape, dtype=np.int64))
        buffer = self._buffers.get((dtype, lane))
        if buffer is None or buffer.size < size:
            buffer = np.empty(max(size, 1), dtype=dtype)
            self._buffers[(dtype, lane)] = buffer
        return buffer[:size].reshape(shape)

    @staticmethod
    def slices(size):
        """Consecutive slices covering `size` flat elements, each at most SLICE_ELEMENTS long."""
        step = SLICE_ELEMENTS
        return [slice(start, min(start + step, size)) for start in range(0, max(size, 1), step)]

    def over_slices(self, size, dtype, update):
        """Call `update(part, tmp)` for each slice `part` of `size` flat elements, `tmp` a scratch array of the
        slice's length: on the calling thread and, for parameters of several slices, on helper threads as
        well (every slice once; `update` must touch only its slice's elements)."""
        parts = self.slices(size)
        lanes = min(_thread_count(), len(parts))

        def run(lane):
            for part in parts[lane::lanes]:
                update(part, self.take((part.stop - part.start,), dtype, lane))

        if lanes <= 1:
            return run(0)
        pending = [_helpers.pool(lanes - 1).submit(run, lane) for lane in range(1, lanes)]
        try:
            run(0)
        finally:
            for done in pending:
                done.result()  # (waits for each helper, and raises what it raised)


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
        array = _storage.host_view(tensor)
        return array if array.dtype == self.dtype else array.astype(self.dtype)

    def finish(self):
        for tensor, array, work, is_copy in self._opened:
            if work is not array:
                array[...] = work.astype(array.dtype)
            if is_copy:  # a zero-copy view needs no write-back (and the common case skips the call)
                _storage.release(tensor, array, is_copy)
        _storage.count_writes([opened[0] for opened in self._opened])
        self._opened = []
