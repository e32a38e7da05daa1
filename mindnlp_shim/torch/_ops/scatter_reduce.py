"""torch.scatter_reduce: src's values reduced into a copy of input at `index` along `dim` (sum, prod, mean, amax,
amin; with or without input's own values).

Computed on the host by NumPy's unbuffered `ufunc.at`, recorded as one Function whose backward follows torch's
rules: sum passes the gradient through; mean divides it by the count; amax/amin share it evenly among the values
equal to the result; prod multiplies by the product of the others (prod's gradient where a value is zero is
not supported)."""
import numpy as np

from ..autograd.function import Function, first_order_only
from ..autograd.grad_mode import is_grad_enabled
from ._util import Tensor, wrap_dim
from .host_scatter_add import targets as _targets, used as _used

_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}
_IDENTITY = {"sum": 0.0, "prod": 1.0, "mean": 0.0, "amax": -np.inf, "amin": np.inf}


def _forward(x, idx, src, dim, reduce, include_self):
    targets = _targets(idx, dim)
    src = _used(src, idx)
    out = x.astype(np.float64 if x.dtype.kind == "f" else x.dtype).copy()
    hit = np.zeros(x.shape, bool)
    hit[targets] = True
    count = np.zeros(x.shape, np.int64)
    np.add.at(count, targets, 1)
    if not include_self:
        out[hit] = _IDENTITY[reduce] if out.dtype.kind == "f" else 0 if reduce in ("sum", "mean") else \
            1 if reduce == "prod" else np.iinfo(out.dtype).min if reduce == "amax" else np.iinfo(out.dtype).max
    _UFUNCS[reduce].at(out, targets, src)
    if reduce == "mean":
        divisor = np.maximum(count + (1 if include_self else 0), 1)
        # (integers divide with floor rounding, as torch's)
        out = np.where(hit, out / divisor if out.dtype.kind == "f" else np.floor_divide(out, divisor), out)
    return out.astype(x.dtype), targets, count, hit


class _ScatterReduce(Function):
    @staticmethod
    def forward(ctx, input, dim, index, src, reduce, include_self):
        x, idx, s = input.asnumpy(), index.asnumpy().astype(np.int64), src.asnumpy()
        out, targets, count, hit = _forward(x, idx, s, dim, reduce, include_self)
        ctx.saved = (x, idx, s, out, targets, count, hit, reduce, include_self)
        return Tensor(np.require(out, requirements="C"))

    @staticmethod
    @first_order_only  # the backward computes on the host: not recorded
    def backward(ctx, grad):
        x, idx, s, out, targets, count, hit, reduce, include_self = ctx.saved
        g = grad.asnumpy().astype(np.float64)
        s_used = _used(s, idx).astype(np.float64)
        xf, of = x.astype(np.float64), out.astype(np.float64)
        if reduce == "sum":
            grad_x = np.where(hit & (not include_self), 0.0, g)
            grad_s = g[targets]
        elif reduce == "mean":
            divisor = np.maximum(count + (1 if include_self else 0), 1)
            grad_x = np.where(hit, g / divisor if include_self else 0.0, g)
            grad_s = (g / divisor)[targets]
        elif reduce in ("amax", "amin"):
            ties = np.zeros(x.shape, np.float64)
            np.add.at(ties, targets, (s_used == of[targets]).astype(np.float64))
            # torch counts an input element equal to the result among the ties even with include_self=False;
            # its share then reaches nobody (the element was replaced), as torch's gradient has it
            self_tie = xf == of
            ties += self_tie
            share = g / np.maximum(ties, 1)
            grad_x = np.where(self_tie & (include_self | ~hit), share, 0.0)
            grad_s = np.where(s_used == of[targets], share[targets], 0.0)
        else:  # prod
            if (s_used == 0).any() or (include_self and (xf[hit] == 0).any()):
                raise NotImplementedError("the gradient of torch.scatter_reduce(reduce='prod') where a value is "
                                          "zero is not supported by mindnlp-shim")
            grad_x = np.where(hit, g * of / np.where(xf == 0, 1, xf) if include_self else 0.0, g)
            grad_s = (g * of)[targets] / s_used
        full_s = np.zeros(s.shape, np.float64)
        full_s[tuple(slice(0, n) for n in idx.shape)] = grad_s
        return (Tensor(grad_x.astype(x.dtype)), None, None, Tensor(full_s.astype(s.dtype)), None, None)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """out[index[i][j]][j] = reduce(out[...], src[i][j]) for dim 0 (and so on), starting from a copy of input."""
    if out is not None:
        from ._util import write_out

        return write_out(out, scatter_reduce(input, dim, index, src, reduce, include_self=include_self),
                         "scatter_reduce", exact=True)
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if input.dtype != src.dtype:
        raise RuntimeError(f"scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    dim = wrap_dim(dim, max(input.ndim, 1))
    if is_grad_enabled() and (input.requires_grad or src.requires_grad):
        return _ScatterReduce.apply(input, dim, index, src, reduce, include_self)
    x, idx, s = input.asnumpy(), index.asnumpy().astype(np.int64), src.asnumpy()
    return Tensor(np.require(_forward(x, idx, s, dim, reduce, include_self)[0], requirements="C"))
