"""Order statistics and counting: median, kthvalue, quantile, cummax/cummin, nanmean, bincount, histc, cov,
renorm. MindSpore's Tensor methods of these names differ from torch's (`median` is per row, `cummin` answers
int32 indices, several have no CPU kernel).

Where an op selects elements (median, kthvalue, quantile, cummax), the positions are found in NumPy (sorting
is not differentiable anyway) and the values are gathered from the input, so gradients reach the selected
elements as in torch."""

import mindspore
import numpy as np
from mindspore import ops

from .. import _dtype
from . import indexing, pointwise as pw, reduction as red, shape as sh
from ._util import no_kernel, out_dtype, Tensor, wrap_dim, write_out
from ..autograd.function import Function
from .._runtime import grad_enabled
from ..return_types import return_type
from ... import _mindspore as _ms

_median_result = return_type("median", ["values", "indices"])
_nanmedian_result = return_type("nanmedian", ["values", "indices"])
_kthvalue_result = return_type("kthvalue", ["values", "indices"])
_cummax_result = return_type("cummax", ["values", "indices"])
_cummin_result = return_type("cummin", ["values", "indices"])


def _host(x):
    """The values as a NumPy array, for finding positions (bf16 read as float32)."""
    if x.dtype == mindspore.bfloat16:
        x = ops.cast(x, mindspore.float32)
    return x.asnumpy()


def _long(a):
    return Tensor(np.ascontiguousarray(a, dtype=np.int64))


def _pick_along(input, dim, keepdim, pick, result):
    """values and int64 indices of the element `pick(rows)` chooses in each row along `dim`
    (`rows`: the input with `dim` moved last; `pick` answers one index per row)."""
    if input.ndim == 0:
        wrap_dim(dim, 1)
        return result(input, _long(pick(_host(input).reshape(1))).reshape(()))
    dim = wrap_dim(dim, input.ndim)
    if input.shape[dim] == 0:
        raise IndexError(f"{result.__name__}(): Expected reduction dim {dim} to have non-zero size.")
    rows = np.moveaxis(_host(input), dim, -1)
    idx = np.expand_dims(np.asarray(pick(rows), dtype=np.int64), dim)
    index = _long(idx)
    values = indexing.gather(input, dim, index)
    if not keepdim:
        values, index = sh.squeeze(values, dim), sh.squeeze(index, dim)
    return result(values, index)


