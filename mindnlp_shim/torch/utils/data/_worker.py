"""DataLoader worker processes: the loop each worker runs, `get_worker_info()`, and how batches travel back.

A forked worker (the default on Linux, as in torch) inherits the dataset, collate_fn and worker_init_fn and
the import hook; MindSpore's fork handlers (mindnlp_shim._fork_safety) rebuild its thread pools, without
which its first larger op would hang. A worker started with 'forkserver' or 'spawn' receives them pickled,
installs the `torch` import hook first when the parent had it (so their modules' `import torch` finds the
shim), then unpickles them.

Batches come back pickled with their tensors reduced to NumPy arrays; the main process wraps those arrays
as tensors without another copy.
"""
import multiprocessing
import os
import pickle
import queue
import random
import signal
import sys
import traceback

import numpy as np
import mindspore

from ._fetch import make_fetcher

Tensor = mindspore.Tensor

_POLL_SECONDS = 1.0
_worker_info = None


class WorkerInfo:
    """What a worker process knows about itself: `id`, `num_workers`, `seed`, `dataset` (its own copy)."""

    __initialized = False

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, value):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, value)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset). In the main process: None."""
    return _worker_info


# ---------------------------------------------------------------------- errors crossing the process boundary
class _KeyErrorMessage(str):
    """KeyError shows repr(message); this keeps the worker's traceback readable."""

    def __repr__(self):
        return self


class RemoteError:
    """An exception raised in a worker, re-raised in the main process with the worker's traceback."""

    def __init__(self, exc_type, message):
        self.exc_type = exc_type
        self.message = message

    @classmethod
    def capture(cls, where):
        exc_type, exc, tb = sys.exc_info()
        message = f"Caught {exc_type.__name__} {where}.\nOriginal " + "".join(traceback.format_exception(exc_type, exc, tb))
        try:
            pickle.dumps(exc_type)
        except Exception:
            exc_type = RuntimeError
        return cls(exc_type, message)

    def reraise(self):
        message = _KeyErrorMessage(self.message) if self.exc_type is KeyError else self.message
        try:
            exception = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise exception


# ---------------------------------------------------------------------- batch transport
def _rebuild_tensor(array, dtype_name):
    array = np.require(array, requirements=["C", "W"])
    tensor = Tensor.from_numpy(array)
    if dtype_name == "bfloat16":
        tensor = tensor.astype(mindspore.bfloat16)
    return tensor


class _TransportPickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if obj.dtype == mindspore.bfloat16:  # NumPy has no portable bfloat16 for pickling
                return _rebuild_tensor, (obj.astype(mindspore.float32).asnumpy(), "bfloat16")
            return _rebuild_tensor, (obj.asnumpy(), "")
        return NotImplemented


def pack(obj):
    import io

    buffer = io.BytesIO()
    _TransportPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def unpack(blob):
    return pickle.loads(blob)


# ---------------------------------------------------------------------- the worker loop
def _seed_worker(seed, base_seed, worker_id):
    random.seed(seed)
    from ... import manual_seed

    manual_seed(seed)
    np.random.seed(np.random.SeedSequence([base_seed & 0xFFFFFFFF, worker_id]).generate_state(4))


def _parent_alive(parent_pid):
    """Whether the process that started this worker still runs. A worker started through the forkserver is
    the server's child, so its getppid() is never the DataLoader's process: ask multiprocessing's record of
    the parent (a pipe that closes when the parent exits) first."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        return parent.is_alive()
    return os.getppid() == parent_pid


def worker_loop(payload, worker_id, num_workers, base_seed, index_queue, result_queue, install_hook, parent_pid):
    """Serve ("task", epoch, idx, index) requests until told to stop (None) or the parent is gone.

    Every task gets exactly one reply (epoch, idx, kind, blob): kind "data" (a packed batch), "error" (a
    packed RemoteError) or "exhausted" (an iterable dataset's copy in this worker has no more samples).
    ("reset", epoch) starts a new pass over an iterable dataset (persistent workers).
    """
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    result_queue.cancel_join_thread()  # never block exit on unread results
    if install_hook:
        import mindnlp_shim

        mindnlp_shim.install()
    seed = base_seed + worker_id
    start_error = None
    fetcher = None
    try:
        _seed_worker(seed, base_seed, worker_id)
        parts = pickle.loads(payload) if isinstance(payload, bytes) else payload  # bytes unless forked
        iterable, dataset, auto_collation, collate_fn, drop_last, worker_init_fn = parts
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        start_error = RemoteError.capture(f"in DataLoader worker process {worker_id} while starting")
    exhausted = False
    while True:
        try:
            message = index_queue.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            if not _parent_alive(parent_pid):
                break
            continue
        if message is None:
            break
        if message[0] == "reset":
            if start_error is None:
                try:
                    fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                except Exception:
                    start_error = RemoteError.capture(f"in DataLoader worker process {worker_id}")
            exhausted = False
            continue
        _, epoch, idx, index = message
        if start_error is not None:
            result_queue.put((epoch, idx, "error", pack(start_error)))
            continue
        if exhausted:
            result_queue.put((epoch, idx, "exhausted", b""))
            continue
        try:
            blob = pack(fetcher.fetch(index))
            kind = "data"
        except StopIteration:
            exhausted = iterable
            kind, blob = ("exhausted", b"") if iterable else ("error", pack(RemoteError(
                RuntimeError, f"DataLoader worker process {worker_id}: the dataset raised StopIteration")))
        except Exception:
            kind, blob = "error", pack(RemoteError.capture(f"in DataLoader worker process {worker_id}"))
        result_queue.put((epoch, idx, kind, blob))
