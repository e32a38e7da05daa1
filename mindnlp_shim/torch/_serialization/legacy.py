"""PyTorch's pre-1.6 checkpoint format (torch.save(..., _use_new_zipfile_serialization=False)).

The file is a sequence of pickles followed by raw storage bytes:
  the magic number, the protocol version (1001) and the system info (which torch reads and ignores),
  the object pickle, whose tensors name storages by key, with a storage class, location, element count and
  (files of torch < 0.4) a view into another storage,
  the list of storage keys,
  and for each key of that list, its element count (int64) and its bytes, both little-endian.
As torch does, the object is unpickled first, each storage an uninitialized buffer the tensors are views of
(which grows when a tensor needs more of it than the pickle's count, as torch's storages there can), and then
the list fills the buffers in its order; a count other than the storage's is torch's error ("storage has wrong
byte size"). Beyond torch: a storage is only allocated when the bytes it claims are still
left in the file (so a damaged count cannot ask for more memory than the file describes), and a storage the
list leaves unfilled is an error where torch would hand over uninitialized memory. The headers, object and key
list are read through a view of the file that stops at its end, so no pickle opcode can make a read allocate
more than the file holds.
"""
import pickle
import struct
import sys

import numpy as np

from . import locations
from .reader import NoStorages, byte_count, byteswap, storage_dtype
from .rebuild import LoadedStorage

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def is_tar(head):
    """The tar-based format of torch < 0.4: refused with a clear message."""
    return len(head) >= 262 and head[257:262] == b"ustar"


class _Bounded:
    """The read side of a binary file, ending at `end`: reads never ask the file for more than is left."""

    def __init__(self, fileobj, end):
        self._file, self._end = fileobj, end

    def _left(self, wanted):
        left = max(self._end - self._file.tell(), 0)
        return left if wanted is None or wanted < 0 else min(wanted, left)

    def read(self, size=-1):
        return self._file.read(self._left(size))

    def readline(self, size=-1):
        return self._file.readline(self._left(size))

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        return self._file.readinto(view[:self._left(len(view))])

    def tell(self):
        return self._file.tell()


