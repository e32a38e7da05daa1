"""Small argument helpers shared by the op families."""
import functools
import inspect

import mindspore
import numpy as np

Tensor = mindspore.Tensor


def shape_arg(size):
    """torch accepts sizes as varargs or as one sequence: `zeros(2, 3)`, `zeros((2, 3))`, `zeros([2, 3])`."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(map(int, size))


def wrap_dim(dim, ndim):
    if dim < 0:
        dim += max(ndim, 1)
    return dim


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


def reject_out(out, name):
    if out is not None:
        raise NotImplementedError(f"torch.{name}(..., out=...) is not supported: MindSpore tensors cannot be "
                                  f"resized in place; use the returned tensor")


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
