"""The writing side of torch.save: pickling with torch's tensor format, and the zip archive around it.

PyTorch's file is a zip archive (stored, uncompressed) with one folder `<name>/` holding
  data.pkl            the pickled object; each tensor is a call
                      `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`
                      whose storage is a persistent id `("storage", torch.<X>Storage, key, "cpu", numel)`
  data/<key>          the raw little-endian bytes of each storage, 64-byte aligned in the file
  byteorder, version, .storage_alignment
Our tensors are `mindspore.Tensor` objects and torch's functions and classes do not exist here, so the pickler
writes torch's global names as plain module/name strings (`GlobalName`) instead of looking objects up.
"""
import io
import os
import pickle
import secrets
import struct
import sys
import types
import zipfile
from collections import OrderedDict

import mindspore
import numpy as np

from .. import _dtype
from .._device import device as _Device
from .._size import Size as _Size
from .rebuild import contiguous_stride

_SHIM = __package__.rpartition(".")[0]  # "mindnlp_shim.torch"
STORAGE_ALIGNMENT = 64
FILE_FORMAT_VERSION = b"3\n"  # the record format version torch 2.x writes and reads

_CANONICAL_DTYPE_NAMES = {}
for _name, _dt in _dtype.TORCH_NAMES.items():  # canonical names come first in TORCH_NAMES
    _CANONICAL_DTYPE_NAMES.setdefault(_dt, _name)


class GlobalName:
    """Pickles as the global `module.name` without importing it: the names are torch's, whose objects do not
    exist in this process. Never called; pickle only requires reduce functions to be callable."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.module}.{self.name} is a name written into checkpoints, not a function here")

    def __repr__(self):
        return f"GlobalName({self.module}.{self.name})"


_global_names = {}


def global_name(module, name):
    """One GlobalName per global, so the pickle memo writes each global once."""
    key = (module, name)
    if key not in _global_names:
        _global_names[key] = GlobalName(module, name)
    return _global_names[key]


_REBUILD_V2 = global_name("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = global_name("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = global_name("torch._utils", "_rebuild_parameter")
_TORCH_DEVICE = global_name("torch", "device")
_TORCH_SIZE = global_name("torch", "Size")
_UNTYPED_STORAGE = global_name("torch.storage", "UntypedStorage")


class _StorageRecord:
    """Stands for one storage record in the pickle; written as its persistent id."""

    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


class _ParameterData:
    """A parameter's data, pickled as a plain tensor inside `_rebuild_parameter(data, requires_grad, hooks)`."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


_NOT_SPECIAL = frozenset({int, float, str, bytes, bool, type(None), tuple, list, dict, set, frozenset, complex,
                          OrderedDict})


def _is_parameter(tensor):
    return getattr(tensor, "_is_param", False) is True or isinstance(tensor, mindspore.Parameter)


def _requires_grad(tensor):
    if isinstance(tensor, mindspore.Parameter) and not getattr(tensor, "_is_param", False):
        return bool(tensor.requires_grad)
    return bool(getattr(tensor, "_requires_grad", False))


def _host_array(tensor):
    """The tensor's elements as a C-contiguous host array (a zero-copy view on the CPU target when possible)."""
    try:
        np_dtype = _dtype.to_numpy_dtype(tensor.dtype)
    except TypeError:
        raise NotImplementedError(f"torch.save: tensors of dtype {tensor.dtype!r} cannot be saved on MindSpore "
                                  "(the dtype has no NumPy equivalent to take its bytes from)") from None
    array = tensor.asnumpy()
    if array.dtype != np_dtype:
        raise RuntimeError(f"torch.save: a {tensor.dtype!r} tensor gave host data of NumPy dtype {array.dtype}")
    if not array.flags.c_contiguous:
        array = np.array(array, order="C", copy=True)
    return array


def _stock_dispatch():
    """The standard library's own type -> save method table. `pickle._Pickler.dispatch` itself is shared and
    gets extended by other libraries (dill, imported by MindSpore, routes `type`, `dict` and functions through
    its own functions), which would write globals such as `dill._dill._load_type` that torch cannot load."""
    stock = pickle._Pickler
    table = {type(None): stock.save_none, bool: stock.save_bool, int: stock.save_long, float: stock.save_float,
             bytes: stock.save_bytes, bytearray: stock.save_bytearray, str: stock.save_str,
             tuple: stock.save_tuple, list: stock.save_list, dict: stock.save_dict, set: stock.save_set,
             frozenset: stock.save_frozenset, types.FunctionType: stock.save_global, type: stock.save_type}
    if hasattr(pickle, "PickleBuffer"):
        table[pickle.PickleBuffer] = stock.save_picklebuffer
    return table


