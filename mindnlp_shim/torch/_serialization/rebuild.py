"""What a checkpoint's storages and tensor rebuild calls become on load.

A torch checkpoint stores each tensor as a call `torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, hooks)`, where `storage` is a persistent id naming a record of raw bytes and a storage
class (`torch.FloatStorage`, ...) that gives the dtype. Here a storage is a NumPy byte array holding the
record's bytes, and each rebuild call gives a `mindspore.Tensor` over that memory with the call's sizes,
strides and storage offset, checked as torch's `Tensor.set_` checks them. Tensors of one storage share it as
in torch (tied weights, a view saved with its base): the first tensor that covers the storage whole and
contiguously is a plain tensor over the buffer, and every other one is a MindSpore strided view of that tensor
(or, when none came first, of a flat tensor over the buffer), so a write through one is seen by the others.
"""
import operator
import pickle

import mindspore
import numpy as np
from mindspore import ops

from ... import _mindspore as _ms
from .. import _dtype, _leaf_grads

_STORAGE_DTYPES = {name: dt for dt, name in _dtype.STORAGE_NAMES.items()}
_INT64 = 2 ** 63


class StorageType:
    """What a pickled storage class (`torch.FloatStorage`, `torch.storage.UntypedStorage`) resolves to."""

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype

    @property
    def itemsize(self):
        return _dtype.ITEMSIZE[self.dtype]

    def __repr__(self):
        return f"torch.{self.name}"


STORAGE_TYPES = {name: StorageType(name, dt) for name, dt in _STORAGE_DTYPES.items()}
# Untyped storages count bytes; the tensor's dtype then comes with the rebuild call (_rebuild_tensor_v3).
UNTYPED_STORAGE = StorageType("UntypedStorage", mindspore.uint8)


