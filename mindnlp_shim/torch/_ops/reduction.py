"""Reductions, scans, sorting and the softmax family."""

import numpy as np
import mindspore
from mindspore import mint, ops

from .. import _dtype
from .softmax_kernel import softmax_kernel
from . import host_small, pointwise
from ._util import no_kernel, out_dtype, Tensor, type_name, wrap_dim, write_out, write_outs
from .._runtime import ON_CPU, grad_enabled
from ..autograd.function import Function, first_order_only
from ..return_types import return_type
from ... import _mindspore as _ms

# a set: `dtype in` costs one hash, where a tuple costs one Python-level dtype comparison per entry
_INTEGRAL_TO_LONG = frozenset({mindspore.bool_, mindspore.int8, mindspore.int16, mindspore.int32, mindspore.uint8})
_FLOATING_OR_COMPLEX = _dtype.FLOATING | _dtype.COMPLEX


def _dim_tuple(dim):
    if dim is None:
        return None
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def _compute_dtype(out, name):
    """The dtype an op that computes in its out's dtype (sum, cumsum, ...) uses: out's, but float32 for a
    bfloat16 out (no bf16 reduction kernels on the CPU; the result is rounded into out)."""
    dtype = out_dtype(out, name)
    return mindspore.float32 if dtype == mindspore.bfloat16 else dtype


def _empty_reduction(input, dim, keepdim, fill, dtype):
    """MindSpore's CPU reductions return garbage on empty inputs: answer torch's value directly."""
    shape = list(input.shape)
    dims = range(len(shape)) if dim is None else [wrap_dim(d, len(shape)) for d in ((dim,) if isinstance(dim, int)
                                                                                       else dim)]
    for d in sorted(dims, reverse=True):
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    out = ops.fill(dtype, tuple(shape), fill)
    if (input._requires_grad or not input._is_leaf) and dtype in (input.dtype, mindspore.float32, mindspore.float64):
        # stay in the graph (torch: `x[empty_mask].sum().backward()` works and gives zero gradients)
        zero = mint.sum(ops.cat((input.reshape(-1).astype(dtype), _ms.zeros(1, dtype))))
        out = ops.add(out, ops.mul(zero, 0))
    return out


def _check_differentiable_dtype(input, dtype):
    """torch refuses a `dtype=` without gradients (integers, bool) for a sum, product or cumulative op of an input
    that autograd records (MindSpore's kernel returns a result that silently drops out of the graph)."""
    if dtype is not None and dtype not in _FLOATING_OR_COMPLEX and (input._requires_grad or not input._is_leaf) \
            and grad_enabled():
        raise RuntimeError(f"Autograd not support dtype: {type_name(dtype)}")


def _as_bool(input):
    return input if input._dtype is mindspore.bool_ else ops.not_equal(input, 0)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:  # torch sums in out's dtype
        return write_out(out, sum(input, dim, keepdim, dtype=dtype or _compute_dtype(out, "sum")), "sum")
    _check_differentiable_dtype(input, dtype)
    if dtype is mindspore.bool_:  # torch sums in bool: whether any element is true
        return ops.not_equal(sum(_as_bool(input), dim, keepdim, dtype=mindspore.int64), 0)
    if dtype is None and input._dtype in _INTEGRAL_TO_LONG:
        dtype = mindspore.int64
    if 0 in input._shape:  # empty
        return _empty_reduction(input, dim, keepdim, 0, dtype or input.dtype)
    if dtype is not None and dtype != input.dtype:
        input = input.astype(dtype)
    if input._dtype in _INTEGER_SUMS and ON_CPU:
        # exact and wrapping, as torch's: MindSpore's CPU sum of int64 goes through float64 (it saturated at
        # -2^63 and lost the low digits past 2^53)
        axis = dim if dim is None or type(dim) is int else tuple(_dim_tuple(dim)) or None  # (dim=() is all)
        if type(dim) is int or axis is not None:
            for d in ((dim,) if type(dim) is int else axis):
                wrap_dim(d, input.ndim or 1)  # (torch's IndexError; `max` here is torch.max)
        values = input.asnumpy()
        return Tensor(np.asarray(np.sum(values, axis=axis, keepdims=keepdim, dtype=values.dtype)))
    return _in_dtype(mint.sum(input, dim if dim is None or type(dim) is int else _dim_tuple(dim), keepdim), dtype)


