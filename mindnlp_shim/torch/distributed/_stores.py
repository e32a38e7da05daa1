"""torch.distributed's key-value stores: `Store`, the base class, and `HashStore`, the in-process one.

A HashStore keeps bytes under string keys in this process, for threads of it and for a one-process group
(`init_process_group(store=HashStore(), rank=0, world_size=1)`, as peft's tests form one). A store that reaches
other processes (TCPStore, FileStore) would need a torch rendezvous, which MindSpore's cluster does not use.
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


class Store:
    """The base class of torch's stores (for isinstance checks and subclasses)."""


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

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = timeout

    def set(self, key, value):
        with self._changed:
            self._values[key] = _as_bytes(value)
            self._changed.notify_all()

    def multi_set(self, keys, values):
        for key, value in zip(keys, values):
            self.set(key, value)

    def get(self, key):
        self.wait([key])
        with self._changed:
            return self._values[key]

    def multi_get(self, keys):
        return [self.get(key) for key in keys]

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
        limit = (timeout or self._timeout).total_seconds()
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

    def has_extended_api(self):
        return True
