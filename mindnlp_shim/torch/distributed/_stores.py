"""torch.distributed's key-value stores: `Store`, the base class, `HashStore`, the in-process one, and
`PrefixStore`, a namespace inside another store. The stores shared between processes are `FileStore`
(`_file_store.py`) and `TCPStore` (`_tcp_store.py`); a process group can run its collectives through any of them
(`_store_transport.py`).

A HashStore keeps bytes under string keys in this process, for threads of it and for a one-process group
(`init_process_group(store=HashStore(), rank=0, world_size=1)`, as peft's tests form one).
"""
import datetime
import re
import threading
import time

_LEADING_INTEGER = re.compile(rb"\s*[+-]?\d+")


class DistError(RuntimeError):
    """torch.distributed's base error."""


class DistStoreError(DistError):
    """A store operation failed, e.g. waiting for a key timed out."""


class DistNetworkError(DistError):
    """A store could not reach its server (connection refused, closed or timed out)."""


class DistBackendError(DistError):
    """A collective failed in the process group's transport (e.g. a rank did not arrive in time)."""


class Store:
    """The base class of torch's stores (for isinstance checks and subclasses): the timeout their waits use."""

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = timeout

    def queue_push(self, key, value):
        raise NotImplementedError(f"torch.distributed.{type(self).__name__}.queue_push is not supported on "
                                  "MindSpore: the stores here keep keys, not queues")

    def queue_pop(self, key, block=True):
        raise NotImplementedError(f"torch.distributed.{type(self).__name__}.queue_pop is not supported on "
                                  "MindSpore: the stores here keep keys, not queues")

    def queue_len(self, key):
        raise NotImplementedError(f"torch.distributed.{type(self).__name__}.queue_len is not supported on "
                                  "MindSpore: the stores here keep keys, not queues")

    def multi_get(self, keys):
        return [self.get(key) for key in keys]

    def multi_set(self, keys, values):
        for key, value in zip(keys, values):
            self.set(key, value)


def as_timedelta(timeout):
    if isinstance(timeout, datetime.timedelta):
        return timeout
    return datetime.timedelta(seconds=float(timeout))


def milliseconds(timeout):
    return int(round(timeout.total_seconds() * 1000))


def _as_bytes(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return bytes(value)
    raise TypeError(f"a store value must be str or bytes, not {type(value).__name__}")


class HashStore(Store):
    """`HashStore()`: set/get/add/compare_set/append/wait/check/delete_key/num_keys on this process's memory;
    `get` and `wait` block until the keys exist or the store's timeout (5 minutes unless set) passes."""

    def __init__(self):
        self._values = {}
        self._changed = threading.Condition()
        self._timeout = datetime.timedelta(minutes=5)

    def set(self, key, value):
        with self._changed:
            self._values[key] = _as_bytes(value)
            self._changed.notify_all()

    def get(self, key):
        self.wait([key])
        with self._changed:
            return self._values[key]

    def add(self, key, amount):
        with self._changed:
            current = self._values.get(key) or b"0"  # (an empty value counts from 0, as torch's)
            leading = _LEADING_INTEGER.match(current)  # (torch reads the integer the value starts with)
            if leading is None:
                raise ValueError(f"stoll: the value of key '{key}' does not start with an integer")
            number = int(leading.group()) + int(amount)
            self._values[key] = str(number).encode()
            self._changed.notify_all()
            return number

    def append(self, key, value):
        with self._changed:
            self._values[key] = self._values.get(key, b"") + _as_bytes(value)
            self._changed.notify_all()

    def compare_set(self, key, expected_value, desired_value):
        """Set `desired_value` where the key holds `expected_value` (or is missing and `expected_value` is empty);
        returns the value the key holds afterwards, or `expected_value` where a missing key stays missing."""
        expected, desired = _as_bytes(expected_value), _as_bytes(desired_value)
        with self._changed:
            if key not in self._values:
                if expected:
                    return expected
                self._values[key] = desired
            elif self._values[key] == expected:
                self._values[key] = desired
            self._changed.notify_all()
            return self._values[key]

    def check(self, keys):
        with self._changed:
            return all(key in self._values for key in keys)

    def wait(self, keys, timeout=None):
        limit = (self._timeout if timeout is None else timeout).total_seconds()
        deadline = time.monotonic() + limit
        with self._changed:
            while not all(key in self._values for key in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DistStoreError("Wait timeout")
                self._changed.wait(left)

    def delete_key(self, key):
        with self._changed:
            return self._values.pop(key, None) is not None

    def num_keys(self):
        with self._changed:
            return len(self._values)

    def list_keys(self):
        with self._changed:
            return list(self._values)

    def has_extended_api(self):
        return True


class PrefixStore(Store):
    """`PrefixStore(prefix, store)`: every key given is `prefix + "/" + key` in the underlying store."""

    def __init__(self, prefix, store):
        self._prefix = f"{prefix}/"
        self.underlying_store = store

    def _key(self, key):
        return self._prefix + key

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def set(self, key, value):
        self.underlying_store.set(self._key(key), value)

    def get(self, key):
        return self.underlying_store.get(self._key(key))

    def multi_get(self, keys):
        return self.underlying_store.multi_get([self._key(k) for k in keys])

    def multi_set(self, keys, values):
        self.underlying_store.multi_set([self._key(k) for k in keys], values)

    def add(self, key, amount):
        return self.underlying_store.add(self._key(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._key(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._key(key), expected_value, desired_value)

    def check(self, keys):
        return self.underlying_store.check([self._key(k) for k in keys])

    def wait(self, keys, timeout=None):
        keys = [self._key(k) for k in keys]
        if timeout is None:
            self.underlying_store.wait(keys)
        else:
            self.underlying_store.wait(keys, timeout)

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._key(key))

    def num_keys(self):
        return self.underlying_store.num_keys()  # (torch's answer: the whole store's count)

    def list_keys(self):
        return [k[len(self._prefix):] for k in self.underlying_store.list_keys() if k.startswith(self._prefix)]

    def has_extended_api(self):
        return self.underlying_store.has_extended_api()