_INTEGER_SUMS = (mindspore.int64, mindspore.int32, mindspore.int16, mindspore.int8, mindspore.uint8)


def _in_dtype(result, dtype):
    """`result` in the `dtype` asked for: MindSpore sums and multiplies narrow integers in int64. (Both wrap
    modulo 2^bits, so the int64 result cast down is the narrow type's own.)"""
    return result if dtype is None or result._dtype is dtype else result.astype(dtype)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        if out_dtype(out, "nansum") not in _FLOATING_OR_COMPLEX:
            raise no_kernel("nansum_cpu", out.dtype)
        return write_out(out, nansum(input, dim, keepdim, dtype=dtype or _compute_dtype(out, "nansum")), "nansum")
    if dtype in _dtype.COMPLEX or input._dtype in _dtype.COMPLEX:
        raise no_kernel("nansum_cpu", dtype or input.dtype)
    return sum(ops.where(ops.isnan(input), ops.zeros_like(input), input), dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        return write_out(out, mean(input, dim, keepdim, dtype=dtype), "mean")
    if dtype is not None:
        input = input.astype(dtype)
    if input._dtype not in _FLOATING_OR_COMPLEX:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {str(input.dtype).replace('torch.', '').capitalize()}")
    if 0 in input._shape:  # empty
        return _empty_reduction(input, dim, keepdim, float("nan"), input.dtype)
    rank = input.ndim or 1  # (`max` here is torch.max)
    if type(dim) is int and not -rank <= dim < rank:  # (MindSpore's own error is a ValueError)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    if type(keepdim) is bool:
        on_host = host_small.mean(input, dim, keepdim)
        if on_host is not None:
            return on_host
    return mint.mean(input, dim if dim is None or type(dim) is int else _dim_tuple(dim), keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:  # computed in out's dtype, as torch does
        return write_out(out, prod(input, dim, keepdim, dtype=dtype or _compute_dtype(out, "prod")), "prod")
    _check_differentiable_dtype(input, dtype)
    if dtype is mindspore.bool_:  # torch multiplies in bool: whether every element is true
        return ops.equal(sum(ops.logical_not(_as_bool(input)), dim, keepdim, dtype=mindspore.int64), 0)
    if dtype is None and input.dtype in _INTEGRAL_TO_LONG:
        dtype = mindspore.int64
    if dtype is not None:
        input = input.astype(dtype)
    if input.numel() == 0:  # the empty product is 1 (MindSpore's kernel leaves such outputs unset)
        n = input.ndim or 1
        if dim is not None and not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return _empty_reduction(input, dim, keepdim, 1, input.dtype)
    return _in_dtype(ops.prod(input, dim, keepdim), dtype)


_NAN_FLOATS = frozenset({mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64})


def _nan_slices(input, out, dims, keepdim, indices=None, spread=False):
    """`out`, a max or min of `input` over `dims` (None: all of it), with NaN for the slices that hold a NaN, as
    torch's (MindSpore's kernels skip NaN); `indices` (max/min over one dim) then point at the slice's first NaN.
    The NaN results take no gradient, as amax's in torch, or with `spread` (max()/min() of everything) pass it in
    equal parts to the NaN elements, as torch's."""
    if input._dtype not in _NAN_FLOATS:
        return out if indices is None else (out, indices)
    nan = ops.isnan(input)
    slices = ops.any(nan, dims, keepdim) if dims is not None else ops.any(nan)
    if spread:
        nan_part = ops.div(ops.sum(ops.where(nan, input, ops.zeros_like(input))), ops.sum(nan.astype(input.dtype)))
        return ops.where(slices, nan_part, out)
    if indices is None:
        return ops.where(slices, ops.stop_gradient(ops.mul(out, float("nan"))), out)
    first = ops.argmax(nan.astype(mindspore.int32), dims, True).astype(indices.dtype)
    nan_values = ops.gather_elements(input, dims, first)  # (the NaN itself: its gradient goes there, as torch's)
    if not keepdim:
        first, nan_values = ops.squeeze(first, dims), ops.squeeze(nan_values, dims)
    return ops.where(slices, nan_values, out), ops.where(slices, first, indices)


def _max_min(ms_reduce, ms_elementwise, name):
    def op(input, dim=None, keepdim=False, *, out=None):
        if out is not None:
            adapted = globals()[name]  # (the module's op: the one adapted per target)
            if isinstance(dim, Tensor):
                return write_out(out, adapted(input, dim), name)
            if dim is None:
                return write_out(out, adapted(input), name, exact=True)
            return write_outs(out, adapted(input, dim, keepdim), name)
        if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
            return ms_elementwise(input, dim)
        if dim is None:
            on_host = host_small.extreme(np.max if name == "max" else np.min, input)
            if on_host is not None:
                return on_host
            if input.numel() == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   f"Specify the reduction dim with the 'dim' argument.")
            return _nan_slices(input, ms_reduce(input), None, False, spread=True)
        if input._dtype is mindspore.bool_:  # (no bool kernel: on 0/1 bytes, the values read back as bools)
            values, indices = op(input.astype(mindspore.uint8), dim, keepdim)
            return result_type(values.astype(mindspore.bool_), indices)
        if 0 in input._shape:  # (MindSpore's kernels refuse empty input; torch's answer is empty or an error)
            _check_extreme_dims(input, dim, name)
            values = sum(input, dim, keepdim)  # (empty, and in the graph when input is)
            return result_type(values.astype(input.dtype), _ms.zeros(values._shape, mindspore.int64))
        values, indices = ms_reduce(input, dim, keepdim)
        dim = wrap_dim(dim, len(input._shape))
        return result_type(*_nan_slices(input, values, dim, keepdim, indices.astype(mindspore.int64)))

    result_type = return_type(name, ["values", "indices"])
    op.__name__ = name
    return op


max = _max_min(mint.max, pointwise.maximum, "max")
min = _max_min(mint.min, pointwise.minimum, "min")


def _check_extreme_dims(input, dim, name):
    """torch's refusals of a maximum or minimum of nothing: no dim given on an empty input, or a dim of size 0
    (MindSpore gives -inf/+inf, or the dtype's extreme)."""
    shape = input._shape
    if 0 not in shape:
        return
    if dim == () or dim is None:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):
        d = wrap_dim(d, len(shape))
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def amax(input, dim=(), keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, amax(input, dim, keepdim), "amax", exact=True)
    _check_extreme_dims(input, dim, "amax")
    if input._dtype is mindspore.bool_:  # (no bool kernel: the largest of 0/1 is any)
        return amax(input.astype(mindspore.uint8), dim, keepdim).astype(mindspore.bool_)
    dims = _dim_tuple(dim) if dim != () else None
    # (MindSpore's full reduction of float16 answers float32: torch keeps the dtype)
    return _in_dtype(_nan_slices(input, ops.amax(input, dims, keepdim), dims, keepdim), input._dtype)


