"""Tensor creation: from data, filled, ranges, and `*_like` variants."""
import math
import numbers

import numpy as np
import mindspore
from mindspore import ops

from .. import _dtype, _float8
from .. import _device_context
from . import _promotion
from .._device import check_reachable
from ._util import no_kernel, out_dtype, shape_arg, Tensor, type_name, write_out


def _finish(t, device, requires_grad):
    dev = check_reachable(device) if device is not None else _device_context.current()
    if dev.type == "meta":
        t._is_meta = True  # real storage, labelled meta (see _device_context)
    if requires_grad:
        t.requires_grad_(True)
    return t


_PYTHON_SCALARS = (bool, int, float, complex)  # exact types: np.float64 is a float but keeps its own dtype


def _numpy_from_data(data, dtype=None):
    """Python numbers (nested lists of them) or NumPy data as a NumPy array with torch's dtype inference. With an
    explicit `dtype` Python floats stay double until the cast to it (torch reads them as doubles)."""
    arr = np.asarray(data)
    from_numpy = isinstance(data, (np.ndarray, np.generic))  # NumPy data keeps its dtype (np.float64 is a float)
    if not from_numpy and (arr.dtype.kind in "uO" or arr.dtype.kind == "f" and (np.abs(arr) >= 2.0 ** 63).any()) \
            and _has_int_past_int64(data):
        return _with_ints_past_int64(data, dtype)
    if not from_numpy:
        if arr.dtype.kind == "c":
            _check_complex_fits(dtype)
        if dtype in _dtype.INTEGRAL and arr.dtype.kind in "biuf":
            return _integers_from_elements(data, arr, dtype)
    if dtype is not None and arr.dtype.kind in "fc":
        return arr
    if arr.dtype == np.float64 and not from_numpy:
        arr = arr.astype(_dtype.to_numpy_dtype(_dtype.get_default_dtype()))  # Python floats: default dtype
    elif arr.dtype.kind in "iu" and not from_numpy and arr.dtype != np.uint8:
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "c" and not from_numpy:  # Python complex numbers: the default dtype's complex
        arr = arr.astype(np.complex128 if _dtype.get_default_dtype() == mindspore.float64 else np.complex64)
    elif arr.dtype.kind in "OUS":
        raise TypeError(f"torch.tensor(): could not infer a numeric dtype from data of type {type(data).__name__}")
    return arr


def _has_int_past_int64(data):
    """Whether Python numbers hold an int past int64 (NumPy made them uint64, float64 or objects)."""
    leaves = _leaves(data)
    return all(type(x) in _PYTHON_SCALARS for x in leaves) and \
        any(type(x) is int and not -2 ** 63 <= x < 2 ** 63 for x in leaves)


def _with_ints_past_int64(data, dtype):
    """Python numbers among which an int lies past int64 (NumPy chose uint64 or objects for them). torch infers the
    dtype from the kinds of number (int64 for ints) and writes each number by its own conversion: into a floating
    or complex dtype as a double, into bool as its truth, into an integral dtype not at all."""
    if dtype is None:
        kinds = {type(x) for x in _leaves(data)}
        dtype = (_default_complex() if complex in kinds else _dtype.get_default_dtype() if float in kinds
                 else mindspore.int64)
    if dtype == mindspore.bool_:
        return np.array(_nested_map(data, bool))
    if dtype in _dtype.INTEGRAL:
        raise ValueError("Overflow when unpacking long long")
    if dtype in _dtype.COMPLEX:
        return np.array(_nested_map(data, complex), dtype=np.complex128).astype(_dtype.to_numpy_dtype(dtype))
    if any(type(x) is complex for x in _leaves(data)):
        raise TypeError("must be real number, not complex")
    arr = np.array(_nested_map(data, float), dtype=np.float64)
    return arr if dtype == mindspore.bfloat16 else arr.astype(_dtype.to_numpy_dtype(dtype))


def _integers_from_elements(data, arr, dtype):
    """A list's numbers written into the integral `dtype` one by one, each by its own Python type as torch
    writes it: an int (a bool, an integer tensor or NumPy integer) wraps, so -7 in uint8 is 249; a float must
    lie in the range and is truncated. In one NumPy array -7 beside 1.5 would be the float -7.0, which does not
    fit uint8. `arr` is the data as one NumPy array."""
    if arr.dtype.kind in "bi":  # (only ints and bools: each fits where the extremes do, and the cast wraps)
        if arr.size:
            _dtype.check_fits(arr.min().item(), dtype)
            _dtype.check_fits(arr.max().item(), dtype)
        return arr.astype(_dtype.to_numpy_dtype(dtype))

    def written(x):
        if isinstance(x, np.ndarray):  # (an array in the list: its rows)
            return _nested_map(x.tolist(), written)
        value = x.item() if isinstance(x, (Tensor, np.generic)) else x
        _dtype.check_fits(value, dtype)
        return _dtype.wrapped_to(int(value), dtype)

    return np.array(_nested_map(data, written), dtype=_dtype.to_numpy_dtype(dtype))


