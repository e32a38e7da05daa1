"""Binds the op functions of `_ops` as `Tensor` methods, dunders and in-place variants (one definition each)."""
import numpy as np
import mindspore
from .._mindspore import TensorPy

from . import _dtype, _inplace, _tensor, _tensor_hooks
from ._ops import _util, creation, indexing, linalg, pointwise as pw, random as rnd, reduction as red, shape as sh
from ._ops import buffers, matrix, special_math as sm, strided_views
from ._ops.host_small import binary as _host_binary
from ._ops.result_layout import row_major as _row_major
from ._runtime import grad_enabled
from ._sparse_coo import SparseCooTensor as _Sparse
from .. import _mindspore as _ms

Tensor = mindspore.Tensor
_is_contiguous = _ms.is_contiguous


def _host_first(ufunc, reflected, method):
    """`method` (a binary operator) with `host_small.binary(ufunc, ...)` tried first; see _HOST_FIRST. The host
    gives row-major results: operands whose result torch lays out otherwise go to `method`, whose op lays its
    result out like them (`_ops/result_layout`)."""
    def operator(self, other):
        operands = (other, self) if reflected else (self, other)
        if (_is_contiguous(self) and (type(other) is not Tensor or _is_contiguous(other))) or \
                _row_major(*operands):
            out = _host_binary(ufunc, *operands)
            if out is not None:
                return out
        return method(self, other)

    operator.__name__ = method.__name__
    return operator


def _positive(self):
    """`+x`: x itself, as torch's; torch refuses it on a bool tensor."""
    if self._dtype is mindspore.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _reflected(fn):
    def method(self, other):
        return fn(other, self)

    method.__name__ = "r" + fn.__name__
    return method


def _rtruediv(self, other):
    """`other / self` as torch's Tensor.__rtruediv__ computes it: self's reciprocal (in self's floating dtype)
    times other."""
    return pw.mul(pw.reciprocal(self), other)


# TensorPy is the C base class of every tensor: isinstance against Tensor (an ABC) costs several times more
_OPERAND_TYPES = (TensorPy, int, float, complex)  # (bool is an int)


def _operator(fn):
    """Python operators answer NotImplemented for foreign operands, lists and tuples among them, as torch's do
    (`t == [1, 2]` is False and `t + [1, 2]` a TypeError; MindSpore itself compares tensors with strings
    internally, and Python then falls back to its default instead of a dispatch error). NumPy values are
    operands."""

    def method(self, other):
        if not isinstance(other, _OPERAND_TYPES):
            import numpy as np

            if isinstance(other, (np.ndarray, np.generic)):
                other = Tensor(np.asarray(other))
            else:
                return NotImplemented
        return fn(self, other)

    method.__name__ = fn.__name__
    return method


def _where_method(self, condition, other):
    return pw.where(condition, self, other)  # Tensor.where(cond, y) is torch.where(cond, self, y)