def amin(input, dim=(), keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, amin(input, dim, keepdim), "amin", exact=True)
    _check_extreme_dims(input, dim, "amin")
    if input._dtype is mindspore.bool_:
        return amin(input.astype(mindspore.uint8), dim, keepdim).astype(mindspore.bool_)
    dims = _dim_tuple(dim) if dim != () else None
    return _in_dtype(_nan_slices(input, ops.amin(input, dims, keepdim), dims, keepdim), input._dtype)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    if out is not None:
        return write_outs(out, aminmax(input, dim=dim, keepdim=keepdim), "aminmax")
    mm = return_type("aminmax", ["min", "max"])
    _check_extreme_dims(input, dim if dim is not None else (), "aminmax")
    return mm(amin(input, dim if dim is not None else (), keepdim), amax(input, dim if dim is not None else (), keepdim))


def _no_bool_extreme(input, name):
    if input.dtype == mindspore.bool_:  # (MindSpore's kernels and NumPy's answer; torch has no kernel)
        raise no_kernel(f"{name}_cpu", mindspore.bool_, RuntimeError)


def _arg_extreme_of_empty(input, dim, keepdim, name):
    """argmax/argmin along a dim of an empty tensor: torch's error for an empty reduced dim, else the empty
    result (MindSpore's kernels refuse empty input). None for a non-empty input."""
    if 0 not in input._shape:
        return None
    if dim is None:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    _check_extreme_dims(input, dim, name)
    dim = wrap_dim(dim, input.ndim)
    shape = tuple(1 if i == dim else n for i, n in enumerate(input._shape) if keepdim or i != dim)
    return _ms.zeros(shape, mindspore.int64)


