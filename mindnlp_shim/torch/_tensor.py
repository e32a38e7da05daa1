"""torch.Tensor semantics installed on `mindspore.Tensor` itself (no wrapper objects).

This module holds what is specific to the Tensor object: properties (shape, device, grad, ...), conversions,
autograd entry points, printing and the Python protocol. Op methods (`x.sum()`, `x + y`, `x.add_()`) are bound
to the op functions in `_ops` by `_bindings.py`.
"""
import weakref

import numpy as np
import mindspore
from mindspore import ops

from . import _autograd_views, _backend, _dtype, _float8, _inplace, _leaf_grads, _memory, _shared_mapping
from ._device import PROCESS_DEVICE, PROCESS_DEVICE_TYPE, check_reachable, device as _device_cls
from ._size import Size, SizeAttr
from ._runtime import ensure_recording as _ensure_recording
from ._ops import host_small as _host_small
from ._ops import shape as _sh
from ._ops import small_casts as _small_casts
from ._ops import result_layout as _result_layout
from ._ops import view_kernels
from .autograd import engine as _engine
from .. import _mindspore as _ms

Tensor = mindspore.Tensor
_ms_shape = Tensor.shape  # MindSpore's own descriptors, captured before they are replaced
_ms_numel = Tensor.numel
_ms_stop_gradient = ops.stop_gradient
_weakref = weakref.ref
_DETACHED_FROM = _memory.DETACHED_FROM


# ---------------------------------------------------------------- shape and metadata
def _shape(self):
    return Size(_ms_shape.__get__(self))


def _size(self):
    return SizeAttr(_ms_shape.__get__(self))


def dim(self):
    return len(_ms_shape.__get__(self))


def numel(self):
    n = 1
    for d in _ms_shape.__get__(self):
        n *= d
    return n


_ms_stride = Tensor.stride


def stride(self, dim=None):
    strides = _ms_stride(self)  # (MindSpore answers a list)
    return tuple(strides) if dim is None else strides[dim]


def element_size(self):
    return _dtype.ITEMSIZE[self.dtype]


def is_floating_point(self):
    return self.dtype in _dtype.FLOATING


def is_complex(self):
    return self.dtype in _dtype.COMPLEX


def is_signed(self):
    return self.dtype not in _dtype.UNSIGNED


class _Layout:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


strided = _Layout("strided")
sparse_coo = _Layout("sparse_coo")


# ---------------------------------------------------------------- autograd
def _get_grad(self):
    return self._grad


def _set_grad(self, value):
    if value is not None and tuple(value.shape) != tuple(self.shape):
        raise RuntimeError(f"assigned grad has data of a different size: {tuple(value.shape)} vs {tuple(self.shape)}")
    self._grad = value


_DIFFERENTIABLE = _dtype.FLOATING | _dtype.COMPLEX


def _get_requires_grad(self):
    # MindSpore marks every output of a recorded op, bool/int ones included; in torch those never require grad
    return bool(self._requires_grad) and self.dtype in _DIFFERENTIABLE and not getattr(self, "_is_data_alias", False)


def _set_requires_grad(self, value):
    requires_grad_(self, value)


def requires_grad_(self, requires_grad=True):
    if requires_grad and not (self.dtype in _dtype.FLOATING or self.dtype in _dtype.COMPLEX):
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    if not requires_grad and not self._is_leaf:
        raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a computed "
                           "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    self._requires_grad = bool(requires_grad)
    if requires_grad:
        _leaf_grads.mark(self)
        _ensure_recording()  # an op error caught earlier may have switched tape recording off
    return self


def _grad_fn(self):
    return None if self._is_leaf or self.dtype not in _DIFFERENTIABLE else self._grad_node


def _output_nr(self):
    if _grad_fn(self) is None:
        return 0
    raise NotImplementedError("Tensor.output_nr of a tensor with a grad_fn: which output of its backward node a "
                              "tensor is, is not tracked by mindnlp-shim")


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    _engine.backward((self,), None if gradient is None else (gradient,), retain_graph, create_graph, inputs)


def detach(self):
    out = _ms_stop_gradient(self)
    # torch's detach shares the write counter (see _memory.DETACHED_FROM); a detach of a detach, with all of them
    earlier = self.__dict__.get(_DETACHED_FROM)
    out.__dict__[_DETACHED_FROM] = _weakref(self) if earlier is None else \
        (_weakref(self),) + (earlier if type(earlier) is tuple else (earlier,))
    return out


def detach_(self):
    if not self._is_leaf:
        raise NotImplementedError("Tensor.detach_() on a non-leaf tensor is not supported on MindSpore: the tape "
                                  "node cannot be cut in place; use x = x.detach()")
    self._requires_grad = False
    return self


def retain_grad(self):
    # MindSpore's own retain_grad has no CPU kernel (Clone); a hook that stores the grad does the same job.
    if self._is_leaf or getattr(self, "_retains_grad_hook", None) is not None:
        return

    def _store(grad):
        self._grad = grad if self._grad is None else ops.add(self._grad, grad)

    self._retains_grad_hook = self.register_hook(_store)


def _is_leaf(self):
    return bool(self._is_leaf) or self.dtype not in _DIFFERENTIABLE


