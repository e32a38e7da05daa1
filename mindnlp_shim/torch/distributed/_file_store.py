"""`torch.distributed.FileStore(path, world_size)`: a key-value store in a file that processes on one machine (or
a shared file system with working locks) open by its path.

The file is a log of records (set or delete of one key), each process replaying what it has not read yet; every
access holds an fcntl lock on the file (shared to read, exclusive to write), so `add` and `compare_set` are atomic
across processes. When the dead records outweigh the live ones the writer rewrites the file with the live keys
only and bumps the generation number in its header, which tells the other processes to replay it from the start:
a process group's collectives set and delete keys all the time, and the file stays small.

As torch's: user keys live under "/" ("/x"), each instance counts itself in "refcount/" and, when released,
in "cleanup/"; the file is removed once "cleanup/" reaches `world_size` (never for world_size -1). `num_keys`
counts those internal keys too, `list_keys` shows them without their first character, and a timed-out `get` or
`wait` raises RuntimeError (not DistStoreError), as torch's FileStore does.
"""
import datetime
import errno
import fcntl
import os
import struct
import threading
import time

from ._stores import Store, _LEADING_INTEGER, _as_bytes, milliseconds

_HEADER = struct.Struct("<Q")           # generation number of the file's contents
_RECORD = struct.Struct("<BII")         # kind, key length, value length
_SET, _DELETE = 1, 2
_COMPACT_MIN_BYTES = 1 << 20            # rewrite only files above 1 MB ...
_COMPACT_DEAD_RATIO = 4                 # ... whose size is 4x their live records
_POLL_START, _POLL_MAX = 0.0005, 0.01   # seconds between looks at the file while waiting for keys


class _Log:
    """This process's view of the file: the keys replayed so far, where the replay stopped, which generation."""

    def __init__(self):
        self.values, self.offset, self.generation = {}, _HEADER.size, None