def argmax(input, dim=None, keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, argmax(input, dim, keepdim), "argmax", exact=True)
    _no_bool_extreme(input, "argmax")
    empty = _arg_extreme_of_empty(input, dim, keepdim, "argmax")
    if empty is not None:
        return empty
    on_host = host_small.arg_extreme(np.argmax, input, dim, keepdim)
    if on_host is not None:
        return on_host
    if dim is None:
        return ops.argmax(input.reshape(-1), 0).astype(mindspore.int64)
    return ops.argmax(input, dim, keepdim).astype(mindspore.int64)


def argmin(input, dim=None, keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, argmin(input, dim, keepdim), "argmin", exact=True)
    _no_bool_extreme(input, "argmin")
    empty = _arg_extreme_of_empty(input, dim, keepdim, "argmin")
    if empty is not None:
        return empty
    on_host = host_small.arg_extreme(np.argmin, input, dim, keepdim)
    if on_host is not None:
        return on_host
    if dim is None:
        return ops.argmin(input.reshape(-1), 0).astype(mindspore.int64)
    return ops.argmin(input, dim, keepdim).astype(mindspore.int64)


def _uint8_like(input, result):
    """torch's all/any of a uint8 tensor are uint8 (0 or 1), of every other dtype bool."""
    return result.astype(mindspore.uint8) if input._dtype is mindspore.uint8 else result


def all(input, dim=None, keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, all(input, dim, keepdim), "all", exact=True)
    on_host = host_small.reduce_all_or_any(np.all, input, dim, keepdim)
    if on_host is not None:
        return _uint8_like(input, on_host)
    if input.numel() == 0:
        return _uint8_like(input, _empty_reduction(input, dim, keepdim, True, mindspore.bool_))
    return _uint8_like(input, ops.all(input.astype(mindspore.bool_), _dim_tuple(dim), keepdim))


def any(input, dim=None, keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, any(input, dim, keepdim), "any", exact=True)
    on_host = host_small.reduce_all_or_any(np.any, input, dim, keepdim)
    if on_host is not None:
        return _uint8_like(input, on_host)
    if input.numel() == 0:
        return _uint8_like(input, _empty_reduction(input, dim, keepdim, False, mindspore.bool_))
    return _uint8_like(input, ops.any(input.astype(mindspore.bool_), _dim_tuple(dim), keepdim))