# method name -> op function (the method's `self` is the op's first argument)
METHODS = {
    # arithmetic and math
    "add": pw.add, "sub": pw.sub, "subtract": pw.sub, "mul": pw.mul, "multiply": pw.mul, "div": pw.div,
    "divide": pw.div, "true_divide": pw.div, "floor_divide": pw.floor_divide, "remainder": pw.remainder,
    "fmod": pw.fmod, "pow": pw.pow, "neg": pw.neg, "negative": pw.neg, "abs": pw.abs, "absolute": pw.abs,
    "exp": pw.exp, "exp2": pw.exp2, "expm1": pw.expm1, "log": pw.log, "log2": pw.log2, "log10": pw.log10,
    "log1p": pw.log1p, "sqrt": pw.sqrt, "rsqrt": pw.rsqrt, "sin": pw.sin, "cos": pw.cos, "tan": pw.tan,
    "asin": pw.asin, "acos": pw.acos, "atan": pw.atan, "sinh": pw.sinh, "cosh": pw.cosh, "tanh": pw.tanh,
    "sigmoid": pw.sigmoid, "erf": pw.erf, "erfc": pw.erfc, "erfinv": pw.erfinv, "floor": pw.floor,
    "ceil": pw.ceil, "trunc": pw.trunc, "frac": pw.frac, "round": pw.round, "sign": pw.sign, "sgn": pw.sign,
    "reciprocal": pw.reciprocal, "square": pw.square, "relu": pw.relu, "clamp": pw.clamp, "clip": pw.clamp,
    "clamp_min": pw.clamp_min, "clamp_max": pw.clamp_max, "lerp": pw.lerp, "addcmul": pw.addcmul,
    "addcdiv": pw.addcdiv, "nan_to_num": pw.nan_to_num, "maximum": pw.maximum, "minimum": pw.minimum,
    "fmax": pw.fmax, "fmin": pw.fmin, "atan2": pw.atan2, "hypot": pw.hypot, "masked_fill": pw.masked_fill,
    "where": _where_method, "isclose": pw.isclose, "allclose": pw.allclose, "equal": pw.equal,
    # comparisons and logic
    "eq": pw.eq, "ne": pw.ne, "not_equal": pw.ne, "lt": pw.lt, "less": pw.lt, "le": pw.le, "less_equal": pw.le,
    "gt": pw.gt, "greater": pw.gt, "ge": pw.ge, "greater_equal": pw.ge, "logical_and": pw.logical_and,
    "logical_or": pw.logical_or, "logical_xor": pw.logical_xor, "logical_not": pw.logical_not,
    "bitwise_and": pw.bitwise_and, "bitwise_or": pw.bitwise_or, "bitwise_xor": pw.bitwise_xor,
    "bitwise_not": pw.bitwise_not, "isnan": pw.isnan, "isinf": pw.isinf, "isfinite": pw.isfinite,
    "isneginf": pw.isneginf, "isposinf": pw.isposinf,
    # reductions
    "sum": red.sum, "nansum": red.nansum, "mean": red.mean, "prod": red.prod, "max": red.max, "min": red.min,
    "amax": red.amax, "amin": red.amin, "aminmax": red.aminmax, "argmax": red.argmax, "argmin": red.argmin,
    "all": red.all, "any": red.any, "var": red.var, "std": red.std, "logsumexp": red.logsumexp,
    "cumsum": red.cumsum, "cumprod": red.cumprod, "softmax": red.softmax, "log_softmax": red.log_softmax,
    "topk": red.topk, "sort": red.sort, "argsort": red.argsort, "norm": red.norm,
    "count_nonzero": red.count_nonzero, "unique": red.unique,
    "unique_consecutive": red.unique_consecutive, "diff": sh.diff,
    # linear algebra
    "matmul": linalg.matmul, "mm": linalg.mm, "bmm": linalg.bmm, "baddbmm": linalg.baddbmm,
    "addmm": linalg.addmm, "outer": linalg.outer, "dot": linalg.dot,
    # shape
    "reshape": sh.reshape, "view": sh.view, "view_as": sh.view_as, "reshape_as": sh.reshape_as,
    "transpose": sh.transpose, "swapaxes": sh.transpose, "swapdims": sh.transpose, "t": sh.t,
    "permute": sh.permute, "movedim": sh.movedim, "moveaxis": sh.movedim, "unsqueeze": sh.unsqueeze,
    "squeeze": sh._squeeze_method, "flatten": sh.flatten, "unflatten": sh.unflatten, "expand": sh.expand,
    "expand_as": sh.expand_as, "broadcast_to": sh.broadcast_to, "repeat": sh.repeat, "tile": sh.tile,
    "repeat_interleave": sh._repeat_interleave_method, "split": sh.split, "split_with_sizes": sh.split_with_sizes,
    "chunk": sh.chunk, "tensor_split": sh.tensor_split, "unbind": sh.unbind, "narrow": sh.narrow,
    "select": sh.select, "flip": sh.flip, "roll": sh.roll, "tril": sh.tril, "triu": sh.triu,
    "diagonal": sh.diagonal, "contiguous": sh.contiguous, "to_dense": buffers.to_dense,
    # indexing
    "index_select": indexing.index_select, "gather": indexing.gather, "scatter": indexing.scatter,
    "scatter_add": indexing.scatter_add, "index_add": indexing.index_add, "index_fill": indexing.index_fill,
    "masked_select": indexing.masked_select, "masked_scatter": indexing.masked_scatter,
    "nonzero": indexing.nonzero, "argwhere": indexing.argwhere, "take_along_dim": indexing.take_along_dim,
    # random
    "bernoulli": rnd.bernoulli, "multinomial": rnd.multinomial,
}

# in-place variants computed out of place and written back
INPLACE = [
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "neg", "abs", "exp",
    "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf", "floor", "ceil", "trunc", "round",
    "sign", "reciprocal", "square", "relu", "clamp", "clip", "clamp_min", "clamp_max", "lerp", "addcmul",
    "addcdiv", "nan_to_num", "masked_fill", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "logical_not", "bitwise_and", "bitwise_or", "scatter", "scatter_add", "index_add", "index_fill", "tril", "triu",
    "cumsum", "baddbmm", "addmm", "masked_scatter", "exp2", "expm1", "frac", "negative",
    "multiply", "subtract", "divide", "atan2", "hypot", "erfinv", "log2", "log10", "tan",
]  # (torch's Tensor has no maximum_, minimum_, fmax_ or fmin_)