class LoadedStorage:
    """One storage of a checkpoint: `buffer`, a 1-d uint8 NumPy array over its bytes, the dtype its storage
    class names, its location tag, and the MindSpore tensors the tensors over it are views of (per dtype
    they read it as)."""

    def __init__(self, buffer, dtype, location, grow=None):
        self.buffer = buffer
        self.dtype = dtype
        self.location = location
        self.meta = False  # restored to the meta device: its tensors report it
        self._bases = {}
        # legacy and meta storages can grow, as torch's do when a tensor needs more than the pickle's count:
        # `grow(storage, nbytes)` enlarges the buffer (possible only before any tensor is made over it)
        self.grow = grow

    def typed(self, dtype):
        """The bytes read as `dtype`, flat (a view, as many whole elements as fit)."""
        itemsize = _dtype.ITEMSIZE[dtype]
        return self.buffer[:self.buffer.size // itemsize * itemsize].view(_dtype.to_numpy_dtype(dtype))

    @property
    def array(self):
        return self.typed(self.dtype)

    # the parts of torch's storage API that map_location callables use
    @property
    def device(self):
        from .._device import PROCESS_DEVICE

        return PROCESS_DEVICE

    def size(self):
        return self.nbytes() // _dtype.ITEMSIZE[self.dtype]

    __len__ = size

    def nbytes(self):
        return int(self.buffer.size)

    def element_size(self):
        return _dtype.ITEMSIZE[self.dtype]

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        # Tensors live on the process's MindSpore device target whatever the checkpoint says.
        return self

    def to(self, *args, **kwargs):
        return self

    def sub_storage(self, start, stop):
        """Bytes [start, stop) as a storage of their own over the same memory (the storage views of files
        written by torch < 0.4)."""
        if not 0 <= start <= stop <= self.nbytes():
            raise RuntimeError(f"torch.load: a storage view of bytes [{start}, {stop}) does not fit its storage "
                               f"of {self.nbytes()} bytes")
        return LoadedStorage(self.buffer[start:stop], self.dtype, self.location)

    def tensor(self, dtype, offset, size, stride):
        """A tensor of `dtype` over this storage with torch's sizes, strides and storage offset (in elements)."""
        size, stride, offset, needed = geometry(size, stride, offset, _dtype.ITEMSIZE[dtype], self.meta)
        if needed > self.nbytes():
            if self.grow is None or self._bases:
                raise RuntimeError(
                    f"torch.load: a tensor of size {list(size)}, stride {list(stride)} and storage offset {offset} "
                    f"needs {needed} bytes of its storage, which holds {self.nbytes()}" + (
                        " (torch: Trying to resize storage that is not resizable)" if self.grow is None else
                        "; torch grows a legacy storage to fit, which the shim can do only before another tensor "
                        "uses it"))
            self.grow(self, needed)
        numel = int(np.prod(size, dtype=object))
        base = self._bases.get(dtype)
        if base is None and not self._bases and dtype == self.dtype and numel and offset == 0 \
                and numel * _dtype.ITEMSIZE[dtype] == self.nbytes() and stride == contiguous_stride(size):
            tensor = self._bases[dtype] = mindspore.Tensor.from_numpy(self.typed(dtype).reshape(size))
        else:
            if base is None:
                base = self._bases[dtype] = mindspore.Tensor.from_numpy(self.typed(dtype))
            try:
                tensor = _ms.as_strided(ops.stop_gradient(base), size, stride, offset)
            except (RuntimeError, ValueError, TypeError) as exc:
                raise RuntimeError(f"torch.load: a tensor of size {list(size)}, stride {list(stride)} and storage "
                                   f"offset {offset} cannot be made over its storage on MindSpore ({exc})") from exc
        if self.meta:
            tensor._is_meta = True  # (the shim's meta tensors: real memory, labelled meta)
        return tensor


def _index(value, what, bool_too=False):
    """An integer argument as torch's `Tensor.set_` takes it: an int or an object with __index__, within int64;
    a bool only where torch's argument parser takes one (after the first element of a size or stride)."""
    if (isinstance(value, bool) and not bool_too) or not hasattr(type(value), "__index__"):
        raise TypeError(f"torch.load: a tensor's {what} must be integers, got {type(value).__name__} {value!r:.40}")
    value = operator.index(value)
    if not -_INT64 <= value < _INT64:
        raise TypeError(f"torch.load: a tensor's {what} overflow int64 ({value})")
    return value


def geometry(size, stride, offset, itemsize, meta=False):
    """(size, stride, offset, bytes of storage needed) as torch's `Tensor.set_` accepts them, or its error. An
    empty tensor needs no bytes and takes any offset; for it, and for any tensor on the meta device, torch
    computes negative strides (those of a contiguous tensor from that dimension on)."""
    for value, what in ((size, "sizes"), (stride, "strides")):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"torch.load: a tensor's {what} must be a tuple of integers, got "
                            f"{type(value).__name__}")
    size = tuple(_index(n, "sizes", i > 0) for i, n in enumerate(size))
    stride = tuple(_index(n, "strides", i > 0) for i, n in enumerate(stride))
    offset = _index(offset, "storage offset")
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"torch.load: a tensor has a negative size {list(size)}")
    numel = int(np.prod(size, dtype=object))
    if numel >= _INT64:
        raise RuntimeError(f"torch.load: a tensor's size {list(size)} overflows int64")
    if numel == 0 or meta:
        computed = []
        for n, s in zip(reversed(size), reversed(stride)):
            computed.append(s if s >= 0 else (computed[-1] * max(last, 1) if computed else 1))
            last = n
        stride = tuple(reversed(computed))
    if numel == 0:
        return size, stride, offset, 0
    needed = (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * itemsize
    if meta and needed >= _INT64:  # (torch's meta storages take any size; the shim's hold memory)
        raise RuntimeError(f"torch.load: meta storages claim more bytes than the file holds (a tensor of size "
                           f"{list(size)} and stride {list(stride)} needs {needed})")
    if any(s < 0 for s in stride) or needed >= _INT64:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    return size, stride, offset, needed


def contiguous_stride(size):
    stride, step = [], 1
    for n in reversed(size):
        stride.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(stride))


def _as_tensor(array):
    return mindspore.Tensor.from_numpy(array)


def _bool_flag(requires_grad, where):
    if type(requires_grad) is not bool:
        raise RuntimeError(f"requires_grad must be a bool ({where} was given {type(requires_grad).__name__} "
                           f"{requires_grad!r:.40})")
    return requires_grad


def _mark_requires_grad(tensor, requires_grad):
    # torch sets `tensor.requires_grad`, which takes a bool only, and only for floating and complex dtypes
    if _bool_flag(requires_grad, "a tensor in the checkpoint"):
        if tensor.dtype not in _dtype.FLOATING and tensor.dtype not in _dtype.COMPLEX:
            raise RuntimeError(f"only Tensors of floating point and complex dtype can require gradients (the "
                               f"checkpoint marks a {tensor.dtype!r} tensor)")
        tensor._requires_grad = True
        _leaf_grads.mark(tensor)
    return tensor


def _check_storage(storage):
    if not isinstance(storage, LoadedStorage):
        raise TypeError(f"torch.load: expected a storage from the checkpoint, got {type(storage).__name__}")