# ---------------------------------------------------------------- data and conversions
def _get_data(self):
    """`t.data`: the same storage outside autograd, so that `p.data.mul_(2)`, `p.data.copy_(v)` or
    `p.data += d` on a parameter update it (torch allows these on leaves that require grad).

    On the CPU target it is a tensor over the same memory that MindSpore does not know as a view
    (`_detached_alias`), as torch's `.data` is: a value that requires grad written into it gives the alias its
    graph and leaves `t`'s alone. Elsewhere (another target, a dtype NumPy lacks):

    For a tensor that does not require grad it is a distinct tensor over the same memory (`shape._alias`), as
    torch's is: `requires_grad_()`, hooks or attributes on it stay its own, and a frozen parameter unfrozen
    later does not pull a kept `.data` into its graph. For one that does, the alias is MindSpore's
    stop_gradient of it (the same memory, so writes into it reach the tensor; ops on it are not recorded),
    marked `_is_data_alias`: it reports requires_grad False and the in-place methods write through it with
    recording off (see `_bindings._checked_inplace`)."""
    detached = _detached_alias(self)
    if detached is not None:
        return detached
    if not _get_requires_grad(self):
        alias = _sh._alias(self)
        alias.__dict__[_autograd_views.DETACHED] = True  # (no view of self: a write's history stays its own)
        return alias
    from .autograd.grad_mode import no_grad

    with no_grad():
        alias = ops.stop_gradient(self)  # (shares the memory; ops on it are not recorded, as on torch's .data)
    alias._is_data_alias = True
    return alias


def _detached_alias(self):
    """On the CPU target, a tensor over `self`'s memory that MindSpore does not know as a view of it (made from
    the NumPy array over that memory), or None where that cannot be had (no elements, a dtype without a NumPy
    counterpart, a layout MindSpore copies). torch's `.data` is such a tensor: a value that requires grad written into it
    (`w.data += delta`, peft's merge into a frozen weight) gives the alias a graph, never `self`; a MindSpore
    view would carry the write into `self`'s graph and make a frozen weight require grad."""
    if PROCESS_DEVICE_TYPE != "cpu" or 0 in self._shape:
        return None
    from . import _memory

    array = _memory.host_view(self)
    if _dtype.to_numpy_dtype(self.dtype) != array.dtype:
        return None
    alias = Tensor.from_numpy(array)
    if alias.data_ptr() != self.data_ptr() or alias.dtype != self.dtype:
        return None
    # the alias does not own its memory: a view of `self` does, for as long as the alias lives (after
    # `self.data = other` too), and a tensor given the alias's data takes that view's storage (swap_data)
    alias._memory_owner = _sh._alias(self)
    return alias


def _set_data(self, value):
    # torch: `t.data = v` makes t use v's storage (shape and dtype included), outside autograd
    if not isinstance(value, Tensor):
        raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
    _inplace.swap_data(self, value)


_META = _device_cls("meta")


def _device(self):
    return _META if getattr(self, "_is_meta", False) else PROCESS_DEVICE


def _parse_to_args(args, kwargs):
    dtype = _dtype.resolve(kwargs.pop("dtype", None))
    dev = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif a.__class__ is type and a in _dtype.PYTHON_TYPES:
            dtype = _dtype.resolve(a)
        elif isinstance(a, (str, _device_cls, int)):
            dev = a
        elif isinstance(a, Tensor):
            dtype = a.dtype  # (torch: a sparse tensor's dtype too; type_as refuses one)
        elif isinstance(a, bool):
            pass  # non_blocking / copy positional flags
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments: {type(a).__name__}")
    return dtype, dev, copy, memory_format


def to(self, *args, **kwargs):
    dtype, dev, copy, memory_format = _parse_to_args(args, dict(kwargs))
    to_meta = False
    if dev is not None:
        to_meta = check_reachable(dev).type == "meta" and not getattr(self, "_is_meta", False)
    out = self
    if dtype is not None and dtype != self.dtype:
        # (MindSpore's astype calls Tensor.to: cast directly) laid out as torch's: like self by default
        if memory_format is None and _ms.is_contiguous(self):
            out = _small_casts.cast(self, dtype)
        else:
            out = _result_layout.in_memory_format(_small_casts.cast, memory_format, self, dtype)
    elif copy or (memory_format is not None and _result_layout.format_order(memory_format, self.ndim) is not None
                  and memory_format.name != _result_layout.suggested_format_name(self)):
        out = clone(self, memory_format=memory_format)  # (torch converts only a tensor not already so laid out)
    if to_meta:  # a distinct tensor labelled meta (the shim's meta tensors hold memory: docs/architecture.md)
        out = _sh._alias(out) if out is self else out
        out._is_meta = True
    return out


def _cast_to(dtype):
    def method(self, memory_format=None):
        if memory_format is not None:
            return to(self, dtype, memory_format=memory_format)
        if self.dtype == dtype:
            return self
        if _ms.is_contiguous(self):
            return _small_casts.cast(self, dtype)
        return _result_layout.in_memory_format(_small_casts.cast, None, self, dtype)  # (laid out like self)

    return method


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """`t.type()`: the legacy type name ('torch.FloatTensor'); `t.type(x)`: `t` converted to x, a legacy class
    (torch.LongTensor), its name or a dtype."""
    from . import _legacy_types

    if dtype is None:
        return _legacy_types.TYPE_NAMES.get(self.dtype, "torch.Tensor")
    return to(self, _legacy_types.dtype_of(dtype))


def type_as(self, other):
    if type(other) is not Tensor and other.is_sparse:  # (torch converts to its type name, a sparse one)
        raise RuntimeError("to(options) doesn't support converting to a different layout, but got self.layout "
                           "being Strided and options.layout set as Sparse")
    return to(self, other.dtype)


def cpu(self, memory_format=None):
    return self  # on a CPU target the tensor is already there; on GPU/NPU targets host copies go via numpy()


def cuda(self, device=None, non_blocking=False, memory_format=None):
    check_reachable("cuda" if device is None else device if not isinstance(device, int) else f"cuda:{device}")
    return self


def numpy(self, *, force=False):
    if not force and _get_requires_grad(self):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return _shared_array(self)


def _shared_array(self):
    """The tensor's memory as a NumPy array (shared both ways on the CPU target, as torch's `numpy()`).
    MindSpore's `asnumpy()` shares a dense tensor's memory but copies a view's."""
    if PROCESS_DEVICE_TYPE == "cpu":
        from ._memory import host_view

        return host_view(self)
    return self.asnumpy()


