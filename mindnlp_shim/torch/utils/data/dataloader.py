"""torch.utils.data.DataLoader: batches from a map-style or iterable dataset, in the main process or in workers.

Arguments, their validation errors and their interplay are torch's (sampler/shuffle/batch_sampler exclusivity,
automatic batching when batch_size is not None, default_collate vs default_convert, persistent workers,
prefetch_factor, in_order). With `num_workers > 0` batches are produced by worker processes started, as in
torch, with multiprocessing's default method: 'fork' on Linux, so the main script's top level runs once and the
dataset needs no pickling (MindSpore's own fork handlers, registered by `mindnlp_shim._fork_safety`, make ops
work in the forked child). Workers started with 'spawn' or 'forkserver' import the main script again: iterating
from a script's unguarded top level is refused with the fix instead of running the script again in each worker.
`pin_memory` has no effect: MindSpore has no pinned host memory to offer for the CPU target.
"""
import itertools
import math
import multiprocessing
import os
import pickle
import queue
import sys
import time
import warnings

from ...._fork_safety import fork_is_safe
from . import _main_guard, _worker
from ._collate import default_collate, default_convert
from ._fetch import make_fetcher
from ._random import draw_seed
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _InfiniteConstantSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

get_worker_info = _worker.get_worker_info

_PROTECTED = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class _DatasetKind:
    Map = 0
    Iterable = 1


class DataLoader:
    """Combines a dataset and a sampler and iterates over batches (torch's signature and semantics)."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None

    # ------------------------------------------------------------------ attributes
    def __setattr__(self, attr, value):
        if self.__initialized and attr in _PROTECTED:
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                valid = multiprocessing.get_all_start_methods()
                if context not in valid:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{valid!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    # ------------------------------------------------------------------ iteration
    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if _main_guard.reimporting_main():
            raise RuntimeError(_REIMPORT_MESSAGE)
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader._dataset_kind == _DatasetKind.Iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._in_order = loader.in_order
        self._persistent_workers = loader.persistent_workers
        self._sampler_iter = iter(self._index_sampler)
        # torch draws the workers' base seed for every iterator, with or without workers, so the global RNG
        # (and with it dropout) advances the same way whatever num_workers is
        self._base_seed = draw_seed(loader.generator)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        if loader.pin_memory:
            from ... import _runtime

            if _runtime.ON_CPU:
                warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                              "memory won't be used.", stacklevel=3)

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable and self._IterableDataset_len_called is not None \
                and self._num_yielded > self._IterableDataset_len_called:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._IterableDataset_len_called} (when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = make_fetcher(self._iterable, self._dataset, self._auto_collation, self._collate_fn,
                                     self._drop_last)

    def _next_data(self):
        index = next(self._sampler_iter)
        return self._fetcher.fetch(index)


_REIMPORT_MESSAGE = (
    "A DataLoader is being iterated while this process imports the main script of its parent: the script "
    "starts training (or loading data) at its top level, and a worker process started with 'spawn' or "
    "'forkserver' imports that script again. Put the script's top-level work under "
    "`if __name__ == \"__main__\":`, or use num_workers=0 (dataloader_num_workers=0 for the Trainer).")


def _start_context(requested):
    """The multiprocessing context for workers: the requested one, else multiprocessing's default as in torch
    ('fork' on Linux), used only where MindSpore's fork handlers are registered (see mindnlp_shim._fork_safety),
    else 'forkserver', whose server process preloads MindSpore."""
    if requested is not None:
        return requested
    context = multiprocessing.get_context()
    if context.get_start_method() == "fork" and not fork_is_safe():
        context = multiprocessing.get_context("forkserver")
    if context.get_start_method() == "forkserver":
        # importing MindSpore starts none of its threads, so forking from the server is safe
        context.set_forkserver_preload(["mindspore"])
    return context


def _refuse_unguarded_main(loader, method):
    """Workers started with `method` ('spawn'/'forkserver') import the main script again: refuse to start them
    from the script's unguarded top level, where each would run the whole script (and this loop) again."""
    found = _main_guard.unguarded_main_line()
    if found is None:
        return
    path, line = found
    raise RuntimeError(
        f"DataLoader(num_workers={loader.num_workers}) starts its workers with {method!r}, which imports the main "
        f"script {path} again in each worker; line {line} of it runs at the script's top level, outside "
        f"`if __name__ == \"__main__\":`, so every worker would run the script again (training included). "
        f"Put the script's top-level work under `if __name__ == \"__main__\":`, or use num_workers=0"
        + (", or the default start method ('fork')" if sys.platform.startswith("linux") else "") + ".")


