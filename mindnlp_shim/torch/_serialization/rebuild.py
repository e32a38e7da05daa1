"""What a checkpoint's storages and tensor rebuild calls become on load.

A torch checkpoint stores each tensor as a call `torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, hooks)`, where `storage` is a persistent id naming a record of raw bytes and a storage
class (`torch.FloatStorage`, ...) that gives the dtype. Here a storage is a flat NumPy array over the record's
bytes, and each rebuild function cuts the tensor's elements out of it and wraps them in a `mindspore.Tensor`.
"""
import pickle

import mindspore
import numpy as np

from .. import _dtype

_STORAGE_DTYPES = {name: dt for dt, name in _dtype.STORAGE_NAMES.items()}


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
    """One storage record of a checkpoint: a flat NumPy array of its dtype that owns a private copy of the
    bytes. The first tensor that covers it whole and contiguously takes the buffer without copying; every
    other view copies its elements, so no two loaded tensors alias memory behind MindSpore's back."""

    def __init__(self, array, dtype, location, claimable=True):
        self.array = array
        self.dtype = dtype
        self.location = location
        self._claimable = claimable

    # the parts of torch's storage API that map_location callables use
    @property
    def device(self):
        from .._device import PROCESS_DEVICE

        return PROCESS_DEVICE

    def size(self):
        return int(self.array.size)

    __len__ = size

    def nbytes(self):
        return int(self.array.nbytes)

    def element_size(self):
        return int(self.array.itemsize)

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        # Tensors live on the process's MindSpore device target whatever the checkpoint says.
        return self

    def to(self, *args, **kwargs):
        return self

    def sub_storage(self, offset, numel):
        """A legacy storage view: elements [offset, offset + numel) of this storage."""
        return LoadedStorage(self.array[offset:offset + numel], self.dtype, self.location, claimable=False)

    def take(self, dtype, offset, size, stride):
        """The elements of a tensor with this `dtype`, `size` and `stride` (in elements) starting at element
        `offset`, as a C-contiguous array that no other loaded tensor shares."""
        np_dtype = _dtype.to_numpy_dtype(dtype)
        flat = self.array if self.array.dtype == np_dtype else self.array.view(np_dtype)
        size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
        if len(size) != len(stride):
            raise RuntimeError(f"torch.load: corrupt checkpoint, size {size} and stride {stride} differ in length")
        numel = int(np.prod(size, dtype=np.int64))
        if numel == 0:
            return np.empty(size, dtype=np_dtype)
        last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if offset < 0 or min(stride, default=0) < 0 or last >= flat.size:
            raise RuntimeError(
                f"torch.load: corrupt checkpoint, a tensor of size {size}, stride {stride} and offset {offset} "
                f"does not fit its storage of {flat.size} elements")
        if self._claimable and offset == 0 and numel == flat.size and stride == contiguous_stride(size):
            self._claimable = False
            return flat.reshape(size)
        view = np.lib.stride_tricks.as_strided(flat[offset:], shape=size,
                                               strides=[s * flat.itemsize for s in stride], writeable=False)
        return np.array(view, order="C", copy=True)


def contiguous_stride(size):
    stride, step = [], 1
    for n in reversed(size):
        stride.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(stride))


def _as_tensor(array):
    return mindspore.Tensor.from_numpy(array)


def _mark_requires_grad(tensor, requires_grad):
    if requires_grad:
        tensor._requires_grad = True
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
    if metadata and any(metadata.values()):
        raise NotImplementedError(
            f"torch.load: tensors with the conj/neg bits set ({metadata}) are not supported on MindSpore")


# --- torch._utils rebuild functions ---------------------------------------------------------------------

def rebuild_tensor(storage, storage_offset, size, stride):
    _check_storage(storage)
    return _as_tensor(storage.take(storage.dtype, storage_offset, size, stride))


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    # Backward hooks are never serialized by torch (the OrderedDict is always empty); ignore them like it does.
    _check_storage(storage)
    _check_metadata(metadata)
    tensor = _as_tensor(storage.take(storage.dtype, storage_offset, size, stride))
    return _mark_requires_grad(tensor, requires_grad)


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    _check_storage(storage)
    _check_metadata(metadata)
    tensor = _as_tensor(storage.take(dtype, storage_offset, size, stride))
    return _mark_requires_grad(tensor, requires_grad)


def rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn.parameter import Parameter

    return Parameter(data, requires_grad=requires_grad)


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
