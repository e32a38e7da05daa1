"""The three primitives of `_transport` (all-gather, broadcast, summing all-reduce) carried by a torch Store:
the transport of a process group formed on a FileStore (`init_method="file://..."`), an explicit
`init_process_group(store=...)`, or a TCPStore in processes forked off a MindSpore process (where MindSpore's
cluster does not form).

Every collective takes the group's next sequence number; each rank writes its array (dtype and shape in a header,
then the bytes) under "<prefix><seq>/<rank>", reads the others' and counts itself in "<prefix><seq>/read"; the
rank that brings that count to the group's size deletes the collective's keys, so the store only ever holds the
collectives in flight. Every rank calls the same collectives in the same order (as torch requires), so sequence
numbers agree. Any dtype NumPy holds travels as it is; sums are NumPy's, in rank order.
"""
import datetime

import numpy as np

from ._stores import DistBackendError


def _encode(array):
    array = np.asarray(array, order="C")  # (not ascontiguousarray, which makes a 0-d array 1-d)
    shape = ",".join(str(n) for n in array.shape)
    return f"{array.dtype.str}\n{shape}\n".encode() + array.tobytes()


def _decode(data):
    dtype, shape, body = data.split(b"\n", 2)
    shape = tuple(int(n) for n in shape.decode().split(",") if n)
    return np.frombuffer(body, dtype=np.dtype(dtype.decode())).reshape(shape)


class StoreTransport:
    gathers_on_subgroups = True

    def __init__(self, store, rank, size, prefix, timeout):
        self.store, self.rank, self.size, self.prefix, self.timeout = store, rank, size, prefix, timeout
        self._sequence = 0

    def subgroup(self, name, rank, size, timeout=None):
        """The transport of a subgroup: the same store, its own key space and sequence numbers."""
        return StoreTransport(self.store, rank, size, f"{self.prefix}{name}/", timeout or self.timeout)

    def join(self, timeout):
        """Wait until every rank of the group has joined (init_process_group's rendezvous); two processes that
        claim the same rank are an error."""
        if self.store.add(f"{self.prefix}join/{self.rank}", 1) != 1:
            raise RuntimeError(f"torch.distributed.init_process_group: rank {self.rank} joined the store twice "
                               "(two processes were given the same rank, or the store holds an earlier job's keys)")
        keys = [f"{self.prefix}join/{r}" for r in range(self.size)]
        self._wait(keys, timeout, "init_process_group")

    # ------------------------------------------------------------------ the three primitives
    def all_gather(self, array):
        """Every rank's `array` (all of the same shape and dtype), stacked: shape (size, *array.shape)."""
        array = np.asarray(array)
        base = self._next()
        keys = [f"{base}{r}" for r in range(self.size)]
        self.store.set(keys[self.rank], _encode(array))
        others = [k for r, k in enumerate(keys) if r != self.rank]
        self._wait(others, self.timeout, "collective", base)
        received = iter(self.store.multi_get(others))
        parts = [array if r == self.rank else self._checked(_decode(next(received)), array, r)
                 for r in range(self.size)]
        self._done(base, keys)
        return np.stack(parts) if parts else np.empty((0,) + array.shape, array.dtype)

    def broadcast(self, array, src):
        """Rank `src`'s `array` (every rank passes an array of the same shape and dtype)."""
        array = np.asarray(array)
        base = self._next()
        key = f"{base}{src}"
        if self.rank == src:
            self.store.set(key, _encode(array))
            result = array.copy()
        else:
            self._wait([key], self.timeout, "collective", base)
            result = self._checked(_decode(self.store.get(key)), array, src).copy()
        self._done(base, [key])
        return result

    def sums_natively(self, dtype):
        return False  # (a sum is an all-gather and NumPy's sum here, which the collectives compose themselves)

    def all_reduce_sum(self, array):
        array = np.asarray(array)
        return np.add.reduce(self.all_gather(array), axis=0, dtype=array.dtype)

    # ------------------------------------------------------------------ keys
    def _next(self):
        self._sequence += 1
        return f"{self.prefix}{self._sequence}/"

    def _done(self, base, keys):
        if self.store.add(f"{base}read", 1) == self.size:
            for key in keys + [f"{base}read"]:
                self.store.delete_key(key)

    def _checked(self, received, mine, rank):
        if received.shape != mine.shape or received.dtype != mine.dtype:
            raise RuntimeError(f"torch.distributed: rank {rank} sent a tensor of shape {tuple(received.shape)} and "
                               f"dtype {received.dtype} where this rank (rank {self.rank}) has shape "
                               f"{tuple(mine.shape)} and dtype {mine.dtype}: every rank must pass the same")
        return received

    def _wait(self, keys, timeout, what, base=None):
        try:
            self.store.wait(keys, timeout)
        except RuntimeError as exc:  # (DistStoreError, or the plain RuntimeError of a FileStore)
            missing = [k.rsplit("/", 1)[1] for k in keys if not self.store.check([k])]
            step = f" (collective #{base[len(self.prefix):-1]} of this group)" if base else ""
            seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout
            raise DistBackendError(
                f"torch.distributed {what}{step} timed out after {seconds:g} s waiting for ranks "
                f"{', '.join(missing)} through {type(self.store).__name__}; the timeout is init_process_group's "
                f"`timeout` ({exc})") from None