def _median_pick(rows):
    order = np.argsort(rows, axis=-1, kind="stable")  # NaN sorts last
    chosen = order[..., (rows.shape[-1] - 1) // 2]
    nan = np.isnan(rows) if rows.dtype.kind == "f" else np.zeros(rows.shape, bool)
    return np.where(nan.any(-1), np.argmax(nan, -1), chosen)  # torch: a row with NaN has the (first) NaN


def _nanmedian_pick(rows):
    order = np.argsort(rows, axis=-1, kind="stable")
    valid = (~np.isnan(rows)).sum(-1) if rows.dtype.kind == "f" else np.full(rows.shape[:-1], rows.shape[-1])
    k = np.maximum((valid - 1) // 2, 0)
    return np.take_along_axis(order, k[..., None], -1)[..., 0]


def _no_bool_kernel(input, kernel):
    if input.dtype == mindspore.bool_:  # (the host sort would order them; torch has no kernel)
        raise no_kernel(kernel, mindspore.bool_)


def median(input, dim=None, keepdim=False):
    """Without `dim`: the lower of the two middle values of all elements (NaN if any is NaN). With `dim`:
    (values, indices) per row."""
    _no_bool_kernel(input, "median_cpu")
    if dim is None:
        if input.numel() == 0:
            return ops.fill(input.dtype, (), float("nan"))
        return _spread_evenly(input, _pick_along(input.reshape(-1), 0, False, _median_pick, _median_result).values)
    return _pick_along(input, dim, keepdim, _median_pick, _median_result)


def nanmedian(input, dim=None, keepdim=False):
    _no_bool_kernel(input, "median_cpu")
    if dim is None:
        if input.numel() == 0:
            return ops.fill(input.dtype, (), float("nan"))
        return _spread_evenly(input, _pick_along(input.reshape(-1), 0, False, _nanmedian_pick,
                                                 _nanmedian_result).values)
    return _pick_along(input, dim, keepdim, _nanmedian_pick, _nanmedian_result)


class _EvenlySpread(Function):
    """`value`, one of x's elements, whose gradient goes in equal parts to every element of x equal to it (to
    every NaN for a NaN), as torch's median and nanmedian of all elements do."""

    @staticmethod
    def forward(ctx, x, value):
        ctx.save_for_backward(x, value)
        return ops.identity(value)

    @staticmethod
    def backward(ctx, grad):
        x, value = ctx.saved_tensors
        dtype = grad.dtype
        if dtype == mindspore.bfloat16:  # (no bfloat16 comparison or sum kernels; float32 holds its values exactly)
            x, value, grad = x.astype(mindspore.float32), value.astype(mindspore.float32), grad.astype(mindspore.float32)
        same = ops.logical_or(ops.equal(x, value), ops.logical_and(ops.isnan(x), ops.isnan(value)))
        share = ops.div(grad, ops.reduce_sum(same.astype(grad.dtype)))
        return ops.mul(same.astype(grad.dtype), share).astype(dtype), None


def _spread_evenly(input, value):
    if grad_enabled() and input.requires_grad and input.dtype in _dtype.FLOATING:
        return _EvenlySpread.apply(input, ops.stop_gradient(value))
    return value


def kthvalue(input, k, dim=-1, keepdim=False):
    _no_bool_kernel(input, "kthvalue_cpu")
    size = input.shape[wrap_dim(dim, input.ndim)] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _pick_along(input, dim, keepdim,
                       lambda rows: np.argsort(rows, axis=-1, kind="stable")[..., k - 1], _kthvalue_result)


def msort(input):
    return red.sort(input, 0).values


def _cumulative(input, dim, accumulate, result):
    if input.ndim == 0:
        if dim not in (0, -1):
            name = "cummax" if accumulate is np.maximum.accumulate else "cummin"
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        return result(input, _long(0).reshape(()))
    dim = wrap_dim(dim, input.ndim)
    a = np.moveaxis(_host(input), dim, -1)
    running = accumulate(a, axis=-1)
    positions = np.broadcast_to(np.arange(a.shape[-1]), a.shape)
    # torch moves the index on ties and on every NaN: the latest element equal to the running extreme
    record = (a == running) | (np.isnan(a) if a.dtype.kind == "f" else False)
    idx = np.maximum.accumulate(np.where(record, positions, 0), axis=-1)
    index = _long(np.moveaxis(idx, -1, dim))
    return result(indexing.gather(input, dim, index), index)


def cummax(input, dim):
    return _cumulative(input, dim, np.maximum.accumulate, _cummax_result)


def cummin(input, dim):
    return _cumulative(input, dim, np.minimum.accumulate, _cummin_result)


def logcumsumexp(input, dim):
    dim = wrap_dim(dim, input.ndim)  # (a 0-d tensor takes dim 0 or -1, as torch's; the dim is checked first)
    if input.dtype not in _dtype.FLOATING and input.dtype not in _dtype.COMPLEX:
        raise no_kernel("logcumsumexp_out_cpu", input.dtype)
    if input.ndim == 0:
        return input
    if input.dtype == mindspore.bfloat16:  # (no bfloat16 kernel: in float32, rounded once)
        return ops.logcumsumexp(input.astype(mindspore.float32), dim).astype(mindspore.bfloat16)
    return ops.logcumsumexp(input, dim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:  # (as torch: through nansum, which has no integer kernel)
        if out_dtype(out, "nanmean") not in _dtype.FLOATING and out.dtype not in _dtype.COMPLEX:
            raise no_kernel("nansum_cpu", out.dtype)
        return write_out(out, nanmean(input, dim, keepdim, dtype=dtype), "nansum")
    if input.dtype not in _dtype.FLOATING and input.dtype not in _dtype.COMPLEX:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype}")
    if dtype is not None:
        input = ops.cast(input, dtype)
    nan = pw.isnan(input)
    total = red.sum(pw.where(nan, _ms.zeros((), input.dtype), input), dim, keepdim)
    count = red.sum(ops.cast(pw.logical_not(nan), input.dtype), dim, keepdim)
    return pw.div(total, count)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    if input.dtype not in (mindspore.float32, mindspore.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    scalar_q = not isinstance(q, Tensor) or q.ndim == 0
    qs = np.atleast_1d(_host(q) if isinstance(q, Tensor) else np.asarray(q, dtype=np.float64)).astype(np.float64)
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if 0 in input.shape:  # (torch refuses any empty input, whatever the dim)
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        rows_t, out_shape = input.reshape(1, -1), [1] * input.ndim if keepdim else []
    else:
        dim = wrap_dim(dim, input.ndim)
        moved = sh.movedim(input, dim, -1) if input.ndim else input.reshape(1)
        rows_t = moved.reshape(-1, moved.shape[-1])
        out_shape = [1 if i == dim else n for i, n in enumerate(input.shape) if keepdim or i != dim]
    n = rows_t.shape[-1]
    if n == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    rows = _host(rows_t)
    order = np.argsort(rows, axis=-1, kind="stable")  # NaN last
    nan_count = np.isnan(rows).sum(-1)
    valid = n - nan_count if ignore_nan else np.full(rows.shape[0], n)
    ranks = qs[None, :] * np.maximum(valid - 1, 0)[:, None]  # (rows, len(q))
    if interpolation == "nearest":
        ranks = np.round(ranks)  # (half to even, as torch rounds)
    below, above = np.floor(ranks).astype(np.int64), np.ceil(ranks).astype(np.int64)
    if interpolation == "lower":
        above = below
    elif interpolation == "higher":
        below = above
    weight = {"midpoint": np.where(above > below, 0.5, 0.0)}.get(interpolation, ranks - below)
    ordered = indexing.gather(rows_t, 1, _long(order))
    lo, hi = indexing.gather(ordered, 1, _long(below)), indexing.gather(ordered, 1, _long(above))
    w = Tensor(weight.astype(mindspore.dtype_to_nptype(input.dtype)))
    value = pw.add(lo, pw.mul(pw.sub(hi, lo), w))  # (rows, len(q))
    undefined = (valid == 0) if ignore_nan else (nan_count > 0)  # all NaN / any NaN: the answer is NaN
    if undefined.any():
        value = pw.where(Tensor(np.ascontiguousarray(undefined[:, None])), ops.fill(input.dtype, (), float("nan")),
                         value)
    value = sh.movedim(value, 1, 0).reshape([len(qs)] + out_shape)
    return value.reshape(out_shape) if scalar_q else value


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    if out is not None:  # (torch: out in the input's dtype; inputs that require grad are not refused)
        return write_out(out, quantile(input, q, dim, keepdim, interpolation=interpolation), "quantile",
                         exact=True, differentiable=False)
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    if out is not None:
        return write_out(out, nanquantile(input, q, dim, keepdim, interpolation=interpolation), "nanquantile",
                         exact=True, differentiable=False)
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def bincount(input, weights=None, minlength=0):
    if input.ndim != 1 or input.dtype not in _dtype.INTEGRAL:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    values = input.asnumpy()
    if values.size and values.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None or not values.size:  # (torch counts an empty input as int64 zeros, weights or not)
        return _long(np.bincount(values, minlength=minlength))
    # torch counts float32 weights in float32 and every other weight dtype in float64
    out_dtype = np.float32 if weights.dtype == mindspore.float32 else np.float64
    counts = np.bincount(values, weights=_host(weights).astype(np.float64), minlength=minlength)
    return Tensor(counts.astype(out_dtype))


def histc(input, bins=100, min=0, max=0, *, out=None):
    if out is not None:
        return write_out(out, histc(input, bins, min, max), "histc", exact=True, differentiable=False)
    if input.dtype not in _dtype.FLOATING:
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{input.dtype}\'')
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0")
    a = _host(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    inside = a[(a >= lo) & (a <= hi)]
    # bin = floor((x - min) * bins / (max - min)), the maximum itself counted in the last bin
    pos = np.floor((inside.astype(a.dtype) - a.dtype.type(lo)) * a.dtype.type(bins) /
                   (a.dtype.type(hi) - a.dtype.type(lo))).astype(np.int64)
    counts = np.bincount(np.minimum(pos, bins - 1), minlength=bins)[:bins]
    return Tensor(counts.astype(a.dtype)).astype(input.dtype)


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.ndim > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.ndim} dimensions")
    if input.dtype == mindspore.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if x.dtype not in _dtype.FLOATING and x.dtype not in _dtype.COMPLEX:
        x = ops.cast(x, _dtype.get_default_dtype())
    observations = x.shape[1]
    w = None
    for given in (fweights, aweights):
        if given is not None:
            given = ops.cast(given, x.dtype)
            w = given if w is None else pw.mul(w, given)
    w_sum = red.sum(w) if w is not None else observations
    mean = pw.div(red.sum(pw.mul(x, w) if w is not None else x, 1, True), w_sum)
    if w is None:
        norm = observations - correction
    elif aweights is None:
        norm = pw.sub(w_sum, correction)
    else:
        norm = pw.sub(w_sum, pw.div(pw.mul(red.sum(pw.mul(w, ops.cast(aweights, x.dtype))), correction), w_sum))
    centred = pw.sub(x, mean)
    weighted = pw.mul(centred, w) if w is not None else centred
    from .linalg import matmul
    from .special_math import conj

    result = pw.div(matmul(weighted, sh.transpose(conj(centred), 0, 1)), pw.clamp_min(norm, 0)
                    if isinstance(norm, Tensor) else max(norm, 0))
    return result.reshape(()) if input.ndim < 2 or x.shape[0] == 1 else result  # one variable: 0-d, as torch


def renorm(input, p, dim, maxnorm):
    if len(input._shape) < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {len(input._shape)} dimensions")
    dim = wrap_dim(dim, input.ndim)
    others = tuple(i for i in range(input.ndim) if i != dim)
    norms = red.norm(input, p, others, True)
    # sub-tensors whose p-norm exceeds maxnorm are scaled down to it (torch's 1e-7 guards the division)
    factor = pw.where(pw.gt(norms, maxnorm), pw.div(maxnorm, pw.add(norms, 1e-7)), ops.ones((), norms.dtype))
    return pw.mul(input, factor)
