"""`torch.distributed.TCPStore(host_name, port, world_size, is_master, timeout, wait_for_workers, ...)`: a
key-value store served over TCP by the master process (a server thread holding a HashStore), reached by every
instance, the master's included, through a client socket.

The wire format is this package's own (both ends are this module): a request is an operation byte and a list of
byte fields, each length-prefixed; the answer is a status byte and a list of fields. Waiting for keys happens in
the server (one thread per connection), so a `get` costs one round trip however long it waits.

As torch's: `port=0` on the master binds a free port (`.port` answers it); clients retry connecting until the
timeout (then DistNetworkError); with `world_size` set each client counts itself in an internal key (counted by
`num_keys`, not listed by `list_keys`) and a master with `wait_for_workers` waits for all of them (DistStoreError
"Timed out after ... waiting for clients"); a `get`/`wait` that times out raises DistStoreError "wait timeout
after <ms>ms, keys: /<key>".

Unlike torch's, a process group here keeps using its store after the rendezvous (`_store_transport`), so the
master's process must not take the server away while other ranks still read what it wrote last: at exit
(atexit, and multiprocessing's exit of a forked or spawned child) it waits until the other processes' clients
have disconnected, up to the store's timeout.
"""
import datetime
import errno
import multiprocessing.util
import socket
import struct
import threading
import time

from ._stores import (DistNetworkError, DistStoreError, HashStore, Store, _as_bytes, as_timedelta,
                      milliseconds)

_COUNT = struct.Struct("<BI")   # operation or status, number of fields
_LENGTH = struct.Struct("<Q")
_OK, _TIMEOUT, _VALUE_ERROR = 0, 1, 2
(_SET, _ADD, _APPEND, _COMPARE_SET, _CHECK, _WAIT, _DELETE, _NUM_KEYS, _LIST_KEYS, _MULTI_GET, _MULTI_SET, _JOIN,
 _WORKERS) = range(1, 14)
_WORKERS_KEY = "\0workers"  # the internal count of clients (a name no user key can take: str keys hold no NUL)


def _send(sock, code, fields):
    parts = [_COUNT.pack(code, len(fields))]
    for field in fields:
        parts += [_LENGTH.pack(len(field)), field]
    sock.sendall(b"".join(parts))


def _receive_exact(sock, size):
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise DistNetworkError("Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
                                   "server shutdown or crash?")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(sock):
    code, count = _COUNT.unpack(_receive_exact(sock, _COUNT.size))
    fields = []
    for _ in range(count):
        (length,) = _LENGTH.unpack(_receive_exact(sock, _LENGTH.size))
        fields.append(_receive_exact(sock, length))
    return code, fields


def _millis(field):
    return datetime.timedelta(milliseconds=int(field))