def var(input, dim=None, *, correction=1, keepdim=False, unbiased=None, out=None):
    if out is not None:
        return write_out(out, var(input, dim, correction=correction, keepdim=keepdim, unbiased=unbiased), "var")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    if isinstance(dim, bool):  # legacy var(input, unbiased)
        correction, dim = (1 if dim else 0), None
    if input.dtype == mindspore.float16:  # torch accumulates in float32 (float16 squares overflowed to inf)
        return var(input.astype(mindspore.float32), dim, correction=correction, keepdim=keepdim) \
            .astype(mindspore.float16)
    m = mean(input, dim, keepdim=True)
    sq = ops.square(ops.sub(input, m))
    n = input.numel() if dim is None else _count(input, dim)
    return ops.div(sum(sq, dim, keepdim), n - correction if n > correction else 0)  # torch's divisor: 0 gives inf or nan


def _count(input, dim):
    n = 1
    for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
        n *= input.shape[d]
    return n


def std(input, dim=None, *, correction=1, keepdim=False, unbiased=None, out=None):
    if out is not None:
        return write_out(out, std(input, dim, correction=correction, keepdim=keepdim, unbiased=unbiased), "std")
    v = var(input, dim, correction=correction, keepdim=keepdim, unbiased=unbiased)
    # torch's backward gives a zero standard deviation a zero gradient (sqrt's own would be 0 * inf = nan):
    # the root of 1 stands in there, and the outer select sends it no gradient
    nonzero = ops.not_equal(v, 0)
    return ops.where(nonzero, ops.sqrt(ops.where(nonzero, v, ops.ones((), v.dtype))), _ms.zeros((), v.dtype))


def var_mean(input, dim=None, *, correction=1, keepdim=False, unbiased=None):
    return var(input, dim, correction=correction, keepdim=keepdim, unbiased=unbiased), mean(input, dim, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False, unbiased=None):
    return std(input, dim, correction=correction, keepdim=keepdim, unbiased=unbiased), mean(input, dim, keepdim)


def logsumexp(input, dim, keepdim=False, *, out=None):
    if out is not None:
        return write_out(out, logsumexp(input, dim, keepdim), "logsumexp")
    for d in (dim if isinstance(dim, (list, tuple)) else () if dim is None else (dim,)):
        wrap_dim(d, input.ndim)  # (torch's IndexError; MindSpore's kernel ignores a dim out of range on empty input)
    if input.dtype not in _dtype.FLOATING and input.dtype not in _dtype.COMPLEX:  # (torch: in the default float)
        input = input.astype(_dtype.get_default_dtype())
    if input.numel() == 0:  # the log of an empty sum: -inf (MindSpore's kernel reads no elements and returns junk)
        return ops.log(sum(ops.exp(input), dim, keepdim))
    if input._dtype not in _NAN_FLOATS:
        return ops.logsumexp(input, _dim_tuple(dim), keepdim)
    # torch's formula, m + log(sum(exp(x - m))) with m the slice's largest element, or 0 where that is infinite:
    # MindSpore's kernel gives NaN for a slice holding inf or only -inf (torch: inf, -inf), and its gradient NaN
    # for the whole slice
    dims = () if dim is None else dim
    top = ops.stop_gradient(amax(input, dims, True))
    top = ops.where(ops.isinf(top), ops.zeros_like(top), top)
    out = ops.add(pointwise.log(sum(pointwise.exp(ops.sub(input, top)), dim, True)), top)
    return out if keepdim else ops.squeeze(out, tuple(range(len(input._shape))) if dim is None else
                                            tuple(wrap_dim(d, len(input._shape)) for d in
                                                  (dim if isinstance(dim, (list, tuple)) else (dim,))))