class FileStore(Store):
    def __init__(self, file_name, world_size=-1):
        self._path = os.fspath(file_name)
        self._world_size = world_size
        self._timeout = datetime.timedelta(minutes=5)
        self._log = _Log()
        self._threads = threading.Lock()  # (threads of this process share the instance's view of the file)
        self._released = False
        self._add_internal("refcount/", 1)

    # ------------------------------------------------------------------ torch's API
    @property
    def path(self):
        return self._path

    def set(self, key, value):
        with self._locked(exclusive=True) as fd:
            self._write(fd, [(_SET, "/" + key, _as_bytes(value))])

    def get(self, key):
        self._wait_for(["/" + key], self._timeout, lambda: f"Timeout waiting for key: {key} after "
                                                         f"{milliseconds(self._timeout)} ms")
        with self._locked(exclusive=False):
            return self._log.values["/" + key]

    def add(self, key, amount):
        return self._add_internal("/" + key, amount)

    def append(self, key, value):
        value = _as_bytes(value)
        with self._locked(exclusive=True) as fd:
            old = self._log.values.get("/" + key)
            if old == value:  # (torch's FileStore leaves a value alone when appended to itself: measured)
                return
            self._write(fd, [(_SET, "/" + key, (old or b"") + value)])

    def compare_set(self, key, expected_value, desired_value):
        expected, desired = _as_bytes(expected_value), _as_bytes(desired_value)
        with self._locked(exclusive=True) as fd:
            current = self._log.values.get("/" + key)
            if current is None:
                if expected:
                    return expected
            elif current != expected:
                return current
            self._write(fd, [(_SET, "/" + key, desired)])
            return desired

    def check(self, keys):
        with self._locked(exclusive=False):
            return all("/" + k in self._log.values for k in keys)

    def wait(self, keys, timeout=None):
        self._wait_for(["/" + k for k in keys], timeout or self._timeout, lambda: "Wait timeout")

    def multi_get(self, keys):
        self._wait_for(["/" + k for k in keys], self._timeout,
                       lambda: f"Timeout waiting for key: {keys[0]} after {milliseconds(self._timeout)} ms")
        with self._locked(exclusive=False):
            return [self._log.values["/" + k] for k in keys]

    def multi_set(self, keys, values):
        with self._locked(exclusive=True) as fd:
            self._write(fd, [(_SET, "/" + k, _as_bytes(v)) for k, v in zip(keys, values)])

    def delete_key(self, key):
        """Always True, whether or not the key existed (torch's FileStore answers so)."""
        with self._locked(exclusive=True) as fd:
            if "/" + key in self._log.values:
                self._write(fd, [(_DELETE, "/" + key, b"")])
            return True

    def num_keys(self):
        with self._locked(exclusive=False):
            return len(self._log.values)

    def list_keys(self):
        with self._locked(exclusive=False):
            return [k[1:] for k in self._log.values]

    def has_extended_api(self):
        return False

    def clone(self):
        return FileStore(self._path, self._world_size)

    def __del__(self):
        try:
            self._release()
        except Exception:  # noqa: BLE001  (the file may be gone already; nothing to release then)
            pass

    # ------------------------------------------------------------------ the file
    def _release(self):
        if self._released:
            return
        self._released = True
        self._add_internal("refcount/", -1)
        if self._add_internal("cleanup/", 1) == self._world_size:
            try:
                os.unlink(self._path)
            except FileNotFoundError:
                pass

    def _add_internal(self, key, amount):
        with self._locked(exclusive=True) as fd:
            current = self._log.values.get(key) or b"0"
            leading = _LEADING_INTEGER.match(current)
            if leading is None:
                raise ValueError("stoll")  # (torch's message for a value that is not a number)
            number = int(leading.group()) + int(amount)
            self._write(fd, [(_SET, key, str(number).encode())])
            return number

    def _wait_for(self, keys, timeout, message):
        deadline = time.monotonic() + timeout.total_seconds()
        pause = _POLL_START
        while True:
            with self._locked(exclusive=False):
                if all(k in self._log.values for k in keys):
                    return
            if time.monotonic() >= deadline:
                raise RuntimeError(message())
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, _POLL_MAX)

    class _Lock:
        def __init__(self, store, exclusive):
            self.store, self.exclusive = store, exclusive

        def __enter__(self):
            self.store._threads.acquire()
            try:
                self.fd = os.open(self.store._path, os.O_RDWR | os.O_CREAT, 0o644)
            except BaseException:
                self.store._threads.release()
                raise
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH)
                self.store._replay(self.fd)
            except BaseException:
                self.__exit__()
                raise
            return self.fd

        def __exit__(self, *exc):
            os.close(self.fd)  # (closing drops the lock)
            self.store._threads.release()

    def _locked(self, exclusive):
        return FileStore._Lock(self, exclusive)

    def _replay(self, fd):
        """Bring this process's view up to the file's end (from the start if the file was rewritten)."""
        size = os.fstat(fd).st_size
        generation = _HEADER.unpack(os.pread(fd, _HEADER.size, 0))[0] if size >= _HEADER.size else 0
        log = self._log
        if generation != log.generation:
            log.values, log.offset, log.generation = {}, _HEADER.size, generation
        if size <= log.offset:
            return
        data = os.pread(fd, size - log.offset, log.offset)
        position = 0
        while position + _RECORD.size <= len(data):
            kind, key_length, value_length = _RECORD.unpack_from(data, position)
            end = position + _RECORD.size + key_length + value_length
            if end > len(data):
                break  # (a record still being written: not possible under the lock, but never misread one)
            key = data[position + _RECORD.size:position + _RECORD.size + key_length].decode()
            if kind == _SET:
                log.values[key] = data[end - value_length:end]
            else:
                log.values.pop(key, None)
            position = end
        log.offset += position

    def _write(self, fd, records):
        """Append records (the exclusive lock is held and the view is current)."""
        log = self._log
        if log.generation is None or os.fstat(fd).st_size < _HEADER.size:
            os.pwrite(fd, _HEADER.pack(0), 0)
            log.generation, log.offset = 0, _HEADER.size
        payload = b"".join(_RECORD.pack(kind, len(key.encode()), len(value)) + key.encode() + value
                           for kind, key, value in records)
        written = os.pwrite(fd, payload, log.offset)
        if written != len(payload):
            raise OSError(errno.EIO, f"FileStore: short write to {self._path}")
        self._replay(fd)
        if log.offset > _COMPACT_MIN_BYTES and log.offset > _COMPACT_DEAD_RATIO * self._live_size():
            self._compact(fd)

    def _live_size(self):
        return _HEADER.size + sum(_RECORD.size + len(k.encode()) + len(v) for k, v in self._log.values.items())

    def _compact(self, fd):
        log = self._log
        payload = b"".join(_RECORD.pack(_SET, len(k.encode()), len(v)) + k.encode() + v
                           for k, v in log.values.items())
        log.generation += 1
        os.pwrite(fd, _HEADER.pack(log.generation) + payload, 0)
        os.ftruncate(fd, _HEADER.size + len(payload))
        log.offset = _HEADER.size + len(payload)