DUNDERS = {
    "__add__": pw.add, "__radd__": _reflected(pw.add), "__sub__": pw.sub, "__rsub__": _reflected(pw.sub),
    "__mul__": pw.mul, "__rmul__": _reflected(pw.mul), "__truediv__": pw.div, "__rtruediv__": _rtruediv,
    "__floordiv__": pw.floor_divide, "__rfloordiv__": _reflected(pw.floor_divide), "__mod__": pw.remainder,
    "__rmod__": _reflected(pw.remainder), "__pow__": pw.pow, "__rpow__": _reflected(pw.pow),
    "__matmul__": linalg.matmul, "__rmatmul__": _reflected(linalg.matmul), "__neg__": pw.neg, "__abs__": pw.abs,
    "__pos__": _positive, "__invert__": pw.bitwise_not, "__and__": pw.bitwise_and,
    "__rand__": _reflected(pw.bitwise_and), "__or__": pw.bitwise_or, "__ror__": _reflected(pw.bitwise_or),
    "__xor__": pw.bitwise_xor, "__rxor__": _reflected(pw.bitwise_xor), "__eq__": pw.eq, "__ne__": pw.ne,
    "__lt__": pw.lt, "__le__": pw.le, "__gt__": pw.gt, "__ge__": pw.ge,
    "__lshift__": sm.bitwise_left_shift, "__rlshift__": _reflected(sm.bitwise_left_shift),
    "__rshift__": sm.bitwise_right_shift, "__rrshift__": _reflected(sm.bitwise_right_shift),
}
_UNARY_DUNDERS = ("__neg__", "__abs__", "__pos__", "__invert__")
# Operators whose op computes small tensors on the host first (`host_small.binary` with this ufunc, before any
# other work): the operator tries it itself, before the operator's and the op's wrappers, for the same result with
# two Python calls fewer (a decoding step makes ~100 such calls per token at ~20 µs each). True: reflected.
_HOST_FIRST = {"__add__": (np.add, False), "__radd__": (np.add, True), "__sub__": (np.subtract, False),
               "__rsub__": (np.subtract, True), "__mul__": (np.multiply, False), "__rmul__": (np.multiply, True)}
INPLACE_DUNDERS = {
    "__iadd__": pw.add, "__isub__": pw.sub, "__imul__": pw.mul, "__itruediv__": pw.div,
    "__ifloordiv__": pw.floor_divide, "__imod__": pw.remainder, "__ipow__": pw.pow, "__iand__": pw.bitwise_and,
    "__ior__": pw.bitwise_or, "__ixor__": pw.bitwise_xor, "__ilshift__": sm.bitwise_left_shift,
    "__irshift__": sm.bitwise_right_shift,
}


def _checked_inplace(fn, check_overlap=True):
    """`Tensor.<op>_` from `<op>`: compute out of place, then write into the receiver. Like torch, refuse a
    result of a higher kind than the receiver (a float result into an int tensor) instead of truncating it.

    On a tensor inside the autograd graph the op reads a recorded copy: the write bumps the receiver's version,
    and an op that saved the receiver itself for its backward (clamp, mul, ...) would then fail at backward."""

    def method(self, *args, **kwargs):
        if kwargs and kwargs.get("dtype") is not None and kwargs["dtype"] != self.dtype:  # (cumsum_, cumprod_)
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_c_type(self.dtype)} and output tensor "
                               f"dtype {_c_type(kwargs['dtype'])} should match")
        if self._is_leaf:
            if grad_enabled() and _any_recorded(args, kwargs):
                # the receiver joins the graph (`total += loss`): the op reads a copy of its old value, which its
                # backward may need after the write
                value = fn(_tensor.clone(self), *args, **kwargs)
                return _write_result(self, value, check_overlap)
            value = fn(self, *args, **kwargs)
            if _inplace.can_take_storage(self, value):  # the usual case: the fresh result becomes the storage
                return _inplace.take_storage(self, value, check_overlap)
        else:
            value = fn(_tensor.clone(self) if _ms.grad_enabled() else self, *args, **kwargs)
        return _write_result(self, value, check_overlap)

    method.__name__ = fn.__name__ + "_"
    return method


def _c_type(dtype):
    return _util.type_name(dtype).lower()  # (torch's message names C types: float, double, long)


def _any_recorded(args, kwargs):
    """Whether an operand (a tensor, or one in a list or tuple) is recorded by autograd: it requires grad or is
    inside the graph."""
    for group in (args, kwargs.values()):
        for v in group:
            if type(v) is Tensor:
                if v._requires_grad or not v._is_leaf:
                    return True
            elif type(v) is _Sparse:
                if v.requires_grad:
                    return True
            elif isinstance(v, (list, tuple)):
                for t in v:
                    if type(t) is Tensor and (t._requires_grad or not t._is_leaf):
                        return True
    return False


