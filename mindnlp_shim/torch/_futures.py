"""torch.Future, torch.fork and torch.wait outside TorchScript. Eager torch runs a forked function at once
(its error raised by fork) and hands back a completed Future; so does this. A Future holds a result or an
exception; then() chains a callback that receives the Future and whose return value completes a new one;
add_done_callback() runs a callback once the Future completes (at once if it already has)."""
import threading

__all__ = ["Future", "fork", "wait"]


class Future:
    def __init__(self, devices=()):
        self._done = threading.Event()
        self._result = None
        self._exception = None
        self._callbacks = []
        self._lock = threading.Lock()

    def done(self):
        return self._done.is_set()

    def wait(self):
        self._done.wait()
        if self._exception is not None:
            raise self._exception
        return self._result

    def value(self):
        if not self.done():
            raise RuntimeError("Future.value() called before the Future completed")
        return self.wait()

    def _complete(self, result=None, exception=None):
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Future can only be marked completed once")
            self._result, self._exception = result, exception
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def set_result(self, result):
        self._complete(result=result)

    def set_exception(self, result):
        if not isinstance(result, BaseException):
            raise TypeError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(exception=result)

    def add_done_callback(self, callback):
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        chained = Future()

        def run(done):
            try:
                chained.set_result(callback(done))
            except Exception as exc:  # the callback's error completes the chained Future
                chained.set_exception(exc)

        self.add_done_callback(run)
        return chained


def fork(func, *args, **kwargs):
    # (an error of func is raised here, as eager torch raises it from fork)
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future):
    return future.wait()