class _Server:
    """The master's server: one accepting thread, one thread per client connection, one HashStore."""

    def __init__(self, listener, linger):
        self.listener = listener
        self.port = listener.getsockname()[1]
        self.values = HashStore()
        self.users = 1
        self.linger = linger
        self.peers = set()  # addresses of the connected clients
        self.closed = False
        self.changed = threading.Condition()
        threading.Thread(target=self._accept, name=f"TCPStore-server-{self.port}", daemon=True).start()
        multiprocessing.util.Finalize(None, self._wait_for_other_clients, exitpriority=100)

    def _wait_for_other_clients(self):
        deadline = time.monotonic() + self.linger.total_seconds()
        with self.changed:
            while not self.closed and self.peers - _LOCAL_CLIENTS and time.monotonic() < deadline:
                self.changed.wait(max(0.0, deadline - time.monotonic()))

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # (the listener was closed)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        peer = conn.getpeername()
        with self.changed:
            self.peers.add(peer)
        try:
            self._serve_requests(conn)
        finally:
            conn.close()
            with self.changed:
                self.peers.discard(peer)
                self.changed.notify_all()

    def _serve_requests(self, conn):
        while True:
            try:
                op, fields = _receive(conn)
            except (DistNetworkError, OSError):
                return
            try:
                answer = self._answer(op, fields)
                status = _OK
            except DistStoreError:
                status, answer = _TIMEOUT, []
            except ValueError as exc:
                status, answer = _VALUE_ERROR, [str(exc).encode()]
            try:
                _send(conn, status, answer)
            except OSError:
                return

    def _answer(self, op, fields):
        values = self.values
        if op == _SET:
            values.set(fields[0].decode(), fields[1])
            return []
        if op == _MULTI_GET:
            keys = [f.decode() for f in fields[1:]]
            values.wait(keys, _millis(fields[0]))
            return [values.get(k) for k in keys]
        if op == _ADD:
            return [str(values.add(fields[0].decode(), int(fields[1]))).encode()]
        if op == _APPEND:
            values.append(fields[0].decode(), fields[1])
            return []
        if op == _COMPARE_SET:
            return [values.compare_set(fields[0].decode(), fields[1], fields[2])]
        if op == _CHECK:
            return [b"1" if values.check([f.decode() for f in fields]) else b"0"]
        if op == _WAIT:
            values.wait([f.decode() for f in fields[1:]], _millis(fields[0]))
            return []
        if op == _DELETE:
            return [b"1" if values.delete_key(fields[0].decode()) else b"0"]
        if op == _NUM_KEYS:
            return [str(values.num_keys()).encode()]
        if op == _LIST_KEYS:
            return [k.encode() for k in values.list_keys() if k != _WORKERS_KEY]
        if op == _MULTI_SET:
            half = len(fields) // 2
            values.multi_set([f.decode() for f in fields[:half]], fields[half:])
            return []
        if op == _JOIN:
            return [str(values.add(_WORKERS_KEY, 1)).encode()]
        if op == _WORKERS:
            return [values.get(_WORKERS_KEY) if values.check([_WORKERS_KEY]) else b"0"]
        raise ValueError(f"unknown TCPStore operation {op}")

    def close(self):
        self.users -= 1
        if self.users == 0:
            self.closed = True
            _SERVERS.pop(self.port, None)
            try:
                self.listener.shutdown(socket.SHUT_RDWR)  # (wakes the accepting thread; close alone does not)
            except OSError:
                pass
            self.listener.close()


_SERVERS = {}  # port -> _Server of this process (multi_tenant masters share one)
_LOCAL_CLIENTS = set()  # the addresses of this process's client sockets (a server does not wait for them)


def _listen(host, port, listen_fd):
    if listen_fd is not None:
        return socket.socket(fileno=listen_fd)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("", port))
    except OSError as exc:
        listener.close()
        raise DistNetworkError(f"The server socket has failed to listen on any local network address. port: "
                               f"{port}, useIpv6: false, code: -{exc.errno}, name: {errno.errorcode.get(exc.errno, '?')}, "
                               f"message: {str(exc.strerror).lower()}") from None
    listener.listen(128)
    return listener