def cumsum(input, dim, *, dtype=None, out=None):
    if out is not None:  # computed in out's dtype, as torch does
        return write_out(out, cumsum(input, dim, dtype=dtype or _compute_dtype(out, "cumsum")), "cumsum")
    _check_differentiable_dtype(input, dtype)
    if dtype is None and input.dtype in _INTEGRAL_TO_LONG:
        dtype = mindspore.int64
    if dtype is not None:
        input = input.astype(dtype)
    if input.ndim == 0:  # (MindSpore's kernel refuses rank 0; torch's answer is the element)
        wrap_dim(dim, 1)
        return ops.cumsum(input.reshape(1), 0).reshape(())
    if 0 in input.shape:  # (MindSpore's kernel fails on an empty tensor, or dies of a division by zero)
        wrap_dim(dim, input.ndim)
        return ops.mul(input, _ms.zeros((), input.dtype))  # (empty, and in the graph when input is)
    if input.dtype == mindspore.float16:  # torch accumulates in float32 (a float16 running sum drifts: 0.11 off)
        return ops.cumsum(input.astype(mindspore.float32), dim).astype(mindspore.float16)
    return ops.cumsum(input, dim)


def cumprod(input, dim, *, dtype=None, out=None):
    if out is not None:
        return write_out(out, cumprod(input, dim, dtype=dtype or _compute_dtype(out, "cumprod")), "cumprod")
    if dtype is mindspore.bool_:
        raise no_kernel("cumprod_out_cpu", mindspore.bool_)
    _check_differentiable_dtype(input, dtype)
    if dtype is not None:
        input = input.astype(dtype)
    elif input._dtype is mindspore.bool_ or input._dtype in _dtype.INTEGRAL:
        # torch's result is int64; MindSpore 2.7-2.9 have no bool CumProd kernel and keep int32 in some cases
        input = input.astype(mindspore.int64)
    if input.ndim == 0:  # (MindSpore's kernel refuses rank 0; torch's answer is the element)
        wrap_dim(dim, 1)
        return cumprod(input.reshape(1), 0).reshape(())
    if input.dtype == mindspore.float16:  # torch accumulates in float32
        return cumprod(input.astype(mindspore.float32), dim).astype(mindspore.float16)
    if grad_enabled() and input.requires_grad and input.dtype in _dtype.FLOATING and bool(ops.equal(input, 0).any()):
        return _CumprodThroughZeros.apply(input, wrap_dim(dim, input.ndim))
    return _in_dtype(ops.cumprod(input, dim), dtype)