def __array__(self, dtype=None, copy=None):
    arr = _shared_array(self)
    return arr if dtype is None else arr.astype(dtype)


def __reversed__(self):
    """reversed(t): the tensor flipped along dim 0 (a 0-d tensor itself), as torch's."""
    from ._ops.shape import flip

    return self if self.ndim == 0 else flip(self, 0)


def __array_wrap__(self, array, context=None, return_scalar=False):
    """A NumPy ufunc of a tensor gives a tensor (`np.exp(t)`), as torch's; a bool result as uint8, as torch's."""
    if array.dtype == bool:
        array = array.astype("uint8")
    return Tensor.from_numpy(np.require(array, requirements="C"))  # (keeps a 0-d array 0-d)


_REAL_FLOATS = (mindspore.float16, mindspore.float32, mindspore.float64)


def clone(self, *, memory_format=None):
    """A copy laid out as torch's `memory_format` asks: by default (preserve_format) like self."""
    if memory_format is None and _ms.is_contiguous(self):
        return _copy(self)
    return _result_layout.in_memory_format(_copy, memory_format, self)


def _copy(self):
    """A row-major copy of self."""
    # a recorded copy into new storage: gradients flow back to the source. One Identity kernel where it exists
    # (it keeps -0.0; adding a zero takes two kernels and gives 0.0). CPU has no bf16 Identity: bf16 goes through
    # float32 and back, both exact. A small contiguous tensor outside autograd is copied on the host.
    on_host = _host_small.copy(self)
    if on_host is not None:
        return on_host
    if self._dtype in _float8.FLOAT8:  # its codes (no CPU kernel copies float8)
        return _float8.from_codes(_float8.codes_of(self), self._dtype)
    if self._dtype is not mindspore.bfloat16:
        if (self._requires_grad or not self._is_leaf) and _ms.grad_enabled() and self._dtype in _REAL_FLOATS:
            # (in the graph: a product with 1, exact and keeping -0.0; the Identity node's backward needs a Clone
            # kernel the CPU lacks once the clone is written in place)
            return ops.mul(self, 1)
        return ops.deepcopy(self)
    return ops.cast(ops.deepcopy(ops.cast(self, mindspore.float32)), mindspore.bfloat16)


def copy_(self, src, non_blocking=False):
    if self._dtype in _float8.FLOAT8 or (type(src) is Tensor and src._dtype in _float8.FLOAT8):
        return _copy_float8(self, src)
    if getattr(self, "_is_data_alias", False):
        return outside_autograd(_inplace.assign, self, src)
    return _inplace.assign(self, src)


def _copy_float8(self, src):
    """copy_ where either side is float8: the value converted (on the host) to the receiver's dtype, then
    written as bytes into a float8 receiver's memory."""
    if _ms.grad_enabled() and (self._requires_grad or (type(src) is Tensor and src._requires_grad)):
        raise _float8.unsupported("Tensor.copy_ (a copy autograd records)")
    if type(src) is not Tensor:
        src = Tensor(np.asarray(src, dtype=np.float32))
    value = src if src._dtype is self._dtype else _small_casts.cast(src, self._dtype)
    if self._dtype not in _float8.FLOAT8:
        return _inplace.assign(self, value)
    u8 = mindspore.uint8
    _inplace.assign(_ms.view_dtype(self, u8), _ms.view_dtype(value, u8))
    return self


