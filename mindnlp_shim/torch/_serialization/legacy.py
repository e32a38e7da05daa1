"""PyTorch's pre-1.6 file format (still written by `torch.save(..., _use_new_zipfile_serialization=False)`):
reading it, and writing it.

The file is a sequence of pickles followed by raw data:
  magic number, protocol version (1001), sys_info dict,
  the object pickle, whose storages are persistent ids ("storage", torch.<X>Storage, key, location, numel,
  view_metadata),
  the sorted list of storage keys,
  then for each key: its element count as an 8-byte integer and its bytes.
The storages come after the pickle that uses them, so the object pickle is read twice: first with every global
replaced by an inert stand-in, only to learn each storage key's dtype; then for real, once the bytes are loaded.
"""
import pickle
import struct
import sys

import numpy as np

from . import names
from .reader import read_into, storage_from_bytes
from .rebuild import StorageType

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def is_tar(head):
    """The tar-based format of torch < 0.4: refused with a clear message."""
    return len(head) >= 262 and head[257:262] == b"ustar"


class _NoGlobals(pickle.Unpickler):
    """For the header pickles, which hold only numbers, strings, lists and dicts."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"torch.load: unexpected global {module}.{name} in a legacy checkpoint header")


class _Inert:
    """Stands for every object while the object pickle is scanned; absorbs every pickle operation."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Inert()

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass


class _ScannedStorageClass:
    """What a storage class global stands for while scanning: a fresh object per reference, so that whatever
    the pickle does to it (BUILD, ...) never reaches the shared storage classes of `names`."""

    def __init__(self, name):
        self.name = name


class _StorageScanner(pickle.Unpickler):
    """Runs the object pickle with inert stand-ins, recording each storage key's storage class."""

    def __init__(self, file, **pickle_load_args):
        super().__init__(file, **pickle_load_args)
        self.storage_types = {}

    def find_class(self, module, name):
        full_name = "%s.%s" % names.py3_name(module, name)
        return _ScannedStorageClass(full_name) if isinstance(names.torch_global(full_name), StorageType) else _Inert

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage" \
                and isinstance(pid[1], _ScannedStorageClass):
            storage_type = names.torch_global(pid[1].name) if isinstance(pid[1].name, str) else None
            if not isinstance(storage_type, StorageType):
                raise RuntimeError(f"torch.load: corrupt legacy checkpoint, storage {pid[2]!r} has no storage class")
            self.storage_types[str(pid[2])] = storage_type
        return _Inert()


class _LegacyStorages:
    def __init__(self, storages):
        self._storages = storages

    def read(self, key, storage_type, numel, location):
        try:
            storage = self._storages[key]
        except KeyError:
            raise RuntimeError(f"torch.load: corrupt legacy checkpoint, storage {key} is missing") from None
        if storage.dtype != storage_type.dtype:
            raise RuntimeError(f"torch.load: corrupt legacy checkpoint, storage {key} is read as {storage_type!r} "
                               f"but was scanned as {storage.dtype}")
        storage.location = location
        return storage


def load_legacy(fileobj, make_unpickler, pickle_load_args):
    """Load a legacy checkpoint from a seekable binary file; `make_unpickler(file, storages)` as for zip."""

    def header():
        return _NoGlobals(fileobj, **pickle_load_args).load()

    if header() != MAGIC_NUMBER:
        raise RuntimeError("torch.load: invalid magic number; not a PyTorch checkpoint, or a corrupt file")
    protocol = header()
    if protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"torch.load: invalid legacy protocol version: {protocol}")
    sys_info = header()
    little_endian = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    object_start = fileobj.tell()
    scanner = _StorageScanner(fileobj, **pickle_load_args)
    scanner.load()
    keys = header()
    count_format = "<q" if little_endian else ">q"
    swap = little_endian != (sys.byteorder == "little")
    storages = {}
    for key in keys:
        storage_type = scanner.storage_types.get(str(key))
        if storage_type is None:
            raise RuntimeError(f"torch.load: corrupt legacy checkpoint, storage {key} has no storage class")
        (numel,) = struct.unpack(count_format, fileobj.read(8))
        buffer = read_into(fileobj, numel * storage_type.itemsize)
        storages[str(key)] = storage_from_bytes(buffer, storage_type, None, swap)
    fileobj.seek(object_start)
    return make_unpickler(fileobj, _LegacyStorages(storages)).load()



# what torch records about the writing machine; `type_sizes` are those of torch's C types on x86-64/arm64
_SYS_INFO = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
             "type_sizes": {"short": 2, "int": 4, "long": 4}}


def write_legacy(fileobj, pickled, storages, protocol):
    """Write a legacy checkpoint: the headers, `pickled` (from `writer.pickle_with_storages(..., legacy=True)`,
    whose storage keys are the indices of `storages`), the key list, then each storage's element count
    (native byte order, as sys_info declares) and bytes."""
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, _SYS_INFO):
        pickle.dump(header, fileobj, protocol=protocol)
    fileobj.write(pickled)
    pickle.dump([str(key) for key in range(len(storages))], fileobj, protocol=protocol)
    for array in storages:
        fileobj.write(struct.pack("=q", array.size))
        fileobj.write(memoryview(np.ascontiguousarray(array).reshape(-1).view(np.uint8)))