class TensorPickler(pickle._Pickler):
    """Pickles tensors, parameters, dtypes, devices and sizes the way torch does, and collects the storages.

    The pure-Python pickler is used because it lets `save_global` write a global from its name alone; it only
    handles the object tree (tensor bytes go to separate records), so its speed does not matter.
    """

    dispatch = _stock_dispatch()

    def __init__(self, file, protocol, legacy=False):
        super().__init__(file, protocol)
        self.storages = []  # C-contiguous host arrays; record key = index
        self.legacy = legacy  # the pre-1.6 format's storage ids carry a sixth field (view metadata, None)

    def persistent_id(self, obj):
        return obj.pid if type(obj) is _StorageRecord else None

    def reducer_override(self, obj):
        cls = type(obj)
        if cls in _NOT_SPECIAL:
            return NotImplemented
        if cls is GlobalName:
            return obj.name  # a string: pickle saves obj through save_global
        if isinstance(obj, mindspore.Tensor):
            if _is_parameter(obj):
                return (_REBUILD_PARAMETER, (_ParameterData(obj), _requires_grad(obj), OrderedDict()))
            return self._reduce_tensor(obj, _requires_grad(obj))
        if cls is _ParameterData:
            return self._reduce_tensor(obj.tensor, False)
        if isinstance(obj, _dtype.dtype):
            if obj not in _CANONICAL_DTYPE_NAMES:
                raise NotImplementedError(f"torch.save: the MindSpore dtype {obj} has no torch equivalent")
            return _CANONICAL_DTYPE_NAMES[obj]
        if cls is _Device:
            return (_TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if cls is _Size:
            return (_TORCH_SIZE, (tuple(obj),))
        return NotImplemented

    def _reduce_tensor(self, tensor, requires_grad):
        array = _host_array(tensor)
        key = str(len(self.storages))
        self.storages.append(array)
        size = tuple(int(n) for n in tensor.shape)
        args = (0, size, contiguous_stride(size), requires_grad, OrderedDict())
        storage_name = _dtype.STORAGE_NAMES.get(tensor.dtype)
        if storage_name is not None:
            pid = ("storage", global_name("torch", storage_name), key, "cpu", int(array.size))
            if self.legacy:
                pid += (None,)
            return (_REBUILD_V2, (_StorageRecord(pid),) + args)
        if self.legacy:
            raise NotImplementedError(f"torch.save(_use_new_zipfile_serialization=False): {tensor.dtype!r} tensors "
                                      "have no typed storage class for the legacy format (PyTorch cannot load "
                                      "them back from it either); use the default zip format")
        # dtypes without a typed storage class (uint16/32/64) go through an untyped (byte) storage
        pid = ("storage", _UNTYPED_STORAGE, key, "cpu", int(array.nbytes))
        return (_REBUILD_V3, (_StorageRecord(pid),) + args + (tensor.dtype,))

    def save_global(self, obj, name=None):
        target = self._torch_name(obj, name)
        if target is None:
            return super().save_global(obj, name)
        module, qualname = target
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + qualname.encode("utf-8") + b"\n")
        self.memoize(obj)

    @staticmethod
    def _torch_name(obj, name):
        """torch's module/name for a GlobalName, a dtype, or an object defined in the shim's torch package."""
        if type(obj) is GlobalName:
            return obj.module, obj.name
        if isinstance(obj, _dtype.dtype):
            return "torch", name or _CANONICAL_DTYPE_NAMES[obj]
        module = getattr(obj, "__module__", None) or ""
        # the shim's classes carry torch's module name once it is installed, its functions the shim's
        for prefix in (_SHIM, "torch"):
            if module == prefix or module.startswith(prefix + "."):
                module = "torch" + module[len(prefix):]
                break
        else:
            return None
        qualname = name or getattr(obj, "__qualname__", None) or obj.__name__
        # prefer the public name (torch.device) over the defining module (torch._device.device)
        top = sys.modules.get(_SHIM)
        if top is not None and getattr(top, qualname, None) is obj:
            return "torch", qualname
        return module, qualname


def pickle_with_storages(obj, protocol, legacy=False):
    """(data.pkl bytes, list of storage arrays); `legacy` for the pre-1.6 file format's storage ids."""
    buffer = io.BytesIO()
    pickler = TensorPickler(buffer, protocol, legacy)
    pickler.dump(obj)
    return buffer.getvalue(), pickler.storages


# --- the zip archive -------------------------------------------------------------------------------------

def archive_name(f):
    """torch names the archive folder after the file (without extension), or "archive" for file objects."""
    if isinstance(f, (str, bytes, os.PathLike)):
        base = os.path.basename(os.fsdecode(os.fspath(f)))
        return os.path.splitext(base)[0] or "archive"
    return "archive"


def _write_record(zf, path, data, align=False):
    data = memoryview(data).cast("B")
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = len(data)
    zip64 = len(data) * 1.05 > zipfile.ZIP64_LIMIT  # the same rule zipfile applies when opening for writing
    if align:
        # Pad the local header's extra field so the record's bytes start on a STORAGE_ALIGNMENT boundary
        # (torch.load(mmap=True) maps storages straight from the file). Header: 30 bytes, the name, our
        # extra field (4 bytes + padding) and zipfile's own zip64 field (20 bytes) when the record needs it.
        header_end = zf.fp.tell() + 30 + len(path.encode("utf-8")) + 4 + (20 if zip64 else 0)
        pad = -header_end % STORAGE_ALIGNMENT
        info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # extra field id "FB", as torch's writer uses
    with zf.open(info, "w", force_zip64=zip64) as out:
        out.write(data)


def write_archive(fileobj, name, pickled, storages):
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f"{name}/data.pkl", pickled)
        _write_record(zf, f"{name}/.storage_alignment", str(STORAGE_ALIGNMENT).encode())
        _write_record(zf, f"{name}/byteorder", sys.byteorder.encode())
        for key, array in enumerate(storages):
            _write_record(zf, f"{name}/data/{key}", array.reshape(-1).view(np.uint8), align=True)
        _write_record(zf, f"{name}/version", FILE_FORMAT_VERSION)


def write_to(f, write):
    """Call `write(binary_file)` on `f`. A path is written atomically: into a temporary file beside it that
    replaces the path only once complete, so a failure never leaves a half-written checkpoint behind."""
    if not isinstance(f, (str, bytes, os.PathLike)):
        if not hasattr(f, "write"):
            raise TypeError(f"torch.save: expected a path or a writable binary file object, got {type(f).__name__}")
        write(f)
        return
    path = os.path.realpath(os.fsdecode(os.fspath(f)))  # write through symlinks, like opening the path would
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    temp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    try:
        with open(temp, "xb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