def _check_tensor(obj, where):
    # Rebuild functions only give state to the tensors the checkpoint itself built, never to another object
    # the pickle can name (a dtype, a class, a layout).
    if not isinstance(obj, mindspore.Tensor):
        raise pickle.UnpicklingError(f"torch.load: {where} expects a tensor, but the checkpoint gives a "
                                     f"{type(obj).__module__}.{type(obj).__qualname__}")


def _check_metadata(metadata):
    if not metadata:
        return
    if not isinstance(metadata, dict):
        raise TypeError(f"torch.load: tensor metadata must be a dict, got {type(metadata).__name__}")
    if any(metadata.values()):
        raise NotImplementedError(
            f"torch.load: tensors with the conj/neg bits set ({metadata}) are not supported on MindSpore")


def _check_dtype(dtype):
    if not isinstance(dtype, _dtype.dtype) or dtype not in _dtype.ITEMSIZE:
        raise TypeError(f"torch.load: _rebuild_tensor_v3 needs a dtype, the checkpoint gives {dtype!r:.60}")


# --- torch._utils rebuild functions ---------------------------------------------------------------------

def rebuild_tensor(storage, storage_offset, size, stride):
    _check_storage(storage)
    return storage.tensor(storage.dtype, storage_offset, size, stride)


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    # Backward hooks are never serialized by torch (the OrderedDict is always empty); ignore them like it does.
    _check_storage(storage)
    tensor = _mark_requires_grad(storage.tensor(storage.dtype, storage_offset, size, stride), requires_grad)
    _check_metadata(metadata)
    return tensor


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    _check_storage(storage)
    _check_dtype(dtype)
    tensor = _mark_requires_grad(storage.tensor(dtype, storage_offset, size, stride), requires_grad)
    _check_metadata(metadata)
    return tensor


def rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn.parameter import Parameter

    _check_tensor(data, "torch._utils._rebuild_parameter")
    if type(requires_grad) is not bool:
        raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                        f"{type(requires_grad).__name__}")
    param = Parameter(data, requires_grad=requires_grad)
    if getattr(data, "_is_meta", False):
        param._is_meta = True
    return param


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = rebuild_parameter(data, requires_grad, backward_hooks)
    _set_python_state(param, state)
    return param


def rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    # The device is the process's MindSpore target whatever the checkpoint names.
    _check_tensor(data, "torch._utils._rebuild_device_tensor_from_cpu_tensor")
    return _mark_requires_grad(data, requires_grad)


def rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    array = np.array(data, dtype=_dtype.to_numpy_dtype(dtype), order="C", copy=True)
    return _mark_requires_grad(_as_tensor(array), requires_grad)


def rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: a tensor carrying Python attributes (or of a subclass)."""
    tensor = func(*args)
    _check_tensor(tensor, "torch._tensor._rebuild_from_type_v2")
    if not isinstance(tensor, new_type):
        raise NotImplementedError(
            f"torch.load: tensor subclass {getattr(new_type, '__qualname__', new_type)!r} is not supported on "
            "MindSpore (tensors are mindspore.Tensor objects)")
    _set_python_state(tensor, state)
    return tensor


def _set_python_state(obj, state):
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for mapping in (state, slots):
        for name, value in (mapping or {}).items():
            setattr(obj, name, value)


def _unsupported(kind):
    def rebuild(*args, **kwargs):
        raise NotImplementedError(f"torch.load: {kind} are not supported on MindSpore")

    rebuild.__name__ = f"unsupported_{kind.replace(' ', '_')}"
    return rebuild


# torch._utils name -> our implementation
TORCH_UTILS = {
    "_rebuild_tensor": rebuild_tensor,
    "_rebuild_tensor_v2": rebuild_tensor_v2,
    "_rebuild_tensor_v3": rebuild_tensor_v3,
    "_rebuild_parameter": rebuild_parameter,
    "_rebuild_parameter_with_state": rebuild_parameter_with_state,
    "_rebuild_device_tensor_from_cpu_tensor": rebuild_device_tensor_from_cpu_tensor,
    "_rebuild_device_tensor_from_numpy": rebuild_device_tensor_from_numpy,
    "_rebuild_qtensor": _unsupported("quantized tensors"),
    "_rebuild_sparse_tensor": _unsupported("sparse tensors"),
    "_rebuild_nested_tensor": _unsupported("nested tensors"),
    "_rebuild_wrapper_subclass": _unsupported("wrapper tensor subclasses"),
    "_rebuild_meta_tensor_no_storage": _unsupported("meta tensors"),
}