class LegacyStorages:
    """The storages of a legacy file: allocated when the object pickle names them, filled by `fill`."""

    legacy = True

    def __init__(self, source, budget):
        self._source, self._budget = source, budget
        self._objects = {}  # key -> LoadedStorage (roots and views)
        self._roots = []  # filled by the key list
        self._fresh = []  # the new empty storages of later ids of a storage without data
        self._filled = set()

    def _error(self, what):
        return RuntimeError(f"torch.load: {self._source} is damaged: {what}")

    def storage(self, fields, restore):
        if len(fields) != 5:
            raise ValueError(f"torch.load: a storage persistent id of a legacy checkpoint has 5 fields after "
                             f"'storage', this one {len(fields)}")
        storage_type, key, location, count, view = fields
        location = locations.decode(location)
        dtype = storage_dtype(storage_type)
        count * storage_type.itemsize  # (torch multiplies every id's count, a later one's too: None fails here)
        if key not in self._objects:
            nbytes = byte_count(count, storage_type.itemsize)
            storage = LoadedStorage(self._allocate(nbytes, key), dtype, location, grow=self._grow)
            storage = restore(storage, location)
            self._objects[key] = storage
            self._roots.append(storage)
        else:
            storage = self._objects[key]
            if not storage.nbytes() or storage.meta:
                # torch gives each later id of a storage without data (empty, or meta) a new, empty one of the id's
                # class, which the tensor over it then grows
                fresh = LoadedStorage(np.empty(0, dtype=np.uint8), dtype, storage.location, grow=self._grow)
                fresh.meta, storage = storage.meta, fresh
                self._fresh.append(fresh)
        if view is None:
            return storage
        view_key, offset, view_count = view
        if view_key not in self._objects:
            start = byte_count(offset, storage_type.itemsize, "view offset")
            self._objects[view_key] = storage.sub_storage(start, start + byte_count(view_count, storage_type.itemsize))
        return self._objects[view_key]

    def _reserve(self, nbytes, what):
        if nbytes > self._budget:
            raise self._error(f"{what} {nbytes} bytes, more than the {self._budget} bytes left in the file for "
                              "storages")
        self._budget -= nbytes

    def _allocate(self, nbytes, key):
        self._reserve(nbytes, f"storage {key!r:.40} claims")
        return np.empty(nbytes, dtype=np.uint8)

    def _grow(self, storage, nbytes):
        # (torch's meta storages take any size; the shim's hold memory)
        self._reserve(nbytes - storage.nbytes(), "meta storages claim more bytes than the file holds: a tensor needs "
                      "its meta storage to grow by" if storage.meta else "a tensor needs its storage to grow by")
        storage.buffer = (np.zeros if storage.meta else np.empty)(nbytes, dtype=np.uint8)

    def fill(self, fileobj, keys):
        """Read each listed storage's count and bytes, in the list's order."""
        for key in keys:
            if key not in self._objects:
                raise self._error(f"the storage list names {key!r:.40}, which no tensor uses")
            storage = self._objects[key]
            head = fileobj.read(8)
            if len(head) != 8:
                raise self._error(f"the file ends before the element count of storage {key!r:.40}")
            # (torch multiplies the count by the element size in 64-bit arithmetic, wrapping around)
            nbytes = (struct.unpack("<q", head)[0] * storage.element_size() + 2 ** 63) % 2 ** 64 - 2 ** 63
            if nbytes != storage.nbytes():
                raise self._error(f"storage has wrong byte size: expected {nbytes} got {storage.nbytes()} (the "
                                  f"count before storage {key!r:.40} differs from its tensors' storage)")
            view = memoryview(storage.buffer)
            filled = 0
            while filled < nbytes:
                got = fileobj.readinto(view[filled:])
                if not got:
                    raise self._error(f"unexpected EOF, expected {nbytes - filled} more bytes of storage "
                                      f"{key!r:.40}")
                filled += got
            if sys.byteorder == "big":
                byteswap(storage.buffer, storage.dtype)
            self._filled.add(id(storage))
        for storage in self._roots + self._fresh:
            if storage.nbytes() and id(storage) not in self._filled:
                if not storage.meta:
                    raise self._error("a storage the tensors use has no bytes in the file (torch would hand over "
                                      "uninitialized memory)")
                storage.buffer[:] = 0  # (meta tensors have no data in torch; here they read as zeros)


def load_legacy(fileobj, make_unpickler, source):
    """Load a legacy checkpoint from a seekable binary file; `make_unpickler(file, storages)` as for zip."""
    start = fileobj.tell()
    end = fileobj.seek(0, 2)
    fileobj.seek(start)
    stream = _Bounded(fileobj, end)

    def header():
        return make_unpickler(stream, NoStorages()).load()

    if header() != MAGIC_NUMBER:
        raise RuntimeError(f"torch.load: {source} has an invalid magic number; it is not a PyTorch checkpoint, or "
                           "a corrupt one")
    protocol = header()
    if protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"torch.load: {source} has an invalid legacy protocol version: {protocol!r:.40}")
    header()  # the writing machine's system info, which torch does not use either
    storages = LegacyStorages(source, end - fileobj.tell())
    result = make_unpickler(stream, storages).load()
    storages.fill(stream, header())
    return result


# what torch records about the writing machine; `type_sizes` are those of torch's C types on x86-64/arm64
_SYS_INFO = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
             "type_sizes": {"short": 2, "int": 4, "long": 4}}


def write_legacy(fileobj, pickled, storages, protocol):
    """Write a legacy checkpoint: the headers, `pickled` (from `writer.pickle_with_storages(..., legacy=True)`,
    whose storage keys are the indices of `storages`), the key list, then each storage's element count
    and bytes."""
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, _SYS_INFO):
        pickle.dump(header, fileobj, protocol=protocol)
    fileobj.write(pickled)
    pickle.dump([str(key) for key in range(len(storages))], fileobj, protocol=protocol)
    for array in storages:
        data = np.ascontiguousarray(array).reshape(-1)
        if sys.byteorder == "big":  # (the format is little-endian whatever sys_info says, as torch writes it)
            data = data.byteswap()
        fileobj.write(struct.pack("<q", array.size))
        fileobj.write(memoryview(data.view(np.uint8)))