def _write_result(self, value, check_overlap=True):
    """The end of a `Tensor.<op>_` in general: refuse a result of a higher kind, then write it into `self`."""
    # identity settles the usual case (same dtype) cheaply; equal dtypes are never a higher kind anyway
    if isinstance(value, Tensor) and value._dtype is not self._dtype and \
            _util.dtype_category(value.dtype) > _util.dtype_category(self.dtype):
        raise RuntimeError(f"result type {_util.type_name(value.dtype)} can't be cast to the "
                           f"desired output type {_util.type_name(self.dtype)}")
    if isinstance(value, Tensor) and value._shape != self._shape:
        # an in-place op's result has the receiver's shape: broadcasting may not grow it (the write would
        # otherwise squeeze a (1, 1) result into a (1,) receiver without a word)
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(value.shape)}")
    if getattr(self, "_is_data_alias", False):
        return _tensor.outside_autograd(_inplace.assign, self, value, value_is_fresh=True,
                                        check_overlap=check_overlap)
    return _inplace.assign(self, value, value_is_fresh=True, check_overlap=check_overlap)


_FILLS = {"masked_fill", "index_fill"}  # in-place ops torch lets write into an expanded tensor


def _random_inplace(value_fn):
    def method(self, *args, generator=None, **kwargs):
        from .autograd.grad_mode import no_grad

        with no_grad():
            return _inplace.assign(self, value_fn(self, *args, generator=generator, **kwargs), value_is_fresh=True)

    return method


def _fill_(self, value):
    # TensorPy is the C base class: for the usual Python scalar, isinstance against Tensor (an ABC) is ~4x slower
    if isinstance(value, TensorPy) and value.ndim == 0 and not _inplace._records(value):
        value = value.item()  # (a 0-d value that requires grad stays a tensor: the fill is recorded, as in torch)
    # (torch checks a float16/bfloat16 fill against the dtype's range, except for a one-element tensor)
    _dtype.check_fits(value, self._dtype, narrow_floats=self.numel() != 1)
    value = _dtype.real_scalar(value, self._dtype)
    # (torch fills a tensor whose elements share memory, an expanded one, without complaint)
    if getattr(self, "_is_data_alias", False):
        return _tensor.outside_autograd(_inplace.assign, self, value, check_overlap=False)
    return _inplace.assign(self, value, check_overlap=False)


def _zero_(self):
    return _fill_(self, 0)


_UNRECORDED = {"logical_and", "logical_or", "logical_not"}  # torch writes these in place outside autograd


def _unrecorded_inplace(fn):
    """`Tensor.<op>_` for the ops torch applies in place without recording them: the receiver keeps its
    autograd node (its gradient passes through unchanged), and a leaf that requires grad is written too."""

    def method(self, *args, **kwargs):
        return _tensor.outside_autograd(lambda: _write_result(self, fn(self, *args, **kwargs)))

    method.__name__ = fn.__name__ + "_"
    return method


def install():
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name in INPLACE:
        if name in _UNRECORDED:
            setattr(Tensor, name + "_", _unrecorded_inplace(METHODS[name]))
            continue
        setattr(Tensor, name + "_", _checked_inplace(METHODS[name], check_overlap=name not in _FILLS))
    for name, fn in DUNDERS.items():
        method = _operator(fn) if name not in _UNARY_DUNDERS else fn
        setattr(Tensor, name, _host_first(*_HOST_FIRST[name], method) if name in _HOST_FIRST else method)
    for name, fn in INPLACE_DUNDERS.items():
        setattr(Tensor, name, _checked_inplace(fn))
    Tensor.fill_ = _fill_
    Tensor.zero_ = _zero_
    Tensor.register_hook = _tensor_hooks.register_hook
    Tensor.resize_ = strided_views.resize_
    Tensor.normal_ = _random_inplace(rnd.normal_values)
    Tensor.uniform_ = _random_inplace(rnd.uniform_values)
    Tensor.random_ = _random_inplace(rnd.random_values)
    Tensor.bernoulli_ = _random_inplace(rnd.bernoulli_values)
    Tensor.exponential_ = _random_inplace(rnd.exponential_values)
    Tensor.cauchy_ = _random_inplace(rnd.cauchy_values)
    Tensor.log_normal_ = _random_inplace(rnd.log_normal_values)
    Tensor.geometric_ = _random_inplace(rnd.geometric_values)
    Tensor.__hash__ = lambda self: id(self)  # defining __eq__ above resets hashing; tensors hash by identity
    Tensor.T = property(lambda self: sh.permute(self, tuple(reversed(range(self.ndim)))))
    Tensor.mT = property(matrix._matrix_transpose)
    Tensor.H = Tensor.T
