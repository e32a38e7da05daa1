"""Ops that address a tensor's storage directly, by sizes, strides and an offset: as_strided (a view: MindSpore's
AsStrided shares the memory), as_strided_ / resize_ / resize_as_ / set_ (the receiver takes a new geometry or
another tensor's storage in place), as_strided_copy, as_strided_scatter, and the deprecated autograd
Tensor.resize / resize_as (a reshape that keeps the element count).

MindSpore's AsStrided computes values and shares memory, but its CPU gradient is zero; inside autograd the
result's gradient comes from a gather of the input's own elements by storage position, and the view's memory
is then swapped in (as indexing views do), so reads alias and gradients are torch's. Growing a storage
(resize_ or set_ past its end) resizes MindSpore's storage object, which every view of it shares, as torch's
StorageImpl is shared; the old bytes are copied over first because MindSpore's resize does not keep them."""
import ctypes
import math
import warnings

import mindspore
import numpy as np
from mindspore import ops
from ..._mindspore import TensorPy

from .. import _autograd_views, _dtype, _inplace, _memory
from .._runtime import ON_CPU
from . import indexing, placement
from ._util import Tensor, c_type_name, shape_arg, write_out
from ... import _mindspore as _ms

__all__ = ["as_strided", "as_strided_", "as_strided_copy", "as_strided_scatter", "resize_as_"]


def _storage(t):
    return _ms.untyped_storage(t)


def _contiguous_strides(size):
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


_positions = _memory.positions


def _check_geometry(source, size, stride, offset):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = _dtype.ITEMSIZE[source.dtype]
    needed = 0 if 0 in size else (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * itemsize
    return needed, itemsize


def _in_bounds(source, size, stride, offset):
    needed, itemsize = _check_geometry(source, size, stride, offset)
    have = _storage(source).nbytes()
    if needed > have:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage "
                           f"of size {have}")


def _grow_storage(tensor, nbytes, name):
    """Enlarge `tensor`'s storage (shared with all its views) to `nbytes`, keeping its bytes."""
    storage = _storage(tensor)
    old = storage.nbytes()
    if nbytes <= old:
        return
    if not ON_CPU:
        raise NotImplementedError(f"torch.Tensor.{name} growing a tensor's storage is supported by mindnlp-shim on "
                                  f"MindSpore's CPU target only")
    kept = ctypes.string_at(storage.data_ptr(), old) if old else b""
    storage.resize_(nbytes)
    if kept:
        ctypes.memmove(storage.data_ptr(), kept, old)


def _take_geometry(tensor, source, size, stride, offset):
    """`tensor` reads `source`'s storage with the given geometry from now on (identity, .grad, hooks kept)."""
    _inplace.swap_data(tensor, _ms.as_strided(ops.stop_gradient(source), size, stride, offset))
    return tensor


# ---------------------------------------------------------------- as_strided and its forms
def as_strided(input, size, stride, storage_offset=None):
    size, stride = shape_arg((size,)), shape_arg((stride,))
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    _in_bounds(input, size, stride, offset)
    view = _ms.as_strided(ops.stop_gradient(input), size, stride, offset)
    if not (_autograd_views._tracked(input) and (input.dtype in _dtype.FLOATING or input.dtype in _dtype.COMPLEX)):
        return view
    own = _positions(tuple(input.shape), input.stride(), input.storage_offset())
    if len(np.unique(own)) != own.size:
        raise NotImplementedError("torch.as_strided of a tensor whose elements share memory (an expanded tensor) "
                                  "inside autograd is not supported by mindnlp-shim: call it on a clone()")
    wanted = _positions(size, stride, offset)
    order = np.argsort(own)
    found = np.clip(np.searchsorted(own, wanted, sorter=order), 0, own.size - 1)
    element = order[found]
    inside = own[element] == wanted  # (memory outside the input's elements takes no gradient, as in torch)
    out = indexing.index_select(input.reshape(-1), 0, Tensor(np.where(inside, element, 0))).reshape(size)
    if not inside.all():
        out = ops.mul(out, Tensor(inside.reshape(size)).astype(out.dtype))
    _inplace.swap_storage_only(out, view)  # the gather's node, the view's memory
    # made again after a write outside the graph (`_autograd_views.refresh`): MindSpore regenerates the node of
    # this AsStrided memory then, whose backward gives zeros (float32) or fails (bfloat16's index kernel)
    _autograd_views.register(input, out, remake=lambda source: as_strided(source, size, stride, offset))
    return out


def as_strided_(self, size, stride, storage_offset=None):
    if _autograd_views._tracked(self):
        if self._is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise NotImplementedError("torch.Tensor.as_strided_ on a tensor inside the autograd graph is not supported "
                                  "by mindnlp-shim (its node cannot be replaced in place): use as_strided")
    size, stride = shape_arg((size,)), shape_arg((stride,))
    offset = self.storage_offset() if storage_offset is None else int(storage_offset)
    _in_bounds(self, size, stride, offset)
    return _take_geometry(self, self, size, stride, offset)


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):
    if out is not None:
        # (torch's out= form of this copy takes an input that requires grad, and no other dtype)
        return write_out(out, as_strided_copy(input, size, stride, storage_offset), "as_strided_copy", exact=True,
                         differentiable=False)
    from .._tensor import clone

    return clone(as_strided(input, size, stride, storage_offset))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of `input` with `src` written at the positions `input.as_strided(size, stride, offset)` reads
    (positions of the copy's contiguous storage); src must have exactly that view's size."""
    size, stride = shape_arg((size,)), shape_arg((stride,))
    offset = 0 if storage_offset is None else int(storage_offset)
    if not input.is_contiguous():
        raise NotImplementedError("torch.as_strided_scatter of a non-contiguous input is not supported by "
                                  "mindnlp-shim (its copy's layout decides the positions): pass input.contiguous()")
    needed, itemsize = _check_geometry(input, size, stride, offset)
    if needed > input.numel() * itemsize:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage "
                           f"of size {input.numel() * itemsize}")
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(size)}")
    positions = _positions(size, stride, offset)
    values = src.reshape(-1)
    if values.dtype != input.dtype:
        values = values.to(input.dtype)
    _, last = np.unique(positions[::-1], return_index=True)
    if last.size != positions.size:  # overlapping positions: the last element in C order is written, as in torch
        if _autograd_views._tracked(src):
            raise NotImplementedError("torch.as_strided_scatter into overlapping positions (a stride of 0) with a "
                                      "src that requires grad is not supported by mindnlp-shim")
        keep = np.sort(positions.size - 1 - last)
        positions = positions[keep]
        values = indexing.index_select(values, 0, Tensor(keep))
    flat = placement.index_put(input.reshape(-1), (Tensor(positions),), values)
    return flat.reshape(tuple(input.shape))


# ---------------------------------------------------------------- the receiver's size or storage, in place
def resize_(self, *size, memory_format=None):
    size = shape_arg(size)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    _check_memory_format(memory_format, "resize_")
    if size == tuple(self.shape):
        return self  # (torch keeps the strides of a same-size resize)
    offset, itemsize = self.storage_offset(), _dtype.ITEMSIZE[self.dtype]
    _grow_storage(self, (offset + math.prod(size)) * itemsize, "resize_")
    return _take_geometry(self, self, size, _contiguous_strides(size), offset)


def resize_as_(input, the_template, *, memory_format=None):
    return resize_(input, tuple(the_template.shape), memory_format=memory_format)


def _check_memory_format(memory_format, name):
    label = getattr(memory_format, "name", None) or (None if memory_format is None else str(memory_format))
    if label is not None and not label.replace("torch.", "") in ("contiguous_format", "preserve_format"):
        raise NotImplementedError(f"torch.Tensor.{name}(memory_format={label}) is not supported by mindnlp-shim: "
                                  f"only the contiguous layout")


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """set_(): an empty tensor; set_(tensor): share its storage, size and strides; set_(tensor or storage,
    offset, size, stride): that geometry of its storage (grown if it reaches past the end, as torch grows it)."""
    if _autograd_views._tracked(self) and self._is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if _autograd_views._tracked(self) or (isinstance(source, Tensor) and _autograd_views._tracked(source)):
        raise NotImplementedError("torch.Tensor.set_ inside the autograd graph is not supported by mindnlp-shim")
    if source is None:
        _inplace.swap_data(self, _ms.zeros((0,), self.dtype))
        return self
    if not isinstance(source, Tensor):
        source = _storage_tensor(source, self.dtype)
    if source.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {c_type_name(source.dtype)} to a tensor of "
                           f"type {c_type_name(self.dtype)}")
    if size is None:
        if isinstance(source, _StorageTensor):
            source = source.tensor
        _inplace.swap_data(self, source)
        return self
    size = shape_arg((size,))
    stride = _contiguous_strides(size) if stride is None or len(stride) == 0 else shape_arg((stride,))
    source = getattr(source, "tensor", source)
    needed, _ = _check_geometry(source, size, stride, int(storage_offset))
    _grow_storage(source, needed, "set_")
    return _take_geometry(self, source, size, stride, int(storage_offset))


class _StorageTensor:
    """The whole storage behind a shim `UntypedStorage`, as a 1-d tensor of `dtype` (set_(storage) reads it)."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.dtype = tensor.dtype


def _storage_tensor(storage, dtype):
    base = getattr(storage, "_tensor", None)
    if base is None:
        raise NotImplementedError("torch.Tensor.set_ of a file-mapped or standalone storage is not supported by "
                                  "mindnlp-shim: pass a tensor")
    if base.dtype != dtype:
        raise NotImplementedError("torch.Tensor.set_ of a storage holding another dtype is not supported by "
                                  "mindnlp-shim")
    count = _storage(base).nbytes() // _dtype.ITEMSIZE[dtype]
    return _StorageTensor(_ms.as_strided(ops.stop_gradient(base), (count,), (1,), 0))


# ---------------------------------------------------------------- the deprecated autograd resize
def resize(self, *sizes):
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _autograd_resize(self, shape_arg(sizes))


def resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _autograd_resize(self, tuple(tensor.shape))


def _autograd_resize(self, size):
    if math.prod(size) != self.numel():
        shown = "x".join(map(str, self.shape))
        raise RuntimeError(f"requested resize to {'x'.join(map(str, size))} ({math.prod(size)} elements in total), "
                           f"but the given tensor has a size of {shown} ({self.numel()} elements). autograd's "
                           f"resize can only change the shape of a given tensor, while preserving the number of "
                           f"elements. ")
    return self.contiguous().view(size)


TENSOR_METHODS = {"as_strided": as_strided, "as_strided_": as_strided_, "as_strided_scatter": as_strided_scatter,
                  "resize_": resize_, "resize_as_": resize_as_, "set_": set_, "resize": resize,
                  "resize_as": resize_as}


def install():
    for name, fn in TENSOR_METHODS.items():
        setattr(Tensor, name, fn)