def outside_autograd(write, *args, **kwargs):
    """Run an in-place `write` with recording off (writes through a `.data` alias, which torch never records)."""
    from .autograd.grad_mode import no_grad

    with no_grad():
        return write(*args, **kwargs)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._ops.creation import tensor

    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_filled(factory):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return factory(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    return method


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    from ._ops.creation import full

    return full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


# ---------------------------------------------------------------- storage-level queries (safetensors, HF saving)
class UntypedStorage:
    """A tensor's storage as HF libraries query it (pointer, size, device), or the bytes of a file mapped by
    `UntypedStorage.from_file` (how safetensors' "pt" loader reads checkpoints: then `torch.asarray(storage)`)."""

    def __init__(self, tensor=None, array=None):
        self._tensor = tensor
        self._array = array  # uint8 bytes when the storage is a mapped file

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        mode = "r+" if shared else "c"  # copy-on-write: tensors built on it may be written without touching the file
        return cls(array=np.memmap(filename, dtype=np.uint8, mode=mode, shape=(nbytes,) if nbytes else None))

    def untyped(self):
        return self

    def __getitem__(self, index):
        if self._array is None or not isinstance(index, slice):
            raise NotImplementedError("indexing a tensor's untyped_storage() is not supported on MindSpore")
        return UntypedStorage(array=self._array[index])

    def _whole(self):
        # MindSpore's storage of the tensor: for a view, the whole memory of its base (as torch's storage)
        return _ms.untyped_storage(self._tensor)

    def data_ptr(self):
        return self._whole().data_ptr() if self._array is None else self._array.ctypes.data

    def nbytes(self):
        return self._whole().nbytes() if self._array is None else self._array.nbytes

    def size(self):
        return self.nbytes()

    @property
    def device(self):
        return PROCESS_DEVICE

    def __len__(self):
        return self.nbytes()


def untyped_storage(self):
    return UntypedStorage(self)


def is_shared(self):
    # (whether the storage, shared by every view of it, lives in shared memory; device memory always does)
    if PROCESS_DEVICE_TYPE != "cpu":
        return True
    return _ms.storage_is_shared(self) or _shared_mapping.is_mapped(self) or \
        getattr(self, "_empty_storage_shared", False)


def share_memory_(self):
    """Moves the storage (with every view of it) into shared memory, keeping its bytes, as torch does on the CPU;
    a no-op for device memory and for a storage already there."""
    if PROCESS_DEVICE_TYPE == "cpu":
        storage = _ms.untyped_storage(self)
        if storage.nbytes() == 0:
            self._empty_storage_shared = True  # (no memory to map: only the answer of is_shared() changes)
        elif is_shared(self):
            pass
        elif not (_ms.SHARED_MEMORY_STORAGES and _ms.SHARING_MOVES_VIEWS):
            if not _shared_mapping.movable(self):
                raise NotImplementedError(
                    f"torch.Tensor.share_memory_ of a view, or of a tensor whose views are alive, is not supported "
                    f"on MindSpore {_ms.VERSION_TEXT}: its storages cannot be moved into shared memory with their "
                    f"views (MindSpore 2.9 and later can); share a tensor that no view reads, or a clone")
            _shared_mapping.move(self)
        else:
            storage._share_fd_cpu_()
    return self


def pin_memory(self, device=None):
    # torch pins host memory for an accelerator; with none (the CPU target) it refuses, and so does this
    if PROCESS_DEVICE_TYPE == "cpu":
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self  # (MindSpore's device copies need no pinned staging memory)


# ---------------------------------------------------------------- printing
def __repr__(self, *, tensor_contents=None):
    from ._tensor_str import elements_str, with_suffixes

    dtype = self.dtype
    default_float = _dtype.get_default_dtype()
    default_complex = mindspore.complex128 if default_float == mindspore.float64 else mindspore.complex64
    device = _device(self)
    extras = [] if device.type == "cpu" else [f"device='{device}'"]
    if device.type == "meta":
        body = "..."  # (a meta tensor has no elements)
        extras.append(f"size={tuple(self.shape)}")
        if dtype != default_float:
            extras.append(f"dtype={dtype!r}")
    elif self.numel() == 0:
        body = "[]"
        if self.ndim != 1:
            extras.append(f"size={tuple(self.shape)}")
        if dtype != default_float:  # (no element says what an empty tensor holds)
            extras.append(f"dtype={dtype!r}")
    else:
        if dtype == mindspore.bfloat16:
            values = self.astype(mindspore.float32).asnumpy()
        elif dtype in _float8.FLOAT8:  # (printed from its values, as torch prints it)
            values = _float8.decode(_float8.codes_of(self), dtype)
        else:
            values = self.asnumpy()
        body = elements_str(values, len("tensor("))
        if dtype not in (default_float, default_complex, mindspore.int64, mindspore.bool_):
            extras.append(f"dtype={dtype!r}")
    if not self._is_leaf and self._grad_node is not None:
        extras.append(f"grad_fn=<{self._grad_node.name()}Backward>")
    elif self._requires_grad:
        extras.append("requires_grad=True")
    prefix = "Parameter containing:\n" if getattr(self, "_is_param", False) else ""
    return prefix + with_suffixes("tensor(" + body, extras, len("tensor("))


def __format__(self, spec):
    if self.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(repr(self), spec)


def __len__(self):
    shape = _ms_shape.__get__(self)
    if not shape:
        raise TypeError("len() of a 0-d tensor")
    return shape[0]


def __deepcopy__(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    if self.dtype in _float8.FLOAT8:  # (its bytes: NumPy has no float8 type)
        new = _float8.from_codes(_float8.codes_of(self), self.dtype)
    elif self.dtype == mindspore.bfloat16:
        new = Tensor(self.astype(mindspore.float32).asnumpy().copy()).astype(self.dtype)
    else:
        new = Tensor(self.asnumpy().copy())
    if self._requires_grad:
        new._requires_grad = True
        _leaf_grads.mark(new)
    if getattr(self, "_is_param", False):
        new._is_param = True
    if self._grad is not None:
        new._grad = __deepcopy__(self._grad, memo)
    memo[id(self)] = new
    return new


def __reduce_ex__(self, protocol):
    arr = self.astype(mindspore.float32).asnumpy() if self.dtype == mindspore.bfloat16 else self.asnumpy()
    return (_rebuild_from_numpy, (np.array(arr), repr(self.dtype), bool(self._requires_grad),
                                  bool(getattr(self, "_is_param", False))))


def _rebuild_from_numpy(arr, dtype_name, requires_grad, is_param):
    dtype = _dtype.TORCH_NAMES[dtype_name.replace("torch.", "")]
    t = Tensor(arr).astype(dtype) if Tensor(arr).dtype != dtype else Tensor(arr)
    if requires_grad:
        t._requires_grad = True
        _leaf_grads.mark(t)
    if is_param:
        t._is_param = True
    return t


def __hash__(self):
    return id(self)


def __bool__(self):
    if self.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def item(self):
    if self.numel() != 1:
        raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
    if self._dtype in _float8.FLOAT8:
        return float(_float8.decode(_float8.codes_of(self), self._dtype).reshape(()))
    arr = self.asnumpy()
    return arr.reshape(()).item() if arr.dtype != _dtype.to_numpy_dtype(mindspore.bfloat16) else float(arr.reshape(()))


def tolist(self):
    if self._dtype in _float8.FLOAT8:
        return _float8.decode(_float8.codes_of(self), self._dtype).tolist()
    arr = self.asnumpy()
    if self.dtype == mindspore.bfloat16:
        arr = arr.astype(np.float32)
    return arr.tolist()


def __int__(self):
    return int(item(self))


def __float__(self):
    return float(item(self))


def __index__(self):
    if self.dtype in _dtype.FLOATING or self.numel() != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(item(self))


def __iter__(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def __contains__(self, element):
    return bool((self == element).any())


# ---------------------------------------------------------------- indexing
_ms_getitem = Tensor.__getitem__  # MindSpore's (C) indexing, which serves every index it handles correctly
_narrow = view_kernels.narrow  # a view over the same storage (measured: offset and strides as torch's, writes alias)


def _plain_index(item):
    """Index items MindSpore's own indexing gets right, values and gradients."""
    kind = type(item)
    if kind is int or item is None or item is Ellipsis:
        return True
    return kind is slice and (item.step is None or item.step == 1)


def _one_range(shape, index):
    """(dim, start, length) when `index` (a slice, or a tuple of slices and one Ellipsis) keeps every element of
    all dimensions but one, and a non-empty range of step 1 of that one; else None."""
    items = index if type(index) is tuple else (index,)
    ndim = len(shape)
    found = ellipsis_at = None
    for position, item in enumerate(items):
        if item is Ellipsis:
            if ellipsis_at is not None:
                return None
            ellipsis_at = position
        elif type(item) is not slice:
            return None
        elif item.start is not None or item.stop is not None or item.step is not None:
            if found is not None:
                return None
            found = position
    if found is None or len(items) - (ellipsis_at is not None) > ndim:
        return None
    part = items[found]
    if part.step is not None and (type(part.step) is not int or part.step != 1) or \
            type(part.start) not in (int, type(None)) or type(part.stop) not in (int, type(None)):
        return None
    dim = found if ellipsis_at is None or found < ellipsis_at else ndim - (len(items) - found)
    start, stop, _ = part.indices(shape[dim])
    return (dim, start, stop - start) if stop > start else None


def __getitem__(self, index):
    if (type(index) is tuple or type(index) is slice) and not self._requires_grad and self._is_leaf:
        # one range of one dimension of a tensor outside the graph: MindSpore's Narrow view (14 µs) rather
        # than its general indexing (35-50 µs); RoPE's halves and the last position's logits are such slices
        one_range = _one_range(self._shape, index)
        if one_range is not None:
            out = _narrow(self, *one_range)
            _autograd_views.note_untracked_view(self, out)
            return out
    if type(index) is tuple:
        for item in index:
            if not _plain_index(item):
                return _getitem_advanced(self, index)
    elif not _plain_index(index):
        return _getitem_advanced(self, _top_level_items(index))
    if self._requires_grad or not self._is_leaf:
        out = _ms_getitem_tracked(self, index)
        if out is self:
            out = _sh._alias(self)  # (`x[...]`: torch's result is a distinct view)
        if _ms.grad_enabled():
            _autograd_views.register(self, out, remake=lambda source: _getitem_again(source, index))  # a view
        return out
    out = _ms_getitem(self, index)  # (bf16 too: untracked slices stay views whose writes reach the base)
    out = _sh._alias(self) if out is self else out
    _autograd_views.note_untracked_view(self, out)
    return out


_SEQUENCES = (list, tuple, range)


def _top_level_items(index):
    """The items of a whole index that is not a tuple, by torch's rule: a list (or other sequence that is not a
    tensor or array) of under 32 items with a sequence, tensor, slice, Ellipsis or None among them is read as a
    tuple of items (torch warns that this is deprecated); any other index is one item."""
    if isinstance(index, (list, range)) and len(index) < 32 and any(
            isinstance(item, (*_SEQUENCES, Tensor, np.ndarray, slice)) or item is None or item is Ellipsis
            for item in index):
        return tuple(index)
    return (index,)


def _sequence_index(item):
    """A sequence used as one index item (a list, range or tuple, nested or holding NumPy integers or 0-d
    tensors) as the nested list of Python numbers torch makes its index tensor from."""
    if isinstance(item, _SEQUENCES):
        return [_sequence_index(value) for value in item]
    if isinstance(item, (np.integer, np.bool_)):
        return item.item()
    if type(item) is Tensor:
        if item.ndim:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return item.item()
    if type(item) is float:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return item


def _normalize_index_item(item):
    if isinstance(item, (np.integer, np.bool_)):
        return item.item()
    if isinstance(item, np.ndarray):
        return Tensor(np.ascontiguousarray(item))
    if type(item) is range or type(item) is tuple or type(item) is list and any(
            type(value) is not int and type(value) is not bool for value in item):
        item = _sequence_index(item)
    if isinstance(item, list) and item and all(type(v) is bool for v in item):
        return Tensor(np.array(item, dtype=np.bool_))
    if isinstance(item, list) and not item:  # (torch: an empty index tensor of int64; MindSpore refuses `[]`)
        return Tensor(np.zeros((0,), dtype=np.int64))
    if type(item) is slice:
        start, stop, step = (None if v is None else v if type(v) is int else int(v.__index__())
                             for v in (item.start, item.stop, item.step))
        if step is not None and step <= 0:
            raise ValueError("step must be greater than zero")
        return slice(start, stop, step)
    if type(item) is Tensor and item.dtype == mindspore.bool_ and item.ndim == 0:
        return bool(item.item())
    return item


def _selects(item):
    """An index item torch applies as `select` before any advanced indexing: an int, a NumPy integer or a 0-d
    integer tensor."""
    if type(item) is int or isinstance(item, np.integer):
        return True
    return type(item) is Tensor and not item._shape and item._dtype in _dtype.INTEGRAL


def _advanced(item):
    return type(item) in (list, np.ndarray) or (type(item) is Tensor and len(item._shape) > 0)


def _selected_first(self, items):
    """torch applies integer items as selections first and indexes what is left with the other items (NumPy's
    rules, which MindSpore follows, count an int beside a list or tensor as one more advanced index and place
    the result's dimensions elsewhere: x[0, :, [1, 2]] of a (3, 4, 5) tensor is (4, 2) in torch, (2, 4) in
    NumPy). The selection is a view of `self`; None when the index has no integer beside an advanced item."""
    split = _split_selections(items)
    if split is None:
        return None
    first, rest = split
    return self[first][rest]


def _split_selections(items):
    """(the integer selections with full slices elsewhere, the other items) where an index has an integer beside
    an advanced item, else None (also for Python or 0-d bool items, which add a dimension)."""
    if not any(_selects(item) for item in items) or not any(_advanced(item) for item in items) or \
            any(type(item) is bool or (type(item) is Tensor and item._dtype is mindspore.bool_ and not item._shape)
                for item in items):
        return None
    first = tuple(int(item) if _selects(item) else item if item is Ellipsis else slice(None)
                  for item in items if item is not None)
    return first, tuple(item for item in items if not _selects(item))


def _check_masks(shape, items):
    """torch's check of bool masks in an index: each covers as many dims as it has, of exactly their sizes (a
    mask of 2 over a dim of 3 selected from the first 2 rows)."""
    def dims_of(item):
        if item is None or item is Ellipsis or type(item) is bool:
            return 0
        if type(item) is Tensor and item._dtype is mindspore.bool_:
            return len(item._shape)
        return 1

    dims = [dims_of(item) for item in items]
    ellipsis_dims = len(shape) - sum(dims)
    position = 0
    for item, count in zip(items, dims):
        if item is Ellipsis:
            position += max(ellipsis_dims, 0)
        elif count and type(item) is Tensor and item._dtype is mindspore.bool_:
            covered = tuple(shape[position:position + count])
            if tuple(item._shape) != covered:
                raise IndexError(f"The shape of the mask {list(item._shape)} at index {position} does not match "
                                 f"the shape of the indexed tensor {list(shape)} at index {position}")
        position += count


def _check_broadcast(items):
    """torch's IndexError where the integer index tensors (and lists) do not broadcast together (MindSpore and
    NumPy raise ValueError)."""
    shapes = [np.shape(item) if type(item) is list else tuple(item._shape) for item in items
              if type(item) is list and not (item and type(item[0]) is bool) or type(item) is Tensor and
              item._dtype is not mindspore.bool_ and item._shape]
    if len(shapes) > 1:
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                             ", ".join(str(list(shape)) for shape in shapes)) from None


def _getitem_advanced(self, items):
    """Indexing with a list, tensor or other non-plain item: integers selected first (`_selected_first`), then
    on the host for a small tensor outside the graph (host_small.advanced_getitem: a copy, as torch's advanced
    indexing gives), else `_getitem_general`."""
    items = tuple(_normalize_index_item(item) if isinstance(item, (*_SEQUENCES, np.ndarray)) else item
                  for item in items)
    _check_masks(self._shape, items)
    _check_broadcast(items)
    selected = _selected_first(self, items)
    if selected is not None:
        return selected
    if not self._requires_grad and self._is_leaf:
        on_host = _host_small.advanced_getitem(self, items)
        if on_host is not None:
            return on_host
    return _getitem_general(self, items)


def _getitem_general(self, items):
    """Indexing MindSpore gets wrong, rewritten into indexing it gets right:
    - a bool mask becomes the long indices of its True positions (torch's definition of mask indexing; MindSpore's
      own mask indexing loses the autograd graph when nothing is selected);
    - a slice with step > 1 on a tensor in the autograd graph becomes a step-1 slice plus `index_select`
      (MindSpore's StridedSliceGrad fails on strided slices of inner dimensions);
    - an empty selection by index tensors stays in the autograd graph (MindSpore drops it from the tape);
    - NumPy scalars and arrays become Python numbers and tensors; steps below 1 raise as in torch."""
    expanded = []
    for item in map(_normalize_index_item, items):
        if type(item) is Tensor and item.dtype == mindspore.bool_:
            positions = ops.nonzero(item).astype(mindspore.int64)
            expanded.extend(positions[:, i] for i in range(item.ndim))
        else:
            expanded.append(item)
    stepped = any(type(it) is slice and it.step not in (None, 1) for it in expanded)
    basic = all(type(it) in (int, slice) or it is None or it is Ellipsis for it in expanded)
    tracked = self._requires_grad or not self._is_leaf
    if tracked and not basic:
        expanded = _wrapped_negatives(self._shape, expanded)
    if stepped and basic and tracked:
        return _getitem_stepped(self, expanded)
    out = _ms_getitem(self, expanded[0] if len(expanded) == 1 else tuple(expanded))
    if not basic and getattr(out, "parent_tensor_", None) is not None:
        # a copy, as torch's advanced indexing gives; MindSpore still names self its parent, and an in-place write
        # into it (`x[idx] += v` writes into the gathered x[idx] first) would then go to MindSpore's view machinery
        # and break its graph ("The pointer[tensor->storage_info()] is null")
        out.parent_tensor_ = None
    if tracked and numel(out) == 0:
        out = _empty_on_graph(self, out)
    elif basic and not tracked:
        _autograd_views.note_untracked_view(self, out)  # (a strided view of self's memory)
    return out


def _wrapped_negatives(shape, items):
    """Index tensors with negative entries counted from their dimension's end: MindSpore's gather reads them so,
    but its backward drops their gradient (x[tensor([-1])].sum() gave x a zero gradient)."""
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    wrapped, dim = [], 0
    for it in items:
        if it is Ellipsis:
            dim += len(shape) - consumed
        elif type(it) is Tensor and it._dtype in _dtype.INTEGRAL and dim < len(shape):
            values = it.asnumpy()
            if values.size and values.min() < 0:
                values = np.where(values < 0, values + shape[dim], values)
                it = Tensor(np.ascontiguousarray(values))
        if it is not None and it is not Ellipsis:
            dim += 1
        wrapped.append(it)
    return wrapped


def _empty_on_graph(self, out):
    """An empty result of indexing `self`, recorded on self's graph: MindSpore's own is off the tape, or on it
    with a backward that fails for empty gathers (UnsortedSegmentSum)."""
    anchor = ops.mul(ops.cat((self.reshape(-1), _ms.zeros(1, self.dtype))).sum(), 0)  # a 0 on self's graph
    return ops.add(_ms.zeros(tuple(out.shape), out.dtype), anchor)


def _basic_items(self, items):
    """Whether every index item is basic (an integer, slice, None or Ellipsis): the result is a view."""
    for item in items:
        if not (type(item) in (int, slice) or item is None or item is Ellipsis or isinstance(item, np.integer)):
            return False
    return True


# Advanced indexing (GatherNd, nonzero) has no bf16 CPU kernel, nor has the backward of basic indexing
# (StridedSliceGrad, UnsortedSegmentSum): the backend table decides per target whether bf16 goes via float32.
# Basic indexing stays a view of the bf16 tensor's memory there all the same (`_backend.bf16_view`).
_getitem_general = _backend.view_for_target(_getitem_general, "__getitem__", is_view=_basic_items, registers=True)
_ms_getitem_tracked = _backend.view_for_target(_ms_getitem, "__getitem__")

_ms_setitem = Tensor.__setitem__


def __setitem__(self, index, value):
    if type(value) is int or type(value) is float or type(value) is complex:
        _dtype.check_fits(value, self._dtype)  # (torch's error: 300 into uint8 does not wrap, 1e39 into float32)
        value = _dtype.real_scalar(value, self._dtype)
    items = index if type(index) is tuple else (index,) if _plain_index(index) else _top_level_items(index)
    if type(index) is not tuple and items[0] is not index:
        index = items[0] if len(items) == 1 else items  # (a list read as a tuple of items)
    for item in items:
        if not (_plain_index(item) or type(item) is Tensor):
            items = tuple(map(_normalize_index_item, items))
            index = items[0] if len(items) == 1 else items
            break
    if PROCESS_DEVICE_TYPE == "cpu" and (not _ms.grad_enabled() or self._is_leaf and not self._requires_grad
                                         and not _inplace._records(value)):
        # outside autograd (a tensor of the graph under no_grad too): into the tensor's own storage, so every alias
        # sees the write; counted, and the views in the graph over it keep their gradients (`_memory.count_write`)
        _setitem_in_memory(self, items, value)
        return
    if isinstance(value, Tensor) and value.ndim and any(type(it) is Tensor and it.dtype == mindspore.bool_
                                                        for it in items):
        # values for the selected elements in order (`x[mask] = v`): MindSpore broadcasts v against the mask
        # instead, so index by the True positions
        items = tuple(p for it in items for p in ((ops.nonzero(it).astype(mindspore.int64)[:, i]
                                                   for i in range(it.ndim)) if type(it) is Tensor and
                                                  it.dtype == mindspore.bool_ else (it,)))
        index = items[0] if len(items) == 1 else items
    if isinstance(value, np.ndarray):
        value = Tensor(np.ascontiguousarray(value))
    if self.dtype == mindspore.bfloat16 and PROCESS_DEVICE_TYPE == "cpu":
        # no bf16 index-assignment kernel on CPU: write into a float32 copy, then put that back whole
        widened = ops.cast(self, mindspore.float32)
        __setitem__(widened, index, ops.cast(value, mindspore.float32) if isinstance(value, Tensor) else value)
        _inplace.assign(self, ops.cast(widened, mindspore.bfloat16), value_is_fresh=True)
        return
    if getattr(self, "_is_data_alias", False):
        outside_autograd(_ms_setitem, self, index, value)
    elif PROCESS_DEVICE_TYPE == "cpu" and not self._is_leaf:
        # inside the graph: the assignment is recorded on a copy, which is then written into the tensor's own
        # memory as a recorded write (MindSpore's own would give the tensor a new storage, leaving its views)
        if _autograd_views.check_write(self, check_overlap=False) is not None and \
                all(type(it) in (int, slice) or it is None or it is Ellipsis for it in items):
            # a write torch records on the base and replays on its views: through the selected view, as torch's
            # basic index assignment is (`self[index].copy_(value)`), so only the selected elements are written
            _inplace.assign(self[index], value)
            return
        updated = clone(self)
        _ms_setitem(updated, index, value)
        _inplace.assign(self, updated, value_is_fresh=True)
    elif PROCESS_DEVICE_TYPE == "cpu" and not self._requires_grad and \
            all(type(it) in (int, slice) or it is None or it is Ellipsis for it in items):
        # a value that requires grad into a tensor outside the graph: through the selected view, whose write
        # `_inplace` records on this tensor and puts into its memory (MindSpore's own would give this tensor a new
        # storage, leaving what shares its memory: a tensor it was detached from, its views)
        _inplace.assign(self[index], value)
    else:
        _ms_setitem(self, index, value)
        _memory.count_on_sources(self)  # (a detached tensor: torch's write count is its source's too)


def _numpy_index_item(item):
    if type(item) is Tensor:
        if item.dtype not in _dtype.INTEGRAL and item.dtype != mindspore.bool_:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return item.asnumpy()
    return item


def _setitem_in_memory(self, items, value):
    """`self[items] = value` written into `self`'s storage with NumPy's indexing, whose rules for the index
    kinds that reach here (ints, slices, None, Ellipsis, integer and boolean arrays) are torch's once integers
    beside an advanced item are selected first (`_split_selections`)."""
    from . import _memory

    split = _split_selections(items)
    if split is not None:
        first, items = split
        self = _ms_getitem(self, first)  # a view: the write below reaches self's storage

    if isinstance(value, Tensor):
        value = (value if value.dtype is self.dtype else ops.cast(value, self.dtype)).asnumpy()
    index = tuple(_numpy_index_item(it) for it in items)
    index = index[0] if len(index) == 1 else index
    target = _memory.host_view(self)
    if all(type(it) is not np.ndarray and type(it) is not list
           for it in (index if type(index) is tuple else (index,))):
        # basic indexing writes the selected view like copy_, which torch refuses where its elements share memory
        selected = target[index]
        if np.size(selected) and any(st == 0 and n > 1 for n, st in
                                     zip(np.shape(selected), np.ndim(selected) and selected.strides or ())):
            raise RuntimeError(_memory.OVERLAP_MESSAGE)
    try:
        target[index] = value
    except ValueError as exc:  # NumPy's broadcast error
        raise RuntimeError(f"shape mismatch: value of shape {tuple(np.shape(value))} cannot be written into "
                           f"the indexed part of a tensor of shape {tuple(self.shape)}: {exc}") from None
    _memory.count_write(self)


def _getitem_again(self, index):
    out = _ms_getitem_tracked(self, index)
    return _sh._alias(self) if out is self else out


def _getitem_stepped(self, items):
    consumed = sum(1 for it in items if type(it) in (int, slice))
    step_one, steps, out_dim = [], [], 0
    for it in items:
        if it is Ellipsis:
            step_one.extend([slice(None)] * (self.ndim - consumed))
            out_dim += self.ndim - consumed
        elif it is None:
            step_one.append(None)
            out_dim += 1
        elif type(it) is int:
            step_one.append(it)
        else:
            if it.step not in (None, 1):
                steps.append((out_dim, it.step))
            step_one.append(slice(it.start, it.stop))
            out_dim += 1
    out = _ms_getitem(self, tuple(step_one))
    if numel(out) == 0:
        return _empty_on_graph(self, _ms_getitem(ops.stop_gradient(self), tuple(items)))
    for dim, step in steps:
        out = ops.index_select(out, dim, Tensor(np.arange(0, out.shape[dim], step, dtype=np.int64)))
    if PROCESS_DEVICE_TYPE == "cpu":
        # the gathers give the gradient; the data becomes MindSpore's strided view of the same elements, so the
        # result shares memory with `self` as torch's slice does (`_update_data` keeps the recorded node)
        _inplace.swap_storage_only(out, _ms_getitem(ops.stop_gradient(self), tuple(items)))
        if _ms.grad_enabled():
            _autograd_views.register(self, out)
    return out


_PROPERTIES = {
    "shape": _shape, "size": _size, "device": _device, "grad_fn": _grad_fn, "is_leaf": _is_leaf,
    "is_cuda": lambda self: PROCESS_DEVICE_TYPE == "cuda", "is_cpu": lambda self: PROCESS_DEVICE_TYPE == "cpu",
    "is_meta": lambda self: getattr(self, "_is_meta", False), "is_sparse": lambda self: False, "is_quantized": lambda self: False,
    "is_mkldnn": lambda self: False, "is_nested": lambda self: False, "is_npu": lambda self: PROCESS_DEVICE_TYPE == "npu",
    "layout": lambda self: strided, "itemsize": element_size, "nbytes": lambda self: numel(self) * element_size(self),
    "output_nr": _output_nr, "_version": lambda self: 0,
}
_SETTABLE_PROPERTIES = {
    "grad": (_get_grad, _set_grad), "requires_grad": (_get_requires_grad, _set_requires_grad),
    "data": (_get_data, _set_data),
}
_METHODS = {
    "dim": dim, "ndimension": dim, "stride": stride, "numel": numel, "nelement": numel, "element_size": element_size,
    "is_floating_point": is_floating_point, "is_complex": is_complex, "is_signed": is_signed,
    "requires_grad_": requires_grad_, "backward": backward, "detach": detach, "detach_": detach_,
    "retain_grad": retain_grad, "to": to, "type": type_, "type_as": type_as, "cpu": cpu, "cuda": cuda,
    "numpy": numpy, "__array__": __array__, "__array_wrap__": __array_wrap__, "__reversed__": __reversed__, "clone": clone, "copy_": copy_, "new_tensor": new_tensor,
    "new_full": new_full, "untyped_storage": untyped_storage, "is_shared": is_shared,
    "share_memory_": share_memory_, "pin_memory": pin_memory,
    "is_pinned": lambda self, device=None: False, "get_device": lambda self: -1 if PROCESS_DEVICE_TYPE == "cpu" else 0,
    "__repr__": __repr__, "__str__": __repr__, "__format__": __format__, "__len__": __len__,
    "__deepcopy__": __deepcopy__, "__reduce_ex__": __reduce_ex__, "__hash__": __hash__, "__bool__": __bool__,
    "item": item, "tolist": tolist, "__int__": __int__, "__float__": __float__, "__index__": __index__,
    "__iter__": __iter__, "__contains__": __contains__, "__getitem__": __getitem__,
    "__setitem__": __setitem__,
    "float": _cast_to(mindspore.float32), "double": _cast_to(mindspore.float64), "half": _cast_to(mindspore.float16),
    "bfloat16": _cast_to(mindspore.bfloat16), "long": _cast_to(mindspore.int64), "int": _cast_to(mindspore.int32),
    "short": _cast_to(mindspore.int16), "char": _cast_to(mindspore.int8), "byte": _cast_to(mindspore.uint8),
    "bool": _cast_to(mindspore.bool_),
}


def install():
    Tensor._backward_hooks = None  # torch keeps module-style backward hooks here; read by serialization code
    # NumPy's operators defer to a tensor's reflected ones (`np.float64(2) * t` is a tensor, not an ndarray)
    Tensor.__array_priority__ = 1000
    if "__round__" in Tensor.__dict__:  # MindSpore's: torch's Tensor has none, so round(t) is a TypeError
        del Tensor.__round__
    for name, getter in _PROPERTIES.items():
        setattr(Tensor, name, property(getter))
    for name, (getter, setter) in _SETTABLE_PROPERTIES.items():
        setattr(Tensor, name, property(getter, setter))
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)
    from ._ops import creation

    Tensor.new_zeros = _new_filled(creation.zeros)
    Tensor.new_ones = _new_filled(creation.ones)
    Tensor.new_empty = _new_filled(creation.empty)
