"""The reading side of torch.load shared by both file formats: storage persistent ids and the full unpickler.

`StorageResolver` turns a pickle's storage persistent ids into `LoadedStorage`s through the storages of the
file's format (`zip_checkpoint.ZipStorages`, `legacy.LegacyStorages`), applying `map_location` and torch's
location rules (`locations.py`); `CheckpointUnpickler` (`weights_only=False`) adds it to Python's unpickler and
resolves torch's globals to shim objects. The `weights_only=True` unpickler lives in `weights_only.py`.
"""
import operator
import pickle
import struct
import sys

import mindspore

from .. import _dtype
from . import locations, names
from .rebuild import STORAGE_TYPES, LoadedStorage, StorageType


class StorageResolver:
    """Mixin for an unpickler class: storage persistent ids are resolved by `storages` (the file format's) and
    handed to `map_location`."""

    def __init__(self, file, storages, map_location=None, **pickle_load_args):
        super().__init__(file, **pickle_load_args)
        self._storages = storages
        self._map_location = map_location

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid:
            raise pickle.UnpicklingError(f"torch.load: unsupported persistent id {pid!r:.200}")
        kind = locations.decode(pid[0])
        if kind == "storage":
            return self._storages.storage(pid[1:], self._restore)
        if kind == "module" and getattr(self._storages, "legacy", False) and len(pid) == 4:
            return pid[1]  # legacy files record a module class with its source code
        raise pickle.UnpicklingError(f"torch.load: unsupported persistent id kind {kind!r:.80}")

    def _restore(self, storage, location):
        return locations.restore(storage, location, self._map_location)

    def load_bytearray8(self):
        # pickle's own BYTEARRAY8 allocates the count the file gives before reading: read what is there first
        (size,) = struct.unpack("<Q", self.read(8))
        data = self.read(size)
        if len(data) != size:
            raise pickle.UnpicklingError("pickle data was truncated")
        self.append(bytearray(data))


class NoStorages:
    """For the pickles that hold no tensors (the legacy format's headers and key list)."""

    legacy = False

    def storage(self, fields, restore):
        raise pickle.UnpicklingError("torch.load: a storage persistent id outside the object pickle")


def refuse_bare_storages(result):
    """`result`, unless a storage itself (not a tensor over it) is in it: torch hands those out as its
    TypedStorage objects, which the shim does not have. Containers and object attributes are searched."""
    pending, seen = [result], set()
    while pending:
        obj = pending.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, mindspore.Tensor, type)):
            continue
        seen.add(id(obj))
        if isinstance(obj, LoadedStorage):
            raise NotImplementedError("torch.load: the checkpoint holds a storage object itself (torch.save of a "
                                      "storage, not of a tensor); torch's storage objects are not supported on "
                                      "MindSpore")
        if isinstance(obj, dict):
            pending.extend(obj.keys())
            pending.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            pending.extend(obj)
        attributes = getattr(obj, "__dict__", None)
        if isinstance(attributes, dict):
            pending.extend(attributes.values())
    return result


def storage_dtype(storage_type):
    if not isinstance(storage_type, StorageType):
        raise pickle.UnpicklingError(f"torch.load: corrupt checkpoint, {storage_type!r:.80} is not a storage class")
    return storage_type.dtype


def byte_count(count, itemsize, what="element count", negative=False):
    """`count` elements of `itemsize` bytes, for a count as torch takes it (an integer, a bool counting as one;
    a negative one only where `negative`: torch's meta storages take any size)."""
    if not hasattr(type(count), "__index__"):
        raise TypeError(f"torch.load: a storage's {what} must be an integer, got {type(count).__name__} "
                        f"{count!r:.40}")
    nbytes = operator.index(count) * itemsize
    if negative and nbytes < 0:
        return nbytes
    if not 0 <= nbytes < 2 ** 64:
        raise RuntimeError(f"torch.load: a storage's {what} {count} is out of range")
    return nbytes


_MEMO_LIMIT = 2 ** 24


class _Whole:
    """The read side of a pickle's file for the C unpickler's rules: a read or line the data cuts short is an
    error (Python's own unpickler takes what there is)."""

    def __init__(self, fileobj):
        self._file = fileobj

    def read(self, size=-1):
        data = self._file.read(size)
        if size is not None and 0 <= len(data) < size:
            raise pickle.UnpicklingError("pickle data was truncated")
        return data

    def readline(self, size=-1):
        line = self._file.readline(size)
        if not line.endswith(b"\n"):
            raise pickle.UnpicklingError("pickle data was truncated")
        return line