def _hook_installed():
    import mindnlp_shim

    return mindnlp_shim.is_installed()


def _worker_payload(loader, context):
    """What each worker needs: inherited as is by forked workers, pickled for 'spawn'/'forkserver'."""
    parts = (loader._dataset_kind == _DatasetKind.Iterable, loader.dataset, loader._auto_collation,
             loader.collate_fn, loader.drop_last, loader.worker_init_fn)
    if context.get_start_method() == "fork":
        return parts
    try:
        return pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise RuntimeError(
            f"DataLoader(num_workers={loader.num_workers}) sends the dataset, collate_fn and worker_init_fn to "
            f"worker processes started with {context.get_start_method()!r}, so they must be picklable: {exc}. "
            f"Define them at module level (no lambdas or local classes), use num_workers=0, or the default start "
            f"method ('fork' on Linux), whose workers inherit them.") from exc


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Sends (epoch, idx, index) tasks round-robin to workers, at most prefetch_factor per worker ahead,
    and returns their replies in task order (or arrival order with in_order=False)."""

    def __init__(self, loader):
        super().__init__(loader)
        self._shutdown = True
        context = _start_context(loader.multiprocessing_context)
        self._start_method = context.get_start_method()
        if self._start_method != "fork":
            _refuse_unguarded_main(loader, self._start_method)
        base_seed = self._base_seed
        payload = _worker_payload(loader, context)
        install_hook = _hook_installed()
        self._result_queue = context.Queue()
        self._index_queues = []
        self._workers = []
        self._shutdown = False
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            worker = context.Process(target=_worker.worker_loop,
                                     args=(payload, worker_id, self._num_workers, base_seed, index_queue,
                                           self._result_queue, install_hook, os.getpid()),
                                     daemon=True)
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._epoch = -1
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._epoch += 1
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker = {}  # idx -> worker, for tasks whose reply has not been consumed
        self._early = {}  # idx -> (kind, blob), replies that arrived before their turn
        self._active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for index_queue in self._index_queues:
                index_queue.put(("reset", self._epoch))
        for _ in range(self._prefetch_factor * self._num_workers):
            self._put_task()

    def _put_task(self):
        for _ in range(self._num_workers):
            worker_id = next(self._next_worker)
            if self._active[worker_id]:
                break
        else:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        self._index_queues[worker_id].put(("task", self._epoch, self._send_idx, index))
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1

    def _get_result(self):
        started = time.monotonic()
        while True:
            wait = _worker._POLL_SECONDS
            if self._timeout > 0:
                wait = min(wait, max(0.0, self._timeout - (time.monotonic() - started)))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                pass
            dead = [w.pid for w in self._workers if not w.is_alive()]
            if dead:
                self._shutdown_workers()
                hint = ""
                if self._start_method != "fork":
                    hint = (f"; a worker started with {self._start_method!r} imports the main script again and "
                            f"fails if its top level starts a DataLoader outside `if __name__ == \"__main__\":` "
                            f"(its error, if any, is printed above)")
                raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) exited unexpectedly"
                                   + hint)
            if self._timeout > 0 and time.monotonic() - started >= self._timeout:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self):
        while True:
            if self._in_order and self._rcvd_idx in self._early:
                idx = self._rcvd_idx
                kind, blob = self._early.pop(idx)
            else:
                if not self._task_worker:
                    if not self._persistent_workers:
                        self._shutdown_workers()
                    raise StopIteration
                epoch, idx, kind, blob = self._get_result()
                if epoch != self._epoch:
                    continue  # a reply to a task of an abandoned pass
                if self._in_order and idx != self._rcvd_idx:
                    self._early[idx] = (kind, blob)
                    continue
            if self._in_order:
                self._rcvd_idx += 1
            worker_id = self._task_worker.pop(idx)
            if kind == "exhausted":
                self._active[worker_id] = False
                continue
            self._put_task()
            if kind == "error":
                _worker.unpack(blob).reraise()
            return _worker.unpack(blob)

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        for index_queue in self._index_queues:
            try:
                index_queue.put(None)
            except (OSError, ValueError):
                pass
        for worker in self._workers:
            worker.join(timeout=5.0)
            if worker.is_alive():
                worker.terminate()
                worker.join(timeout=1.0)
        for q in (*self._index_queues, self._result_queue):
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass
