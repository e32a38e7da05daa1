"""Small argument helpers shared by the op families."""
import ctypes
import functools
import inspect

import mindspore
import numpy as np

from .._runtime import ON_CPU
from ... import _mindspore as _ms

Tensor = mindspore.Tensor


def shape_arg(size):
    """torch accepts sizes as varargs or as one sequence: `zeros(2, 3)`, `zeros((2, 3))`, `zeros([2, 3])`."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(map(int, size))


def wrap_dim(dim, ndim):
    """`dim` wrapped into [0, ndim) (a 0-d tensor takes dims -1 and 0), or torch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def dims_arg(dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return tuple(dims[0])
    return tuple(dims)


def as_tensor_like(value, ref):
    """A Python scalar or array-like as a tensor of `ref`'s dtype (torch's scalar promotion)."""
    if isinstance(value, Tensor):
        return value
    return Tensor(np.asarray(value, dtype=mindspore.dtype_to_nptype(ref.dtype)) if ref.dtype != mindspore.bfloat16
                  else np.asarray(value, dtype=np.float32)).astype(ref.dtype)


# index dtype -> (C type and NumPy type to read its items as unsigned, the signed NumPy type)
_INDEX_ITEMS = {mindspore.int64: (ctypes.c_uint64, np.uint64, np.int64),
                mindspore.int32: (ctypes.c_uint32, np.uint32, np.int32),
                mindspore.uint8: (ctypes.c_uint8, np.uint8, np.uint8)}


def _index_items(index):
    """The items of an int64/int32/uint8 tensor as a NumPy array of unsigned integers, without a copy.

    On the CPU target a contiguous tensor is read straight from its memory (data_ptr): MindSpore's `asnumpy()`
    spends 5-10 us synchronising even for a (16, 128) batch, which is more than the check itself."""
    ctype, unsigned, _ = _INDEX_ITEMS[index._dtype]
    if ON_CPU and index.is_contiguous():
        address = index.data_ptr()
        if address:
            return np.frombuffer((ctype * index.numel()).from_address(address), unsigned)
    return index.asnumpy().reshape(-1).view(unsigned)


def index_range(index):
    """(lowest, highest) value of an integer index tensor, read on the host: MindSpore's CPU index kernels do not
    range-check (gathers wrap negative indices, scatters drop out-of-range ones), so the ops check first."""
    values = _index_items(index).view(_INDEX_ITEMS[index._dtype][2])
    return (int(values.min()), int(values.max())) if values.size else (0, 0)


def any_outside(index, size):
    """Whether some value of the integer `index` is outside [0, size): one reduction, the maximum of the values
    read as unsigned (a negative value reads as a huge one). ~3 us for a (16, 128) int64 batch on the CPU."""
    values = _index_items(index)
    return values.size != 0 and int(values.max()) >= size


_TYPE_NAMES = {
    mindspore.bool_: "Bool", mindspore.uint8: "Byte", mindspore.int8: "Char", mindspore.int16: "Short",
    mindspore.int32: "Int", mindspore.int64: "Long", mindspore.float16: "Half", mindspore.bfloat16: "BFloat16",
    mindspore.float32: "Float", mindspore.float64: "Double", mindspore.complex64: "ComplexFloat",
    mindspore.complex128: "ComplexDouble",
}


def type_name(dt):
    """torch's scalar-type name in messages: Float, Long, ..."""
    return _TYPE_NAMES.get(dt, str(dt))


_C_TYPE_NAMES = {mindspore.float32: "float", mindspore.float64: "double", mindspore.float16: "c10::Half",
                 mindspore.bfloat16: "c10::BFloat16", mindspore.int64: "long int", mindspore.int32: "int",
                 mindspore.int16: "short int", mindspore.int8: "signed char", mindspore.uint8: "unsigned char",
                 mindspore.bool_: "bool", mindspore.complex64: "c10::complex<float>",
                 mindspore.complex128: "c10::complex<double>"}


def c_type_name(dt):
    """The C++ type torch's kernel messages name (float, long int, c10::BFloat16, ...)."""
    return _C_TYPE_NAMES.get(dt, str(dt))


def no_kernel(kernel, dtype, error=NotImplementedError):
    """torch's error for a dtype its kernel does not serve (`"abs_cpu" not implemented for 'Bool'`), to raise."""
    return error(f"\"{kernel}\" not implemented for '{type_name(dtype)}'")


def _check_out_tensor(out, name, position=None):
    if not isinstance(out, Tensor):
        where = "argument 'out'" if position is None else f"element {position} of argument 'out'"
        raise TypeError(f"{name}(): {where} must be Tensor, not {type(out).__name__}")


def out_dtype(out, name):
    """The dtype an op computes in when it takes it from its `out=` tensor (sum, cumsum, the factories)."""
    _check_out_tensor(out, name)
    return out.dtype


def _checked_value(out, result, name, exact):
    """`result` converted to what `out` receives, after torch's dtype rules for `out=`."""
    if result._dtype is not out._dtype:
        if exact:
            # ops whose out variant has no cast step (matmul, gather, sort, ...) want the result's own dtype
            raise RuntimeError(f"{name}(): expected out tensor to have dtype {type_name(result.dtype)}, but got "
                               f"{type_name(out.dtype)} instead")
        if dtype_category(result.dtype) > dtype_category(out.dtype):  # torch's can_cast: never to a lower kind
            raise RuntimeError(f"result type {type_name(result.dtype)} can't be cast to the desired output type "
                               f"{type_name(out.dtype)}")
        result = result.astype(out.dtype)
    return result


def _fresh(value):
    """A copy of `value` sharing no storage with it (it becomes `out`'s new storage on a resize)."""
    if value.dtype == mindspore.bfloat16:
        return Tensor.from_numpy(value.astype(mindspore.float32).asnumpy().copy()).astype(mindspore.bfloat16)
    return Tensor.from_numpy(value.asnumpy().copy(order="C"))  # (ascontiguousarray would make a 0-d array 1-d)


def _write(out, value, name, warn_resize):
    from .. import _inplace

    if value._shape == out._shape:
        return _inplace.assign(out, value)
    # torch resizes an out of another shape; MindSpore cannot resize storage in place, so `out` takes a new one
    # (keeping its identity; a view of the old `out` then no longer aliases it)
    if out._is_leaf and out._requires_grad and _ms.grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if warn_resize and out.numel() != 0:
        import warnings

        warnings.warn(f"{name}(): an output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape {list(value.shape)}. "
                      f"This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                      f"unless they have zero elements.", UserWarning, stacklevel=4)
    _inplace.swap_data(out, _fresh(value))
    return out


def _check_no_grad(results, outs, name):
    from .._tensor import _get_requires_grad

    refused = any(r._requires_grad and _get_requires_grad(r) for r in results)  # (recorded only in grad mode)
    if not refused and any(o._requires_grad for o in outs):  # torch counts out itself among the arguments
        refused = _ms.grad_enabled() and any(_get_requires_grad(o) for o in outs)
    if refused:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           f"differentiation, but one of the arguments requires grad.")


def write_out(out, result, name, *, exact=False, warn_resize=True, differentiable=True, grad_inputs=()):
    """torch's `out=` for an op whose value is `result`: `out` must be a tensor whose dtype the result can be
    cast to (same dtype where `exact`), is resized when its shape differs (with torch's warning if it was not
    empty), receives the value in place and is returned. Like torch, refuse while an input requires grad in
    grad mode (seen on `result`: an op output requires grad exactly then; an op computed on the host names its
    inputs in `grad_inputs` instead)."""
    _check_out_tensor(out, name)
    if differentiable:
        _check_no_grad((result,), (out,) + tuple(t for t in grad_inputs if isinstance(t, Tensor)), name)
    return _write(out, _checked_value(out, result, name, exact), name, warn_resize)


def write_outs(outs, results, name, *, exact=True, warn_resize=True):
    """`write_out` for an op returning several tensors (`max(dim)`, `sort`, `topk`): `outs` is a tuple of as many
    tensors; returns `results`' tuple type holding the `outs` tensors."""
    if not isinstance(outs, (tuple, list)) or len(outs) != len(results):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors, not "
                        f"{type(outs).__name__}" + (f" of length {len(outs)}" if isinstance(outs, (tuple, list))
                                                     else ""))
    for i, o in enumerate(outs):
        _check_out_tensor(o, name, i)
    _check_no_grad(results, outs, name)
    values = [_checked_value(o, r, name, exact) for o, r in zip(outs, results)]
    for o, v in zip(outs, values):
        _write(o, v, name, warn_resize)
    return type(results)(*outs) if hasattr(results, "_fields") else tuple(outs)


def dtype_category(dt):
    """bool 0 < integer 1 < floating 2 < complex 3: torch promotes across kinds by this order."""
    from .. import _dtype

    return 0 if dt == mindspore.bool_ else 1 if dt in _dtype.INTEGRAL else 2 if dt in _dtype.FLOATING else 3


def result_dtype(dtypes):
    """torch's promotion among tensors: the highest category (bool < integer < floating < complex) wins, and only
    dtypes of that category are widened against each other (int64 with float32 is float32, unlike NumPy)."""
    from .. import _dtype

    dtypes = list(dtypes)
    top = max(dtype_category(d) for d in dtypes)
    result = None
    for d in dtypes:
        if dtype_category(d) == top:
            result = d if result is None or result == d else _dtype.promote_types(result, d)
    return result


def _with_numpy_names(fn):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        if "axis" in kwargs:
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)

    # a call without keyword arguments needs no renaming: an outer wrapper may call `fn` directly
    op.__without_keywords__ = fn
    return op


def accept_numpy_names(namespace, module_name):
    """torch's argument parser also takes NumPy's spellings `axis=` and `keepdims=` for `dim=` and `keepdim=`
    (transformers' beam search calls `torch.all(x, axis=-1, keepdims=True)`): wrap, in `namespace` (a module's
    globals), each public op of that module that has a `dim` parameter."""
    for name, value in list(namespace.items()):
        if (name.startswith("_") or not inspect.isfunction(value) or value.__module__ != module_name
                or "dim" not in inspect.signature(value).parameters):
            continue
        namespace[name] = _with_numpy_names(value)