class CheckpointUnpickler(StorageResolver, pickle._Unpickler):
    """Unpickles a checkpoint's data.pkl with `weights_only=False`: torch globals resolve to the shim, any other
    global is imported (this runs whatever the file asks for: only for trusted files). As in torch, a typed
    storage class name ("FloatStorage", ...) is that storage class whatever module the pickle names.

    It runs on the pure-Python unpickler: the C one, which torch uses here, allocates what a damaged count asks
    for before reading it; the C one's checks are added (whole reads, tuples for REDUCE and NEWOBJ, its BUILD)."""

    def __init__(self, file, storages, map_location=None, **pickle_load_args):
        super().__init__(_Whole(file), storages, map_location, **pickle_load_args)

    def load_reduce(self):
        # the C unpickler's checks, which the pure-Python one leaves out
        if not isinstance(self.stack[-1], tuple):
            raise pickle.UnpicklingError("argument list must be a tuple")
        pickle._Unpickler.load_reduce(self)

    def load_newobj(self):
        self._check_new(self.stack[-2], self.stack[-1], {})
        pickle._Unpickler.load_newobj(self)

    def load_newobj_ex(self):
        self._check_new(self.stack[-3], self.stack[-2], self.stack[-1])
        pickle._Unpickler.load_newobj_ex(self)

    def load_long_binput(self):
        # the C unpickler makes room for every memo index up to this one (16 bytes each): a damaged index asks
        # for gigabytes, and a pickle with millions of objects to remember is none torch.save writes
        (index,) = struct.unpack("<I", self.read(4))
        if index >= _MEMO_LIMIT:
            raise pickle.UnpicklingError(f"torch.load: a pickle memo index of {index} (torch's unpickler would "
                                         f"allocate {16 * index} bytes for it)")
        self.memo[index] = self.stack[-1]

    def load_build(self):
        # the C unpickler's default BUILD: a state other than None must be a dict (set into the instance's
        # __dict__ even when empty), and a (state, slot state) pair's slot state a dict
        state = self.stack.pop()
        inst = self.stack[-1]
        setstate = getattr(inst, "__setstate__", None)
        if setstate is not None:
            setstate(state)
            return
        slots = isinstance(state, tuple) and len(state) == 2
        if slots:
            state, slotstate = state
        if state is not None:
            attributes = inst.__dict__
            if not isinstance(state, dict):
                raise pickle.UnpicklingError("state is not a dictionary")
            for key, value in state.items():
                attributes[sys.intern(key) if type(key) is str else key] = value
        if slots:
            if not isinstance(slotstate, dict):
                raise pickle.UnpicklingError("slot state is not a dictionary")
            for key, value in slotstate.items():
                setattr(inst, key, value)

    @staticmethod
    def _check_new(cls, args, kwargs):
        if not isinstance(cls, type):
            raise pickle.UnpicklingError("NEWOBJ class argument isn't a type object")
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise pickle.UnpicklingError("NEWOBJ expected an arg tuple and a kwargs dict")

    dispatch = {**pickle._Unpickler.dispatch, pickle.BYTEARRAY8[0]: StorageResolver.load_bytearray8,
                pickle.REDUCE[0]: load_reduce, pickle.NEWOBJ[0]: load_newobj, pickle.NEWOBJ_EX[0]: load_newobj_ex,
                pickle.BUILD[0]: load_build, pickle.LONG_BINPUT[0]: load_long_binput}

    def find_class(self, module, name):
        if type(name) is str and name in STORAGE_TYPES:
            return STORAGE_TYPES[name]
        module, name = names.py3_name(module, name)
        obj = names.torch_global(f"{module}.{name}")
        if obj is not None:
            return obj
        if module == "torch" or module.startswith("torch."):
            return names.shim_attribute(module, name)
        return super().find_class(module, name)


def byteswap(buffer, dtype):
    """Swap each element's bytes in place (a big-endian checkpoint on a little-endian machine, or back)."""
    array = buffer[:buffer.size // _dtype.ITEMSIZE[dtype] * _dtype.ITEMSIZE[dtype]].view(_dtype.to_numpy_dtype(dtype))
    if array.itemsize > 1:
        unit = array.itemsize // 2 if array.dtype.kind == "c" else array.itemsize
        array.view(f"u{unit}").byteswap(inplace=True)
