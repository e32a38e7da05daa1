"""A torch zip checkpoint (torch >= 1.6): the records torch reads, in its order, with its checks.

`load_zip` reads what torch reads before the pickle: every record must be in the folder of the first one and
named in UTF-8, then the serialization id, the format version (1 to 10, parsed as torch parses it), the
`.format_version`, the byte order (`little` or `big`), the storage alignment and `data.pkl`. `ZipStorages` reads
a storage record when the pickle first names it; its size must be the storage's. With `map_location="meta"`
torch reads no storage data: it only finds the first record's data offset (every record's, for archives without
a `.format_version`), so damaged data records load there as in torch.
"""
import io
import re
import sys

import numpy as np

from . import locations
from .reader import byte_count, byteswap, storage_dtype
from .rebuild import LoadedStorage
from .zip_archive import ZipArchive, c_string

# the format versions torch 2.x reads
_MIN_FORMAT_VERSION, _MAX_FORMAT_VERSION = 1, 10


class ZipCheckpoint:
    """The records of a torch zip checkpoint: every one in the folder of the first record, found by name."""

    def __init__(self, fileobj, source):
        self.archive = archive = ZipArchive(fileobj, source)
        self.source = source
        first = archive.entries[0].name
        if b"/" not in first:
            raise archive.error(f"its first record {first!r} is not in a folder")
        self.prefix = first[:first.index(b"/") + 1]
        self.names = []
        for entry in archive.entries:
            name = c_string(entry.name[:511])
            if name[:len(self.prefix)] != c_string(self.prefix)[:len(self.prefix)]:
                raise archive.error(f"record {name!r} is not in the folder {self.prefix!r} of the first record")
            try:  # (torch lists the records as Python strings)
                self.names.append(name[len(self.prefix):].decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise archive.error(f"record name {name!r} is not UTF-8 ({exc})") from None
        self.offsets_computed = False  # torch computes storage offsets from the first one (.format_version >= 1)
        self.alignment = 64

    def has(self, name):
        return self.archive.has(self.prefix + name.encode())

    def _entry(self, name):
        entry = self.archive.find(self.prefix + name.encode())
        if entry is None:
            raise self.archive.error(f"record {(self.prefix + name.encode()).decode('utf-8', 'replace')} is missing")
        return entry

    def get(self, name):
        return self.archive.read(self._entry(name))

    def storage_record(self, name, nbytes, mapped):
        """The bytes of record `name` as a new uint8 array; an error unless it holds exactly `nbytes`."""
        entry = self._entry(name)
        if mapped and entry.method:
            raise self.archive.error(f"record {name} is compressed; mmap=True maps records as they are stored, so "
                                     "torch would take its compressed bytes for the storage's values")
        return self.archive.read_record(entry, nbytes)

    def locate(self, name):
        """Where record `name`'s data starts, read as torch reads it for a meta load (which reads nothing else)."""
        return self.archive.data_offset(self._entry(name))

    def format_version(self):
        """The archive's format version, parsed as torch parses it (C's strtoull, then as a signed number)."""
        data = self.get(".data/version" if self.has(".data/version") else "version")
        match = re.match(rb"[ \t\n\v\f\r]*([+-]?)([0-9]*)", c_string(data))
        if not match.group(2):
            raise self.archive.error(f"couldn't parse the version record {data[:40]!r} as a number")
        value = int(match.group(2))
        if value >= 2 ** 64:
            raise self.archive.error(f"the version record {data[:40]!r} is out of range")
        value = (-value if match.group(1) == b"-" else value) % 2 ** 64
        value = value - 2 ** 64 if value >= 2 ** 63 else value
        if not _MIN_FORMAT_VERSION <= value <= _MAX_FORMAT_VERSION:
            raise RuntimeError(f"torch.load: {self.source} has format version {value}; torch reads versions "
                               f"{_MIN_FORMAT_VERSION} to {_MAX_FORMAT_VERSION}")
        return value


class ZipStorages:
    """The `data/<key>` records of a zip checkpoint, read when the pickle first names them. As in torch, a key
    read once is shared by every later id that names it (whatever class or count that id gives), except a
    storage without data (empty, or meta), which each id gets afresh."""

    legacy = False

    def __init__(self, checkpoint, swap, map_location, mmap):
        self._checkpoint, self._swap, self._mmap = checkpoint, swap, mmap
        self._meta_map = locations.is_meta(map_location)
        self._loaded = {}
        self._budget = checkpoint.archive.size  # what meta storages, which read no data, may take in all
        # torch's meta loads of archives with a .format_version locate the first record and count the others'
        # offsets on from it, in unsigned arithmetic: the end of the last one counted, and the names counted
        self._offset, self._counted = None, set()

    def storage(self, fields, restore):
        if len(fields) != 4:
            raise ValueError(f"torch.load: a storage persistent id of a zip checkpoint has 4 fields after "
                             f"'storage', this one {len(fields)}")
        storage_type, key, location, count = fields
        dtype = storage_dtype(storage_type)
        if key in self._loaded:
            return self._loaded[key]
        nbytes = byte_count(count, storage_type.itemsize, negative=self._meta_map)
        if self._meta_map:
            swapped = self._swap and storage_type.name != "UntypedStorage" and storage_type.itemsize > 1
            return self._meta_storage(key, nbytes, dtype, locations.decode(location), swapped)
        buffer = self._checkpoint.storage_record(f"data/{key}", nbytes, self._mmap)
        if self._swap and storage_type.name != "UntypedStorage":  # (torch swaps by the storage class's dtype)
            byteswap(buffer, dtype)
        location = locations.decode(location)
        storage = restore(LoadedStorage(buffer, dtype, location), location)
        if storage.meta:
            storage.grow = self._grow  # (torch's meta storages are resizable)
        elif nbytes:
            self._loaded[key] = storage
        return storage

    def _meta_storage(self, key, nbytes, dtype, location, swapped):
        name = f"data/{key}"
        source = self._checkpoint.source
        if not self._checkpoint.offsets_computed:
            self._checkpoint.locate(name)
        elif name in self._counted:
            pass
        elif self._offset is None:
            if key != "0":
                raise RuntimeError(f"torch.load: {source}: the first storage a meta load maps must be data/0 (torch: "
                                   f"expected key '0', got {key!r:.40})")
            self._offset = self._checkpoint.locate(name) + nbytes
        else:
            if self._offset < 0 or nbytes < 0 or self._checkpoint.alignment <= 0:
                raise RuntimeError(f"torch.load: {source}: torch cannot count the storage offsets of a meta load "
                                   f"on (an offset of {self._offset}, a storage of {nbytes} bytes and an alignment of "
                                   f"{self._checkpoint.alignment} must not be negative, nor the alignment 0)")
            self._offset += nbytes  # (where exactly does not matter: it only grows from here)
        self._counted.add(name)
        if swapped:
            raise RuntimeError(f"torch.load: {source} is big-endian, and torch crashes swapping the bytes of a meta "
                               "storage; load it with map_location='cpu'")
        storage = LoadedStorage(self._zeros(max(nbytes, 0)), dtype, location, grow=self._grow)
        storage.meta = True
        return storage

    def _zeros(self, nbytes):
        if nbytes > self._budget:
            raise RuntimeError(f"torch.load: {self._checkpoint.source}: meta storages claim more bytes than the "
                               f"file holds ({nbytes} more, {self._budget} left)")
        self._budget -= nbytes
        return np.zeros(nbytes, dtype=np.uint8)

    def _grow(self, storage, nbytes):
        storage.buffer = self._zeros(nbytes)


def load_zip(fileobj, make_unpickler, source, map_location=None, mmap=False):
    """Load a zip checkpoint; `make_unpickler(file, storages)` builds the unpickler for data.pkl."""
    checkpoint = ZipCheckpoint(fileobj, source)
    if checkpoint.has(".data/serialization_id"):
        checkpoint.get(".data/serialization_id")  # (torch reads it, so a damaged one fails there)
    checkpoint.format_version()
    if "constants.pkl" in checkpoint.names:
        raise NotImplementedError(f"torch.load: {source} is a TorchScript archive (torch.jit.save); TorchScript is "
                                  "not supported on MindSpore")
    if checkpoint.has(".format_version"):
        checkpoint.offsets_computed = checkpoint.get(".format_version") >= b"1"
    swap = False
    if checkpoint.has("byteorder"):
        byteorder = checkpoint.get("byteorder")
        if byteorder not in (b"little", b"big"):
            raise ValueError(f"torch.load: {source} has an unknown byte order {byteorder[:40]!r} (torch: Unknown "
                             "endianness type)")
        swap = byteorder.decode() != sys.byteorder
    if checkpoint.has(".storage_alignment"):
        checkpoint.alignment = int(checkpoint.get(".storage_alignment"))
    pickled = checkpoint.get("data.pkl")
    storages = ZipStorages(checkpoint, swap, map_location, mmap)
    return make_unpickler(io.BytesIO(pickled), storages).load()