def _check_complex_fits(dtype):
    """torch reads a Python complex number into a real dtype as an error (into bool: whether it is nonzero)."""
    if dtype is not None and dtype not in _dtype.COMPLEX and dtype != mindspore.bool_:
        raise TypeError(f"torch.tensor(): a complex number cannot be converted to {type_name(dtype)}")


def _flat(seq):
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _leaves(data):
    return list(_flat(data)) if isinstance(data, (list, tuple)) else [data]


def _nested_map(seq, fn):
    if isinstance(seq, (list, tuple)):
        return [_nested_map(x, fn) for x in seq]
    return fn(seq)


def _leaf_dtype(leaf):
    """torch's dtype for one element of the data: a tensor's or NumPy value's own, a Python number's default."""
    if isinstance(leaf, Tensor):
        return leaf.dtype
    if isinstance(leaf, (np.ndarray, np.generic)):
        return _dtype.from_numpy_dtype(leaf.dtype)
    dtype = _promotion._scalar_dtype(leaf)  # (a Python number's: bool, int64, the default float or complex)
    if dtype is None:
        raise TypeError(f"Could not infer dtype of {type(leaf).__name__}")
    return dtype


def _check_element_readable(x, dtype):
    """Whether torch reads one element of the data into `dtype`. Into an integral or bool dtype it reads through
    __index__: a float or complex tensor is refused, and so are NumPy floats other than float64 (a Python float
    subclass) and NumPy complex values other than complex128 (a Python complex subclass, truthy into bool). A
    tensor is one number, so one of several elements (or none) is an error, not a row."""
    to_integers = dtype in _dtype.INTEGRAL or dtype == mindspore.bool_
    if isinstance(x, Tensor):
        if to_integers and (x.numel() != 1 or not (x.dtype in _dtype.INTEGRAL or x.dtype == mindspore.bool_)):
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if x.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if x.dtype in _dtype.COMPLEX and dtype not in _dtype.COMPLEX:
            raise RuntimeError(f"value cannot be converted to type {type_name(dtype)} without overflow")
    elif isinstance(x, (np.ndarray, np.generic)):
        kind, name = x.dtype.kind, x.dtype.name
        readable = (kind not in "fc" or name == "float64"
                    or (name == "complex128" and dtype == mindspore.bool_))
        if to_integers and not readable:
            raise TypeError(f"'numpy.{name}' object cannot be interpreted as an integer")
    elif type(x) is complex:
        _check_complex_fits(dtype)


def _holds_tensors_or_numpy(data):
    return isinstance(data, (list, tuple)) and any(type(x) not in _PYTHON_SCALARS for x in _flat(data))


def _numpy_from_mixed(data, dtype):
    """Data holding tensors or NumPy values, as a NumPy array and the dtype torch gives it: the promotion of
    every element's own (torch's rule, not NumPy's); each tensor is one element."""
    leaves = list(_flat(data))
    if dtype is None:
        dtype = _dtype.get_default_dtype()
        if leaves:
            dtype = _leaf_dtype(leaves[0])
            for leaf in leaves[1:]:
                dtype = _dtype.promote_types(dtype, _leaf_dtype(leaf))
    for leaf in leaves:
        _check_element_readable(leaf, dtype)
    arr = np.asarray(_nested_map(data, lambda x: x.item() if isinstance(x, Tensor) else x))
    if arr.dtype.kind in "OUS":
        raise TypeError("torch.tensor(): could not build a tensor from data of mixed shapes or types")
    if dtype in _dtype.INTEGRAL and arr.dtype.kind in "biuf":
        return _integers_from_elements(data, arr, dtype), dtype
    return arr, dtype