class TCPStore(Store):
    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=datetime.timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        self._host, self._timeout, self._use_libuv = host_name, as_timedelta(timeout), use_libuv
        self._server = None
        self._lock = threading.Lock()
        if is_master:
            server = _SERVERS.get(port) if multi_tenant and port else None
            if server is None:
                server = _Server(_listen(host_name, port, master_listen_fd), self._timeout)
                _SERVERS[server.port] = server
            else:
                server.users += 1
            self._server = server
            port = server.port
        self._port = port
        self._sock = self._connect()
        _LOCAL_CLIENTS.add(self._sock.getsockname())
        if world_size is not None and (not is_master or wait_for_workers):
            self._call(_JOIN, [])
        if is_master and wait_for_workers and world_size is not None:
            self._wait_for_workers(world_size)

    # ------------------------------------------------------------------ connection
    def _connect(self):
        limit = self._timeout.total_seconds()
        deadline = time.monotonic() + limit
        pause = 0.01
        while True:
            try:
                sock = socket.create_connection((self._host, self._port),
                                                timeout=max(0.05, deadline - time.monotonic()))
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(f"The client socket has timed out after {milliseconds(self._timeout)}ms "
                                           f"while trying to connect to ({self._host}, {self._port}).") from None
                time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                pause = min(pause * 2, 0.5)

    def _call(self, op, fields, wait=None):
        """Send one request and return the answer's fields; `wait` (a timedelta) bounds the server's waiting."""
        with self._lock:
            # the socket waits a little longer than the server does, so a dead server is noticed too
            limit = (wait or self._timeout).total_seconds() + 30
            self._sock.settimeout(limit)
            try:
                _send(self._sock, op, fields)
                status, answer = _receive(self._sock)
            except socket.timeout:
                raise DistNetworkError(f"TCPStore at ({self._host}, {self._port}) did not answer within "
                                       f"{limit:.0f}s") from None
        if status == _VALUE_ERROR:
            raise ValueError(answer[0].decode())
        if status == _TIMEOUT:
            return None
        return answer

    def _wait_for_workers(self, world_size):
        deadline = time.monotonic() + self._timeout.total_seconds()
        while True:
            joined = int(self._call(_WORKERS, [])[0])
            if joined >= world_size:
                return
            if time.monotonic() >= deadline:
                raise DistStoreError(f"Timed out after {max(1, round(self._timeout.total_seconds()))} seconds "
                                     f"waiting for clients. {joined}/{world_size} clients joined.")
            time.sleep(0.01)

    def _timed_out(self, keys, timeout):
        return DistStoreError(f"wait timeout after {milliseconds(timeout)}ms, keys: "
                              + ", ".join("/" + k for k in keys))

    # ------------------------------------------------------------------ torch's API
    @property
    def host(self):
        return self._host

    @property
    def port(self):
        return self._port

    @property
    def libuvBackend(self):  # noqa: N802  (torch's name)
        return self._use_libuv

    def set_timeout(self, timeout):
        self._timeout = as_timedelta(timeout)

    def set(self, key, value):
        self._call(_SET, [key.encode(), _as_bytes(value)])

    def get(self, key):
        return self.multi_get([key])[0]

    def multi_get(self, keys):
        answer = self._call(_MULTI_GET, [str(milliseconds(self._timeout)).encode()] + [k.encode() for k in keys])
        if answer is None:
            raise self._timed_out(keys, self._timeout)
        return answer

    def multi_set(self, keys, values):
        self._call(_MULTI_SET, [k.encode() for k in keys] + [_as_bytes(v) for v in values])

    def add(self, key, amount):
        return int(self._call(_ADD, [key.encode(), str(int(amount)).encode()])[0])

    def append(self, key, value):
        self._call(_APPEND, [key.encode(), _as_bytes(value)])

    def compare_set(self, key, expected_value, desired_value):
        return self._call(_COMPARE_SET, [key.encode(), _as_bytes(expected_value), _as_bytes(desired_value)])[0]

    def check(self, keys):
        return self._call(_CHECK, [k.encode() for k in keys])[0] == b"1"

    def wait(self, keys, timeout=None):
        timeout = as_timedelta(timeout) if timeout is not None else self._timeout
        if self._call(_WAIT, [str(milliseconds(timeout)).encode()] + [k.encode() for k in keys], wait=timeout) \
                is None:
            raise self._timed_out(keys, timeout)

    def delete_key(self, key):
        return self._call(_DELETE, [key.encode()])[0] == b"1"

    def num_keys(self):
        return int(self._call(_NUM_KEYS, [])[0])

    def list_keys(self):
        return [k.decode() for k in self._call(_LIST_KEYS, [])]

    def has_extended_api(self):
        return True

    def clone(self):
        return TCPStore(self._host, self._port, None, False, self._timeout)

    def __del__(self):
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()
        if getattr(self, "_server", None) is not None:
            self._server.close()
            self._server = None
