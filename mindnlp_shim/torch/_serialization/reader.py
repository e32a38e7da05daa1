"""The reading side of torch.load: the storage ids of a checkpoint's pickle, the full unpickler and the zip
archive format.

`StorageResolver` turns a pickle's storage persistent ids into `LoadedStorage`s; `CheckpointUnpickler`
(`weights_only=False`) adds it to Python's C unpickler and resolves torch's globals to shim objects. The
`weights_only=True` unpickler lives in `weights_only.py`.
"""
import io
import pickle
import sys
import zipfile

import numpy as np

from .. import _dtype
from . import names
from .rebuild import LoadedStorage, StorageType


class StorageResolver:
    """Mixin for an unpickler class: storage persistent ids are read from `storages` (zip records or legacy
    data), once per key, and handed to `map_location`."""

    def __init__(self, file, storages, map_location=None, **pickle_load_args):
        super().__init__(file, **pickle_load_args)
        self._storages = storages
        self._map_location = map_location
        self._loaded = {}  # key -> LoadedStorage, so tensors sharing a storage read it once

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid:
            raise pickle.UnpicklingError(f"torch.load: unsupported persistent id {pid!r}")
        if pid[0] == "storage":
            return self._storage(*pid[1:])
        if pid[0] == "module" and len(pid) == 4:  # legacy files record a module class with its source code
            return pid[1]
        raise pickle.UnpicklingError(f"torch.load: unsupported persistent id kind {pid[0]!r}")

    def _storage(self, storage_type, key, location, numel, view_metadata=None):
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"torch.load: corrupt checkpoint, {storage_type!r} is not a storage class")
        storage = self._loaded.get(key)
        if storage is None:
            storage = self._apply_map_location(self._storages.read(str(key), storage_type, numel, location), location)
            self._loaded[key] = storage
        if view_metadata is not None:  # storage views of files written by torch < 0.4
            view_key, offset, view_numel = view_metadata
            if view_key not in self._loaded:
                self._loaded[view_key] = storage.sub_storage(offset, view_numel)
            return self._loaded[view_key]
        return storage

    def _apply_map_location(self, storage, location):
        # A string, torch.device or dict names where tensors should go; tensors are created on the process's
        # MindSpore device target regardless, so only a callable has something to do here.
        map_location = self._map_location
        if map_location is None or isinstance(map_location, (str, dict)) or not callable(map_location):
            return storage
        result = map_location(storage, location)
        if result is None:
            return storage
        if not isinstance(result, LoadedStorage):
            raise NotImplementedError(
                f"torch.load: map_location returned a {type(result).__name__}; on MindSpore it may only return "
                "the storage it was given (or None)")
        return result


class CheckpointUnpickler(StorageResolver, pickle.Unpickler):
    """Unpickles a checkpoint's data.pkl with `weights_only=False`: torch globals resolve to the shim, any other
    global is imported (this runs whatever the file asks for: only for trusted files)."""

    def find_class(self, module, name):
        module, name = names.py3_name(module, name)
        obj = names.torch_global(f"{module}.{name}")
        if obj is not None:
            return obj
        if module == "torch" or module.startswith("torch."):
            return names.shim_attribute(module, name)
        return super().find_class(module, name)


# --- zip archives ----------------------------------------------------------------------------------------

def _byteswap(array):
    if array.itemsize > 1:
        unit = array.itemsize // 2 if array.dtype.kind == "c" else array.itemsize
        array.view(f"u{unit}").byteswap(inplace=True)
    return array


def read_into(stream, nbytes, chunk=1 << 24):
    """Read exactly `nbytes` from `stream` into a new bytearray, in chunks (no second full-size copy)."""
    buffer = bytearray(nbytes)
    view = memoryview(buffer)
    filled = 0
    while filled < nbytes:
        piece = stream.read(min(chunk, nbytes - filled))
        if not piece:
            raise RuntimeError(f"torch.load: checkpoint truncated ({filled} of {nbytes} bytes of a storage)")
        view[filled:filled + len(piece)] = piece
        filled += len(piece)
    return buffer


def storage_from_bytes(buffer, storage_type, location, swap):
    array = np.frombuffer(buffer, dtype=_dtype.to_numpy_dtype(storage_type.dtype))
    if swap:
        if storage_type.name == "UntypedStorage":
            raise NotImplementedError("torch.load: byte-swapping untyped storages of a big-endian checkpoint")
        _byteswap(array)
    return LoadedStorage(array, storage_type.dtype, location)


class ZipStorages:
    """The `data/<key>` records of a zip checkpoint."""

    def __init__(self, zf, prefix, swap):
        self._zf, self._prefix, self._swap = zf, prefix, swap

    def read(self, key, storage_type, numel, location):
        name = f"{self._prefix}data/{key}"
        try:
            info = self._zf.getinfo(name)
        except KeyError:
            raise RuntimeError(f"torch.load: corrupt checkpoint, storage record {name} is missing") from None
        expected = int(numel) * storage_type.itemsize
        if info.file_size != expected:
            raise RuntimeError(f"torch.load: corrupt checkpoint, record {name} holds {info.file_size} bytes, "
                               f"expected {expected} ({numel} x {storage_type!r})")
        with self._zf.open(info) as stream:
            buffer = read_into(stream, info.file_size)
        return storage_from_bytes(buffer, storage_type, location, self._swap)


def _archive_prefix(zf):
    pickles = [n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
    if not pickles:
        if any(n.endswith("/constants.pkl") for n in zf.namelist()):
            raise NotImplementedError("torch.load: this is a TorchScript archive (torch.jit.save); TorchScript is "
                                      "not supported on MindSpore")
        raise RuntimeError("torch.load: not a PyTorch checkpoint (the zip archive has no <name>/data.pkl record)")
    return pickles[0][: -len("data.pkl")]


def load_zip(fileobj, make_unpickler):
    """Load a zip checkpoint; `make_unpickler(file, storages)` builds the unpickler for data.pkl."""
    with zipfile.ZipFile(fileobj) as zf:
        prefix = _archive_prefix(zf)
        byteorder = "little"
        if f"{prefix}byteorder" in zf.NameToInfo:
            byteorder = zf.read(f"{prefix}byteorder").decode("ascii", "replace").strip()
            if byteorder not in ("little", "big"):
                raise ValueError(f"Unknown endianness type: {byteorder}")
        storages = ZipStorages(zf, prefix, swap=byteorder != sys.byteorder)
        unpickler = make_unpickler(io.BytesIO(zf.read(f"{prefix}data.pkl")), storages)
        return unpickler.load()