def _from_numpy_copy(arr, dtype=None):
    if dtype is not None:
        if dtype == mindspore.bfloat16:
            return Tensor(np.asarray(arr, dtype=np.float32, order="C")).astype(mindspore.bfloat16)  # keeps 0-d
        with np.errstate(over="ignore", invalid="ignore"):  # (1e5 in float16 is inf, as torch's, without a warning)
            arr = arr.astype(_dtype.to_numpy_dtype(dtype), copy=False)
    if arr.dtype == np.float64 and arr.ndim == 0:
        arr = arr.reshape(())
    return Tensor(np.array(arr, copy=True, order="C"))


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if dtype in _float8.FLOAT8 and not isinstance(data, Tensor):  # the values as float32, then their codes
        return _finish(tensor(data, dtype=mindspore.float32).to(dtype), device, requires_grad)
    if isinstance(data, Tensor):
        t = data.detach().clone() if dtype is None else data.detach().to(dtype).clone()
    else:
        if _holds_tensors_or_numpy(data):
            arr, dtype = _numpy_from_mixed(data, dtype)
        else:
            arr = _numpy_from_data(data, dtype)
        t = _from_numpy_copy(arr, dtype)
    return _finish(t, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        t = data if dtype is None or data.dtype == dtype else data.to(dtype)
        return _finish(t, device, False)
    if isinstance(data, np.ndarray) and data.flags["C_CONTIGUOUS"] and dtype is None and data.dtype.kind in "biufc":
        return _finish(Tensor.from_numpy(data), device, False)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    from .._tensor import UntypedStorage

    if isinstance(obj, UntypedStorage):
        if obj._array is None:
            raise NotImplementedError("torch.asarray(tensor.untyped_storage()) is not supported on MindSpore")
        arr = obj._array if dtype in (None, mindspore.uint8) else obj._array.view(_dtype.to_numpy_dtype(dtype))
        return _finish(Tensor.from_numpy(np.asarray(arr)), device, requires_grad)
    t = tensor(obj, dtype=dtype) if copy else as_tensor(obj, dtype=dtype)
    return _finish(t, device, requires_grad)


def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise NotImplementedError("torch.from_numpy() of a non-contiguous array is not supported on MindSpore: "
                                  "MindSpore tensors are dense; pass np.ascontiguousarray(a) (this copies)")
    return Tensor.from_numpy(ndarray)


def _default_complex():
    """The complex dtype of the default float dtype (torch.full(..., 1j) is complex64 by default)."""
    return mindspore.complex128 if _dtype.get_default_dtype() == mindspore.float64 else mindspore.complex64


def _filled(size, value, dtype, device, requires_grad):
    shape = shape_arg(size)
    if dtype is None:
        dtype = (mindspore.bool_ if isinstance(value, bool) else mindspore.int64
                 if isinstance(value, numbers.Integral) else _default_complex() if isinstance(value, complex)
                 else _dtype.get_default_dtype())
    # (torch checks a float16/bfloat16 fill against the dtype's range, except for a one-element tensor)
    if dtype in _float8.FLOAT8:  # its codes, from the value as float32 (torch converts through float)
        codes = _float8.encode(np.full(shape, value, dtype=np.float32), dtype)
        return _finish(_float8.from_codes(codes, dtype), device, requires_grad)
    _dtype.check_fits(value, dtype, narrow_floats=math.prod(shape) != 1)
    value = _dtype.real_scalar(value, dtype)
    if dtype == mindspore.bfloat16:
        t = ops.fill(mindspore.float32, shape, value).astype(dtype)
    elif value == 0:
        # zeros (and empty) on NumPy's zeroed allocation, which the tensor takes without a copy: the system maps
        # zero pages as they are first written, so a large tensor costs neither time nor memory until then (as
        # torch's empty; accelerate's init_empty_weights builds 100-billion-parameter models this way)
        t = Tensor.from_numpy(np.zeros(shape, dtype=_dtype.to_numpy_dtype(dtype)))
    else:
        t = Tensor(np.full(shape, value, dtype=_dtype.to_numpy_dtype(dtype)))
    return _finish(t, device, requires_grad)


def _factory_out(out, result, name, warn_resize=False):
    # a factory's out= takes the values in out's dtype; torch resizes it without a warning (arange: with one)
    return write_out(out, result, name, warn_resize=warn_resize, differentiable=False)


def zeros(*shape, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    if out is not None:
        return _factory_out(out, zeros(*shape, size=size, dtype=dtype or out_dtype(out, "zeros")), "zeros")
    return _filled(shape if size is None else (size,), 0, dtype or _dtype.get_default_dtype(), device, requires_grad)


def ones(*shape, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    if out is not None:
        return _factory_out(out, ones(*shape, size=size, dtype=dtype or out_dtype(out, "ones")), "ones")
    return _filled(shape if size is None else (size,), 1, dtype or _dtype.get_default_dtype(), device, requires_grad)


def empty(*shape, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    if out is not None:
        return _factory_out(out, empty(*shape, size=size, dtype=dtype or out_dtype(out, "empty")), "empty")
    # torch leaves the memory uninitialised; zeros are one valid such content
    return _filled(shape if size is None else (size,), 0, dtype or _dtype.get_default_dtype(), device, requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if out is not None:
        return _factory_out(out, full(size, fill_value, dtype=dtype or out_dtype(out, "full")), "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _filled((size,) if isinstance(size, int) else (tuple(size),), fill_value, dtype, device, requires_grad)


def _like(fn, input, dtype, device, requires_grad, *args):
    # (on the input's device unless one is given: torch's default-device context does not reach *_like)
    return fn(input.shape, *args, dtype=dtype or input.dtype, device=device if device is not None else input.device,
              requires_grad=requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(zeros, input, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(ones, input, dtype, device, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(empty, input, dtype, device, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return full(input.shape, fill_value, dtype=dtype or input.dtype,
                device=device if device is not None else input.device, requires_grad=requires_grad)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if out is not None:
        return _factory_out(out, arange(start, end, step, dtype=dtype or out_dtype(out, "arange")), "arange",
                            warn_resize=True)
    if dtype == mindspore.bool_ or dtype in _dtype.COMPLEX:
        raise no_kernel("arange_cpu", dtype)
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if values[2] == 0:
        raise RuntimeError("torch.arange: step must be nonzero")
    if (values[1] - values[0]) * values[2] < 0:  # (NumPy gives an empty range)
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = mindspore.int64 if all(isinstance(v, numbers.Integral) for v in values) else _dtype.get_default_dtype()
    arr = np.arange(*values, dtype=np.float64 if dtype.is_floating_point else np.int64)
    return _finish(_from_numpy_copy(arr, dtype), device, requires_grad)


def _refuse_bool(dtype, name):
    if dtype == mindspore.bool_:  # (torch has no bool kernel for the spaced ranges)
        raise no_kernel(f"{name}_cpu", mindspore.bool_)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if out is not None:
        return _factory_out(out, linspace(start, end, steps, dtype=dtype or out_dtype(out, "linspace")), "linspace")
    _refuse_bool(dtype, "linspace")
    dtype = dtype or _dtype.get_default_dtype()
    if dtype in _dtype.COMPLEX or isinstance(start, complex) or isinstance(end, complex):
        arr = np.linspace(start, end, int(steps))
    else:
        arr = _torch_linspace(start, end, int(steps), dtype)
    return _finish(_from_numpy_copy(arr, dtype), device, requires_grad)


def _bfloat16_linspace(start, end, steps):
    """_torch_linspace in bfloat16 arithmetic: every operation rounded to bfloat16."""
    from .._generator.sampling import to_bfloat16 as _to_bfloat16

    first, last = _to_bfloat16(np.float32(start)), _to_bfloat16(np.float32(end))
    if steps <= 1:
        return np.full(steps, first, np.float32)
    index = np.arange(steps, dtype=np.float32)
    step = _to_bfloat16(_to_bfloat16(last - first) / np.float32(steps - 1))
    low = _to_bfloat16(first + _to_bfloat16(step * _to_bfloat16(index)))
    high = _to_bfloat16(last - _to_bfloat16(step * _to_bfloat16(np.float32(steps - 1) - index)))
    return np.where(np.arange(steps) < steps // 2, low, high)


def _torch_linspace(start, end, steps, dtype):
    """torch's CPU linspace, value for value: start and end converted to the dtype, the step (end - start) /
    (steps - 1) in its arithmetic (double for integers), the first half start + step * i and the second half
    end - step * (steps - 1 - i), each a fused multiply-add with one rounding (emulated in long double; float16
    and bfloat16 round each operation). np.linspace rounds differently in about half the float32 cases (1 ulp)."""
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    if dtype is mindspore.bfloat16:
        return _bfloat16_linspace(float(start), float(end), steps)
    integral = dtype in _dtype.INTEGRAL
    target = np.int64 if integral else np.float16 if dtype is mindspore.float16 else \
        np.float64 if dtype is mindspore.float64 else np.float32  # (bfloat16 through float32)
    calc = np.float64 if integral else target
    first, last = (calc(target(v)) if integral else calc(v) for v in (float(start), float(end)))
    if steps <= 1:
        return np.full(steps, first, calc)
    index = np.arange(steps)
    step = (last - first) / calc(steps - 1)
    wide = np.float16 if calc is np.float16 else np.longdouble
    low = (wide(first) + wide(step) * index.astype(wide)).astype(calc)
    high = (wide(last) - wide(step) * (steps - 1 - index).astype(wide)).astype(calc)
    return np.where(index < steps // 2, low, high)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if out is not None:
        return _factory_out(out, logspace(start, end, steps, base, dtype=dtype or out_dtype(out, "logspace")),
                            "logspace")
    _refuse_bool(dtype, "logspace")
    arr = np.logspace(float(start), float(end), int(steps), base=base)
    return _finish(_from_numpy_copy(arr, dtype or _dtype.get_default_dtype()), device, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if out is not None:
        return _factory_out(out, eye(n, m, dtype=dtype or out_dtype(out, "eye")), "eye")
    arr = np.eye(n, n if m is None else m)
    return _finish(_from_numpy_copy(arr, dtype or _dtype.get_default_dtype()), device, requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _filled((), s, dtype or _dtype.get_default_dtype(), device, requires_grad)