class _CumprodThroughZeros(Function):
    """cumprod recorded with torch's gradient where the input holds zeros (MindSpore's divides by the input: NaN).
    The gradient at position i is the sum over j >= i of grad_j times the product of x_k for k <= j, k != i,
    computed along `dim` by the recurrence S_i = grad_i + x_(i+1) S_(i+1), times the product of the x before i."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.save_for_backward(x)
        ctx.dim = dim
        return ops.cumprod(x, dim)

    @staticmethod
    @first_order_only  # computed with NumPy
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        values = np.moveaxis(x.asnumpy(), ctx.dim, -1)
        g = np.moveaxis(grad.asnumpy(), ctx.dim, -1)
        n = values.shape[-1]
        before = np.ones_like(values)  # the product of the x before each position
        before[..., 1:] = np.cumprod(values[..., :-1], axis=-1)
        tails = np.empty_like(values)  # S_i
        tails[..., n - 1] = g[..., n - 1]
        for i in range(n - 2, -1, -1):
            tails[..., i] = g[..., i] + values[..., i + 1] * tails[..., i + 1]
        result = np.moveaxis(before * tails, -1, ctx.dim).reshape(x.shape)
        return Tensor(np.ascontiguousarray(result)), None




def softmax(input, dim=None, dtype=None, *, _stacklevel=3):
    if dtype is not None:
        input = input.astype(dtype)
    dim = wrap_dim(-1 if dim is None else dim, input.ndim)
    on_host = host_small.softmax(input, dim)
    if on_host is not None:
        return on_host
    if input.ndim == 0 or input.shape[dim] == 1:
        return softmax_kernel(input, dim)  # (before the shift below: a row of one -inf is nan, as in torch)
    if input.dtype == mindspore.float32 and dim == input.ndim - 1:
        # MindSpore's float32 last-axis softmax kernel corrupts the rows that follow a row of all -inf (measured
        # on CPU: they come out 0 or wrong). Shifted by its (constant) row maximum, and by max - max (nan where
        # the maximum is infinite), a row of all -inf or with +inf is all nan, as torch's answer, and the kernel
        # handles it; every other row is unchanged, since the kernel subtracts the row maximum itself.
        row_max = ops.stop_gradient(ops.amax(input, dim, True))
        input = ops.sub(input, ops.add(row_max, ops.sub(row_max, row_max)))
    return softmax_kernel(input, dim)


def log_softmax(input, dim=None, dtype=None, *, _stacklevel=3):
    if dtype is not None:
        input = input.astype(dtype)
    from ..nn._lean_backward import log_softmax as _accurate_log_softmax  # (nn imports this module)

    dim = -1 if dim is None else dim
    rank = input.ndim or 1  # (`max` here is torch.max)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    if input.ndim == 0:  # (MindSpore's LogSoftmax backward never returns on a 0-d tensor: one element)
        return _accurate_log_softmax(input.reshape(1), 0).reshape(())
    return _accurate_log_softmax(input, dim % rank)


_TOPK_RESULT = return_type("topk", ["values", "indices"])


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    if out is not None:
        return write_outs(out, topk(input, k, dim, largest, sorted), "topk")
    if k == 0 and input.ndim:  # (MindSpore's TopK refuses k = 0: torch's answer is empty along dim)
        dim = wrap_dim(dim, input.ndim)
        shape = tuple(0 if i == dim else n for i, n in enumerate(input._shape))
        values = ops.broadcast_to(ops.mul(ops.reduce_sum(input), 0).astype(input.dtype), shape)  # (in the graph)
        return _TOPK_RESULT(values, _ms.zeros(shape, mindspore.int64))
    if dim not in (-1, input.ndim - 1):
        moved = input.swapaxes(dim, -1)
        values, indices = topk(moved, k, -1, largest, sorted)
        return _TOPK_RESULT(values.swapaxes(dim, -1), indices.swapaxes(dim, -1))
    if input.dtype in _FLOATING_SORTABLE and input.ndim and np.isnan(input.asnumpy()).any():
        # MindSpore's TopK skips NaN; torch ranks NaN above +inf (the host sort's order)
        if not 0 <= k <= input.shape[-1]:
            raise RuntimeError("selected index k out of range")
        indices = _host_sort_indices(input, input.ndim - 1, largest)[..., :k]
        return _TOPK_RESULT(ops.gather_elements(input, input.ndim - 1, indices), indices)
    if largest:
        values, indices = ops.topk(input, k, sorted=sorted)
    else:
        values, indices = ops.topk(ops.neg(input), k, sorted=sorted)
        values = ops.neg(values)
    return _TOPK_RESULT(values, indices.astype(mindspore.int64))


_FLOATING_SORTABLE = frozenset({mindspore.float16, mindspore.float32, mindspore.float64})


def _host_sort_indices(input, dim, descending):
    """torch's sort order of `input` along `dim` as int64 indices, found by NumPy's stable sort on the host.

    MindSpore 2.10's Sort kernel is not used: it rounds float64 values through float32 (1e300 becomes inf,
    0.1234567890123456 becomes 0.12345679104328156) and places NaN in the middle, where torch sorts NaN above
    +inf. NumPy's order is torch's: NaN last ascending; a descending sort is the ascending sort of the reversed
    row, reversed, which puts NaN first and keeps equal elements in their original order (torch's stable=True,
    also a valid answer when stable=False)."""
    rows = np.moveaxis(input.asnumpy(), dim, -1)
    if not descending:
        order = np.argsort(rows, axis=-1, kind="stable")
    else:
        last = rows.shape[-1] - 1
        order = (last - np.argsort(rows[..., ::-1], axis=-1, kind="stable"))[..., ::-1]
    return Tensor(np.ascontiguousarray(np.moveaxis(order, -1, dim), dtype=np.int64))


_SORT_RESULT = return_type("sort", ["values", "indices"])


def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    if out is not None:
        return write_outs(out, sort(input, dim, descending, stable), "sort")
    if input.ndim == 0:
        wrap_dim(dim, 1)
        return _SORT_RESULT(input.clone(), Tensor(np.zeros((), np.int64)))
    dim = wrap_dim(dim, input.ndim)
    indices = _host_sort_indices(input, dim, descending)
    return _SORT_RESULT(ops.gather_elements(input, dim, indices), indices)


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    if out is not None:
        return write_out(out, norm(input, p, dim, keepdim, dtype=dtype), "norm", exact=True)
    from .linalg import vector_norm

    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("torch.norm(p='nuc') is not supported on MindSpore: no CPU SVD kernel is used here")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


def _unique_of_empty(input, dim, return_inverse, return_counts):
    """unique(dim=...) of a tensor with a 0-sized dim: torch refuses one that is not `dim`; empty along `dim`,
    the answer is the empty input (NumPy's unique fails to reshape it). None where neither applies."""
    shape = tuple(input.shape)
    if not shape:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if 0 not in shape:
        return None
    if 0 in shape[:dim] + shape[dim + 1:]:  # (`any` here is torch.any)
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    out = [ops.reshape(input, shape)]
    if return_inverse:
        out.append(_ms.zeros((0,), mindspore.int64))
    if return_counts:
        out.append(_ms.zeros((0,), mindspore.int64))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values, or of equal consecutive slices along `dim` (computed on the
    host: data-dependent output size)."""
    import numpy as np

    values = input.asnumpy()
    if dim is not None:
        dim = wrap_dim(dim, input.ndim or 1)
        empty = _unique_of_empty(input, dim, return_inverse, return_counts)
        if empty is not None:
            return empty
        slices = np.moveaxis(values.reshape(1) if values.ndim == 0 else values, dim, 0)
        rows = slices.reshape(slices.shape[0], -1)
        starts = np.ones(rows.shape[0], dtype=bool)
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        kept = np.moveaxis(slices[starts], 0, dim)
        inverse_shape = (rows.shape[0],)
    else:
        flat = values.reshape(-1)
        starts = np.ones(flat.shape[0], dtype=bool)
        starts[1:] = flat[1:] != flat[:-1]
        kept = flat[starts]
        inverse_shape = input.shape
    out = [Tensor(np.ascontiguousarray(kept))]
    if return_inverse:
        out.append(Tensor((np.cumsum(starts) - 1).reshape(inverse_shape).astype(np.int64)))
    if return_counts:
        out.append(Tensor(np.diff(np.append(np.flatnonzero(starts), starts.shape[0])).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def count_nonzero(input, dim=None):
    return sum(ops.not_equal(input, 0), dim)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    import numpy as np

    if dim is not None:  # the distinct slices along `dim`, sorted lexicographically, as torch's
        dim = wrap_dim(dim, input.ndim or 1)
        empty = _unique_of_empty(input, dim, return_inverse, return_counts)
        if empty is not None:
            return empty
        values = input.asnumpy()
        res = np.unique(values.reshape(1) if values.ndim == 0 else values, return_inverse=return_inverse,
                        return_counts=return_counts, axis=dim)
    else:
        res = np.unique(input.asnumpy(), return_inverse=return_inverse, return_counts=return_counts)
    if not (return_inverse or return_counts):
        return Tensor(np.ascontiguousarray(res))
    out = [Tensor(np.ascontiguousarray(res[0]))]
    if return_inverse:
        inverse = res[1].reshape(-1) if dim is not None else res[1].reshape(input.shape)
        out.append(Tensor(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor(res[-1].astype(np.int64)))
    return tuple(out)


from ._util import accept_numpy_names  # noqa: E402
from .. import _backend as _backend_table  # noqa: E402

accept_numpy_names(globals(), __name__)
_backend_table.adapt_module(globals(), __name__)
