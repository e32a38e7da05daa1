"""Small CPU tensors outside autograd, computed with NumPy on their own memory.

MindSpore 2.10's eager CPU ops cost 50-300 µs each before any arithmetic (docs/performance.md, "Small tensors"),
where NumPy needs 1-15 µs on a few thousand elements. Decoding and evaluation run hundreds of such ops per
token or batch, outside autograd, so the ops they spend most on take this path when every tensor operand:

- is a plain CPU tensor of a dtype the op lists (float32 and float64 for arithmetic; int64/int32 where the
  op is exact on integers),
- has at most MAX_ELEMENTS elements (products: at most MAX_PRODUCT multiply-adds),
- is not recorded by autograd (it does not require grad, or grad mode is off).

The results are torch's: elementwise add/sub/mul/neg, integral powers, concatenation and copies are exact IEEE
operations in both, so bit for bit equal; square roots are correctly rounded here (torch's vectorised one is
within 1 ulp); sums, means and matrix products may differ from torch's
in the order of their additions (a few ulps, as MindSpore's kernels do); transcendental functions are
computed in float64 and rounded once (closer to the exact value than MindSpore's float32 kernels). Each op
is compared with real torch in tests/test_host_small.py. Results are new dense tensors over NumPy arrays
(`Tensor.from_numpy` shares the memory), so in-place writes, views and `.numpy()` behave as for any tensor.
"""
import contextlib
import math
import threading

import numpy as np
import mindspore
from ..._mindspore import TensorPy
from .._runtime import ON_CPU, grad_enabled
from .._memory import host_view, layout
from ... import _mindspore as _ms

Tensor = mindspore.Tensor
MAX_ELEMENTS = 1 << 17
MAX_PRODUCT = 1 << 21  # multiply-adds of one product: NumPy's BLAS beats MindSpore's kernel below this (measured)
# dtype sets as tuples: `in` tests identity first, where a set would call the dtypes' Python __hash__
FLOATS = (mindspore.float32, mindspore.float64)
EXACT_INTEGERS = (mindspore.int64, mindspore.int32)  # for the ops exact on them (wrapping as torch)
FLOATS_AND_INTEGERS = FLOATS + EXACT_INTEGERS

# NumPy's floating-point error handling off for one call (overflow to inf, 0/0 = nan are torch's values, and torch
# does not warn); `extobj` costs ~0.3 µs where `np.errstate` costs ~9 µs. NumPy 2 dropped it: errstate there.
_QUIET = {"extobj": [np.getbufsize(), 0, None]}
try:
    np.add(np.ones(1), 1, **_QUIET)
except TypeError:
    _QUIET = None


if hasattr(np, "geterrobj"):
    class quiet_numpy:
        """`with quiet_numpy():` runs NumPy without floating-point warnings (~1.5 µs; `np.errstate` ~7-9 µs,
        a tenth of a small op). The error state is NumPy's per-thread one, restored on exit."""
        __slots__ = ("saved",)

        def __enter__(self):
            self.saved = np.geterrobj()
            np.seterrobj([self.saved[0], 0, None])

        def __exit__(self, *exc_info):
            np.seterrobj(self.saved)
else:  # NumPy 2 dropped the error-state object
    def quiet_numpy():
        return np.errstate(all="ignore")


def quietly(fn, *args):
    """`fn(*args)` without NumPy's floating-point warnings: `fn` is a ufunc, or a function that passes its
    keyword arguments on to each ufunc it calls."""
    if _QUIET is not None:
        return fn(*args, **_QUIET)
    with quiet_numpy():
        return fn(*args)


# MindSpore's C-level accessors (its Python methods only forward to them; the torch bindings replace `stride`)
_ms_stride = _ms.stride
_data_ptr = _ms.data_ptr
_prod = math.prod


class _State(threading.local):
    as_if_recorded = False  # (a class default: a missing thread-local attribute costs an exception per read)


_state = _State()


def _records():
    """Whether an op on a tensor that requires grad is recorded: grad mode is on, or the caller computes values
    that must equal a recorded computation's (`as_if_recorded`)."""
    return grad_enabled() or _state.as_if_recorded


@contextlib.contextmanager
def as_if_recorded():
    """Choose between the host and MindSpore's kernels as grad mode would, while grad mode is off: for a forward
    whose values must equal, bit for bit, a recomputation under grad mode (torch.utils.checkpoint), since the two
    compute the same value with different roundings where they are not exact."""
    previous = _state.as_if_recorded
    _state.as_if_recorded = True
    try:
        yield
    finally:
        _state.as_if_recorded = previous


def takes(tensors, dtypes=FLOATS, rounding=False):
    """True when every tensor in `tensors` (a tuple of Tensors) may be computed on the host by an op that serves
    `dtypes`: see the module docstring. `rounding`: the host may round the result differently from MindSpore's
    kernels (products, sums, square roots, transcendental functions); such an op takes the host only outside grad
    mode, so that what grad mode computes never depends on which intermediate tensors require grad (a region
    that torch.utils.checkpoint runs under no_grad and recomputes under grad mode gets the same values)."""
    if not ON_CPU or rounding and _records():
        return False
    recorded = False
    for t in tensors:
        if type(t) is not Tensor or t._dtype not in dtypes or _prod(t._shape) > MAX_ELEMENTS:
            return False
        recorded = recorded or t._requires_grad
    return not (recorded and _records())


def array(t):
    """A NumPy array over `t`'s elements (no copy), for use while `t` is alive: the ops here read it and make new
    arrays, never return it or a view of it.

    The array is kept on the tensor (`_host_array`, with the data pointer, strides and dtype it was made for) and
    reused while they are still t's: a storage swap, resize or `.data` assignment changes them, and an array that
    describes exactly t's current address, layout and dtype reads t's elements whoever allocated them. A host
    result keeps the array that owns its memory; for other tensors the array does not own or keep alive the
    memory (a reference from it back to t would be a cycle MindSpore's tensors cannot have collected)."""
    return _kept_or_new_array(t, t._dtype, t._shape)


def operand(t, dtypes=FLOATS):
    """`array(t)` where `takes((t,), dtypes)`, else None: the two in one pass over t's attributes, for the
    elementwise ops that run most often (a third of a decoding step's ops)."""
    if type(t) is not Tensor:
        return None
    dtype = t._dtype
    if dtype not in dtypes:
        return None
    shape = t._shape
    if _prod(shape) > MAX_ELEMENTS or t._requires_grad and _records():
        return None
    return _kept_or_new_array(t, dtype, shape)


def _kept_or_new_array(t, dtype, shape):
    """`array(t)` for t's current `dtype` and `shape` (read once by the caller)."""
    kept = t.__dict__.get("_host_array")
    stride = _ms_stride(t)
    ptr = _data_ptr(t)
    if kept is not None and ptr == kept[1] and stride == kept[2] and dtype is kept[3] and shape == kept[0].shape:
        return kept[0]
    if not ptr or 0 in shape:
        return host_view(t)  # (nothing to address: an empty array)
    typestr, itemsize, reviewed = layout(dtype)
    values = np.asarray(_Unowned({"data": (ptr, False), "shape": shape, "strides": tuple(s * itemsize for s in stride),
                                  "typestr": typestr, "version": 3}))
    if reviewed is not None:
        values = values.view(reviewed)
    t._host_array = (values, ptr, stride, dtype)
    return values


class _Unowned:
    """NumPy's view of memory someone else owns, described by `__array_interface__`."""
    __slots__ = ("__array_interface__",)

    def __init__(self, interface):
        self.__array_interface__ = interface


_from_numpy = _ms.from_numpy


def result(values):
    """A new tensor over the NumPy array (or scalar) `values`, which must not be shared with anything else."""
    if type(values) is not np.ndarray:
        values = np.asarray(values)  # a NumPy scalar from a 0-d computation
    elif not values.flags.c_contiguous:
        values = np.ascontiguousarray(values)  # (from_numpy would copy a strided array)
    t = _from_numpy(values)
    t._host_array = (values, _data_ptr(t), _ms_stride(t), t._dtype)
    return t


def scalar(value, dtype):
    """A Python int or float operand as NumPy's scalar of `dtype` (torch casts a scalar to the op's dtype), or
    None where that cast is not torch's (a bool, a float beside an integer tensor, an out-of-range int)."""
    t = type(value)
    if t is float:
        return value if dtype is mindspore.float64 else (np.float32(value) if dtype is mindspore.float32 else None)
    if t is int:
        if dtype is mindspore.float32:
            return np.float32(value)
        if dtype is mindspore.float64:
            return np.float64(value)
        if dtype is mindspore.int64 and -(1 << 63) <= value < (1 << 63):
            return np.int64(value)
        if dtype is mindspore.int32 and -(1 << 31) <= value < (1 << 31):
            return np.int32(value)
    return None


def binary(ufunc, input, other, dtypes=FLOATS_AND_INTEGERS):
    """`ufunc` of two operands (tensors or Python numbers) on the host, or None where this path does not apply:
    the tensors differ in dtype, one is not eligible, or a scalar has no exact cast. Shapes that do not
    broadcast raise torch's error."""
    if not ON_CPU:
        return None
    if type(input) is Tensor:
        if type(other) is Tensor:
            if other._dtype is not input._dtype:
                return None
            a = operand(input, dtypes)
            b = None if a is None else operand(other, dtypes)
            if b is None:
                return None
            if a.shape != b.shape:
                _check_broadcast(a.shape, b.shape)
        else:
            b = scalar(other, input._dtype)
            a = None if b is None else operand(input, dtypes)
            if a is None:
                return None
    elif type(other) is Tensor:
        a = scalar(input, other._dtype)
        b = None if a is None else operand(other, dtypes)
        if b is None:
            return None
    else:
        return None
    return result(quietly(ufunc, a, b))


def _check_broadcast(a_shape, b_shape):
    """torch's error for shapes that do not broadcast."""
    for i in range(1, min(len(a_shape), len(b_shape)) + 1):
        a, b = a_shape[-i], b_shape[-i]
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {max(len(a_shape), len(b_shape)) - i}")


def unary(fn, x, dtypes=FLOATS, rounding=True):
    """`fn` (a NumPy function of one array) of tensor `x` on the host, or None where this path does not apply;
    `rounding=False` for a function whose result is MindSpore's bit for bit (negation, copies, logical ops)."""
    if not ON_CPU or rounding and _records():
        return None
    a = operand(x, dtypes)
    if a is None:
        return None
    return result(quietly(fn, a))


def in_float64(fn):
    """A NumPy function of one float32/float64 array computed in float64 and rounded once to the input's dtype."""
    def op(a, **quiet):
        return fn(a.astype(np.float64), **quiet).astype(a.dtype, copy=False)

    return op


def silu(a, **quiet):
    """x / (1 + exp(-x))"""
    return np.divide(a, np.add(np.exp(np.negative(a, **quiet), **quiet), 1.0, **quiet), **quiet)


def mean(x, dim, keepdim):
    """torch.mean of a float tensor over `dim` (None or an int): the sum (accumulated in float64, rounded once)
    divided by the count in the input's dtype, as torch divides its sum; None where this path does not apply."""
    if type(x) is not Tensor or not takes((x,), rounding=True) or 0 in x._shape:
        return None
    a = array(x)
    if dim is not None:
        if type(dim) is not int:
            return None
        if not -max(a.ndim, 1) <= dim < max(a.ndim, 1):
            return None  # (the caller raises torch's error)
        count = a.shape[dim] if a.ndim else 1
        axis = dim if a.ndim else None
    else:
        count, axis = a.size, None
    with quiet_numpy():  # (inf + -inf = nan in a sum: torch's value, without a warning)
        total = np.add.reduce(a, axis=axis, dtype=np.float64, keepdims=keepdim and a.ndim > 0)
        return result(np.divide(total.astype(a.dtype), a.dtype.type(count)))


def _product_fits(rows, inner, cols):
    return rows * inner * cols <= MAX_PRODUCT and rows * cols <= MAX_ELEMENTS


def linear(x, weight, bias):
    """x W^T (+ b) for x of shape (*, in), W (out, in): None where this path does not apply (the caller's path
    raises torch's shape errors). Its conditions are `takes(..., rounding=True)`'s, tested once for the three
    operands: this runs for every linear layer of a decoding step."""
    if type(x) is not Tensor or type(weight) is not Tensor or not ON_CPU:
        return None
    dtype = x._dtype
    if weight._dtype is not dtype or dtype not in FLOATS:
        return None
    x_shape, w_shape = x._shape, weight._shape
    if len(w_shape) != 2 or not x_shape:
        return None
    if x_shape[-1] != w_shape[1]:  # (torch's message, also in grad mode: MindSpore's MatMul raises a ValueError)
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_prod(x_shape[:-1])}x{x_shape[-1]} and "
                           f"{w_shape[1]}x{w_shape[0]})")
    if _records():
        return None
    rows = _prod(x_shape[:-1])
    if not (rows and w_shape[0] and w_shape[1]) or not _product_fits(rows, w_shape[1], w_shape[0]):
        return None  # (empty products go through the caller's path)
    if bias is not None and (type(bias) is not Tensor or bias._dtype is not dtype or bias._shape != (w_shape[0],)):
        return None
    a = array(x).reshape(rows, x_shape[-1])
    out = np.matmul(a, array(weight).T)
    if bias is not None:
        quietly(np.add, out, array(bias), out)
    return result(out.reshape(x_shape[:-1] + (w_shape[0],)))


def _takes_large(tensors, rounding=True):
    """`takes` for operands whose size the caller has bounded by the work it does with them (weights)."""
    if not ON_CPU or rounding and _records():
        return False
    recorded = False
    for t in tensors:
        if type(t) is not Tensor or t._dtype not in FLOATS:
            return False
        recorded = recorded or t._requires_grad
    return not (recorded and _records())


def matmul(input, other):
    """torch.matmul of two float tensors (NumPy's matmul has torch's rules: 1-D operands, broadcast batch
    dims), or None."""
    if type(input) is not Tensor or type(other) is not Tensor or input._dtype is not other._dtype:
        return None
    a_shape, b_shape = input._shape, other._shape
    if len(a_shape) == 1:
        a_shape = (1,) + a_shape
    if len(b_shape) == 1:
        b_shape = b_shape + (1,)
    if len(a_shape) == 2 and len(b_shape) == 2 and a_shape[-1] != b_shape[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x{a_shape[1]} and "
                           f"{b_shape[0]}x{b_shape[1]})")
    if len(a_shape) < 2 or len(b_shape) < 2 or a_shape[-1] != b_shape[-2]:
        return None
    try:
        batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    except ValueError:
        return None
    if not _product_fits(_prod(batch) * a_shape[-2], a_shape[-1], b_shape[-1]) or \
            not takes((input, other), rounding=True):
        return None
    return result(np.matmul(array(input), array(other)))


def cat(tensors, dim):
    """torch.cat of same-dtype tensors with equal ranks and a non-negative `dim`, or None."""
    first = tensors[0]
    if type(first) is not Tensor:
        return None
    dtype, ndim = first._dtype, len(first._shape)
    for t in tensors:
        if type(t) is not Tensor or t._dtype is not dtype or len(t._shape) != ndim:
            return None
    if not 0 <= dim < ndim or not takes(tuple(tensors), FLOATS_AND_INTEGERS):
        return None
    expected = first._shape
    for number, t in enumerate(tensors):
        for d, (size, want) in enumerate(zip(t._shape, expected)):
            if size != want and d != dim:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {want} "
                                   f"but got size {size} for tensor number {number} in the list.")
    return result(np.concatenate([array(t) for t in tensors], dim))


def _softmax64(scores, axis, dead_rows_zero=False):
    """softmax of a float64 array; a row of only -inf is nan (torch's softmax) or, with `dead_rows_zero`, zeros
    (torch's CPU attention for a query row that sees no key)."""
    # (the ufuncs' own reductions: np.max and np.sum add ~5 µs of Python each on a decoding step's rows)
    top = np.maximum.reduce(scores, axis=axis, keepdims=True)
    if dead_rows_zero:
        dead = top == -np.inf
        if dead.any():
            e = np.exp(scores - np.where(dead, 0.0, top))
            return np.where(dead, 0.0, e / np.where(dead, 1.0, np.add.reduce(e, axis=axis, keepdims=True)))
    e = np.exp(np.subtract(scores, top))
    np.divide(e, np.add.reduce(e, axis=axis, keepdims=True), out=e)
    return e


def softmax(x, dim):
    """softmax over `dim` (an int), computed in float64 and rounded once; None where this path does not apply."""
    if type(x) is not Tensor or not takes((x,), rounding=True) or type(dim) is not int:
        return None
    a = array(x)
    if not -max(a.ndim, 1) <= dim < max(a.ndim, 1) or a.size == 0:
        return None
    if a.ndim == 0:
        return None
    with quiet_numpy():  # (inf - inf = nan in a row holding inf: torch's nan, without a warning)
        return result(_softmax64(a.astype(np.float64), dim).astype(a.dtype))


def attention(query, key, value, attn_mask, is_causal, scale, enable_gqa, rounding=True):
    """softmax(q k^T * scale + mask) v without dropout, in float64 and rounded once; a query row that sees no key
    gives zeros, as torch's CPU kernel does. None where this path does not apply. `rounding=False` for the inputs
    that take the host in every mode (attention_in_every_mode)."""
    operands = attention_operands(query, key, value, attn_mask, is_causal, scale, enable_gqa, rounding)
    if operands is None:
        return None
    q, k, v, m, scale, out_shape = operands
    out, _ = attend(q, k, v, m, scale)
    return result(out.reshape(out_shape).astype(np.float64 if query._dtype is mindspore.float64 else np.float32))


def attention_operands(query, key, value, attn_mask, is_causal, scale, enable_gqa, rounding=True, recorded=False):
    """`(q, k, v, mask, scale, out_shape)` for `attend`: q, k, v in float64 (grouped query heads stacked over
    their key head), the mask as a NumPy array of bools or additive values (or None), the scale as a number
    and the shape of the result; None where the host does not serve these inputs. `recorded`: for a recorded
    computation (_HostAttention), of inputs attention_in_every_mode admitted."""
    if type(query) is not Tensor or type(key) is not Tensor or type(value) is not Tensor:
        return None
    dtype = query._dtype
    if key._dtype is not dtype or value._dtype is not dtype or \
            not (recorded or takes((query, key, value), rounding=rounding)):
        return None
    q_shape, k_shape, v_shape = query._shape, key._shape, value._shape
    if len(q_shape) < 2 or len(k_shape) != len(q_shape) or len(v_shape) != len(q_shape) or \
            q_shape[-1] != k_shape[-1] or k_shape[-2] != v_shape[-2] or k_shape[:-2] != v_shape[:-2]:
        return None
    length, keys = q_shape[-2], k_shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(q_shape[-1])
    if _prod(q_shape[:-1]) * keys > MAX_ELEMENTS:
        return None
    q, k, v = array(query).astype(np.float64), array(key).astype(np.float64), array(value).astype(np.float64)
    grouped = q_shape[:-3] == k_shape[:-3] and len(q_shape) >= 3 and q_shape[-3] != k_shape[-3]
    if grouped:
        heads, kv_heads = q_shape[-3], k_shape[-3]
        if not enable_gqa or kv_heads == 0 or heads % kv_heads:
            return None
        groups = heads // kv_heads
        q = q.reshape(q_shape[:-3] + (kv_heads, groups) + q_shape[-2:])
        k, v = k[..., None, :, :], v[..., None, :, :]
    elif q_shape[:-2] != k_shape[:-2]:
        return None
    if is_causal:
        if attn_mask is not None:
            return None
        m = np.tril(np.ones((length, keys), np.bool_))
    elif attn_mask is not None:
        if type(attn_mask) is not Tensor or (attn_mask._dtype is not dtype and attn_mask._dtype is not mindspore.bool_) or \
                _prod(attn_mask._shape) > MAX_ELEMENTS or (attn_mask._requires_grad and _records()):
            return None
        m = array(attn_mask)
        scores_shape = np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (length, keys)
        try:
            if grouped:  # (..., H or 1, L, S) -> (..., Hkv or 1, groups or 1, L, S), matching the grouped scores
                m = m.reshape((1,) * (len(q_shape) - m.ndim) + m.shape)
                m = m.reshape(m.shape[:-3] + ((kv_heads, groups) if m.shape[-3] != 1 else (1, 1)) + m.shape[-2:])
            if np.broadcast_shapes(m.shape, scores_shape) != scores_shape:
                return None  # a mask that does not broadcast to the scores: torch's error from the caller's path
        except ValueError:
            return None
    else:
        m = None
    return q, k, v, m, scale, q_shape[:-1] + (v_shape[-1],)


def attend(q, k, v, mask, scale, factor=None):
    """`(out, weights)`: softmax(q k^T * scale + mask) in float64 (rows that see no key all zeros), times the
    dropout `factor` (kept / (1 - p), or None), times v."""
    scores = np.matmul(q, np.swapaxes(k, -1, -2))
    quietly(np.multiply, scores, scale, scores)
    if mask is not None:
        if mask.dtype == np.bool_:
            scores = np.where(mask, scores, -np.inf)
        else:
            scores = quietly(np.add, scores, mask)
    with quiet_numpy():
        weights = _softmax64(scores, -1, True)
    return np.matmul(weights if factor is None else weights * factor, v), weights


def attend_grad(grad, q, k, v, weights, scale, factor=None):
    """`(grad_q, grad_k, grad_v)` in float64 of `attend` (whose forward gave `weights`) for the output gradient
    `grad` (float64): the softmax's gradient w * (g - sum(g * w)) on the scores, a dead row's all zero."""
    dropped = weights if factor is None else weights * factor
    grad_v = np.matmul(np.swapaxes(dropped, -1, -2), grad)
    grad_weights = np.matmul(grad, np.swapaxes(v, -1, -2))
    if factor is not None:
        grad_weights *= factor
    grad_scores = grad_weights
    grad_scores -= np.add.reduce(grad_weights * weights, axis=-1, keepdims=True)
    grad_scores *= weights
    grad_scores *= scale
    return np.matmul(grad_scores, k), np.matmul(np.swapaxes(grad_scores, -1, -2), q), grad_v


def attention_in_every_mode(query, key, value, attn_mask, is_causal, dropout_p):
    """Whether scaled_dot_product_attention of these inputs runs here in every mode (recorded as
    nn/_lean_backward's _HostAttention, with dropout, under checkpoint's no_grad forward), so that the values
    never depend on the mode: CPU tensors of one float dtype, one head count for q, k and v (no grouped
    queries), at most MAX_ELEMENTS scores and elements per operand, a mask that needs no gradient."""
    if not ON_CPU or not 0.0 <= dropout_p < 1.0:
        return False
    for t in (query, key, value):
        if type(t) is not Tensor or t._dtype not in FLOATS or _prod(t._shape) > MAX_ELEMENTS:
            return False
    q_shape, k_shape = query._shape, key._shape
    if query._dtype is not key._dtype or query._dtype is not value._dtype or len(q_shape) < 2 or \
            q_shape[:-2] != k_shape[:-2] or value._shape[:-2] != k_shape[:-2] or \
            _prod(q_shape[:-1]) * k_shape[-2] > MAX_ELEMENTS:
        return False
    return attn_mask is None or type(attn_mask) is Tensor and not attn_mask._requires_grad


def addmm(input, mat1, mat2):
    """input + mat1 @ mat2 (beta = alpha = 1) for 2-D float matrices and an input broadcastable to the product,
    or None."""
    if type(input) is not Tensor or type(mat1) is not Tensor or type(mat2) is not Tensor:
        return None
    dtype = mat1._dtype
    a_shape, b_shape = mat1._shape, mat2._shape
    if input._dtype is not dtype or mat2._dtype is not dtype or len(a_shape) != 2 or len(b_shape) != 2 or \
            a_shape[1] != b_shape[0] or len(input._shape) > 2:
        return None
    if not _product_fits(a_shape[0], a_shape[1], b_shape[1]) or not takes((mat1, input), rounding=True) or \
            not _takes_large((mat2,)):
        return None
    if not _broadcasts(input._shape, (a_shape[0], b_shape[1])):
        return None  # torch's error from the caller's path
    out = np.matmul(array(mat1), array(mat2))
    quietly(np.add, out, array(input), out)
    return result(out)


def isin(elements, test_elements):
    """torch.isin of small integer tensors (generate's stopping check, every token): NumPy's membership test is
    exact, and the kernels' path keeps MindSpore memory per call (docs/long-runs.md)."""
    if not takes((elements, test_elements), EXACT_INTEGERS) or elements._dtype is not test_elements._dtype:
        return None
    return result(np.isin(array(elements), array(test_elements)))


def _broadcasts(shape, to):
    return len(shape) <= len(to) and all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(to)))


# Layer norms whose rows have at least NORM_MIN_WIDTH elements and whose input has at most NORM_MAX_ELEMENTS run
# here in every mode, forward and backward (recorded ones as nn/_lean_backward's _HostLayerNorm): MindSpore's
# LayerNorm and LayerNormGrad kernels took 1.2 and 3.5 ms on a (16, 12, 384) input. Narrower rows keep the
# kernels under grad mode (their written-out backward rounds as torch's kernel does, which was measured there).
NORM_MIN_WIDTH = 64
# Forward and backward through the module, medians (2026-11-29, Intel Xeon, 2 cores): (16, 128, 384) 9.1 ms
# here against 20.3 ms with the kernels, (8, 512, 768) 43 against 69 ms, (4096, 1024) 65 against 92 ms. The
# bound keeps the host's temporaries (about three input-sized arrays) to inputs of 64 MB.
NORM_MAX_ELEMENTS = 1 << 24


def norm_on_host(shape, count):
    """Whether a layer norm of an input of `shape` over rows of `count` elements runs on the host in every
    mode (CPU target, float32/float64 operands)."""
    return ON_CPU and count >= NORM_MIN_WIDTH and _prod(shape) <= NORM_MAX_ELEMENTS


def layer_norm(x, normalized_shape, weight, bias, eps):
    """(x - mean) / sqrt(var + eps) * weight + bias over the trailing `normalized_shape` axes (normalized_rows),
    or None."""
    if type(x) is not Tensor:
        return None
    count = _prod(normalized_shape)
    operands = (x,) + tuple(p for p in (weight, bias) if p is not None)
    if norm_on_host(x._shape, count):
        # computed here in every mode (recorded: _HostLayerNorm), so only a recorded call goes elsewhere
        if any(type(t) is not Tensor or t._dtype not in FLOATS for t in operands) or grad_enabled() and any(
                t._requires_grad for t in operands):
            return None
    elif not takes(operands, rounding=True):
        return None
    dtype = x._dtype
    for p in (weight, bias):
        if p is not None and (p._dtype is not dtype or p._shape != normalized_shape):
            return None
    a = array(x)
    if a.size == 0 or count == 0:
        return None
    with quiet_numpy():  # (inf and nan inputs give torch's nan without NumPy's warnings)
        return result(normalized_rows(a, count, weight, bias, eps)[0])


def _row_sums(rows):
    """Each row's sum as a column, by a product with ones: BLAS's gemv took 21 us on (192, 384) float32 where
    np.add.reduce along the rows took 36-41 us."""
    return (rows @ np.ones(rows.shape[1], rows.dtype))[:, None]


def _column_sums(rows):
    return np.ones(rows.shape[0], rows.dtype) @ rows


def normalized_rows(a, count, weight, bias, eps):
    """`(y, normalized, rstd)`: the layer norm of the array `a` over rows of `count` elements, the rows of
    (a - mean) / sqrt(var + eps) before the affine step and 1 / sqrt(var + eps) as a column, which its gradient
    reads. Computed in a's dtype as torch does (row sums as products with ones, 1 / sqrt(var + eps) in float64):
    on (192, 384) float32 this took 0.24-0.30 ms, the same computed in float64 and rounded once 0.8-0.9 ms, for
    results within 2e-7 of each other."""
    rows = a.reshape(-1, count)
    mean = _row_sums(rows)
    mean /= count
    normalized = rows - mean
    var = _row_sums(np.square(normalized)).astype(np.float64)
    var /= count
    var += eps
    rstd = (1.0 / np.sqrt(var)).astype(a.dtype)
    normalized *= rstd
    # (y is always a new array: the caller's output tensor may be written in place, `normalized` is kept)
    if weight is not None:
        y = normalized * array(weight).reshape(-1)
        if bias is not None:
            y += array(bias).reshape(-1)
    else:
        y = normalized + array(bias).reshape(-1) if bias is not None else normalized.copy()
    return y.reshape(a.shape), normalized, rstd


def normalized_rows_grad(grad, normalized, rstd, weight, count):
    """`(grad_x, grad_weight, grad_bias)` (grad_x as rows) of the layer norm whose forward gave the rows
    `normalized` and the column `rstd` (normalized_rows), for the output gradient array `grad`; weight may be
    None. dx = rstd (g w - mean(g w) - xhat mean(g w xhat)) per row, the means as products with w."""
    g = grad.reshape(-1, count)
    g_normalized = g * normalized
    grad_weight = _column_sums(g_normalized)
    grad_bias = _column_sums(g)
    if weight is None:
        projection, shift, scaled = _row_sums(g_normalized), _row_sums(g), g * rstd
    else:
        w = array(weight).reshape(-1)
        projection, shift = (g_normalized @ w)[:, None], (g @ w)[:, None]
        scaled = g * w
        scaled *= rstd
    shift *= rstd
    shift /= count
    projection *= rstd
    projection /= count
    scaled -= shift
    np.multiply(normalized, projection, out=g_normalized)
    scaled -= g_normalized
    return scaled, grad_weight, grad_bias


MAX_BIAS_ADD = 1 << 20  # elements of a product: MindSpore's BiasAdd took 0.55 ms on (192, 384), NumPy's add 0.03 ms
# A bias is added into a product in place on the host up to this many elements: past MAX_BIAS_ADD too, since
# MindSpore's add broadcasts a row slowly (2048 x 1536: 37 ms, BiasAdd 8 ms, NumPy's in-place add 5 ms, load 6)
# and BiasAdd keeps memory per call (docs/long-runs.md)
MAX_HOST_BIAS_ADD = 1 << 26


def add_bias_into_product(product, bias):
    """Add the row vector `bias` into `product`, a fresh 2-D float tensor no one else holds (a MatMul's output),
    on the host; False where this path does not apply (the caller then adds it with a kernel)."""
    if not ON_CPU or type(bias) is not Tensor:
        return False
    dtype = product._dtype
    shape = product._shape
    if dtype not in FLOATS or bias._dtype is not dtype or len(shape) != 2 or bias._shape != (shape[1],) or \
            shape[0] * shape[1] > MAX_HOST_BIAS_ADD:
        return False
    if (product._requires_grad or bias._requires_grad) and _records():
        return False
    rows = host_view(product)
    quietly(np.add, rows, array(bias), rows)
    return True


def column_sums(t):
    """The column sums of a 2-D float CPU tensor outside autograd (a linear layer's bias gradient), as a product
    with ones on the host, or None where this path does not apply. MindSpore's MatMul with a ones row took
    0.16-0.46 ms on (192, 384)-(192, 1536), this 20-40 us."""
    if not ON_CPU or type(t) is not Tensor or t._dtype not in FLOATS or len(t._shape) != 2 or \
            _prod(t._shape) > MAX_BIAS_ADD or not t._shape[0] or t._requires_grad and _records():
        return None
    return result(_column_sums(array(t)))


COPYABLE = FLOATS_AND_INTEGERS + (mindspore.bool_, mindspore.float16, mindspore.int8, mindspore.uint8, mindspore.int16)


def copy(t):
    """A new contiguous tensor with `t`'s elements (clone), or None where this path does not apply: t is not
    contiguous (torch's clone keeps a permuted tensor's strides; MindSpore's copy serves that case), is recorded
    by autograd, or is large."""
    if type(t) is not Tensor or not takes((t,), COPYABLE) or not _ms.is_contiguous(t):
        return None
    return result(array(t).copy())


def arg_extreme(find, x, dim, keepdim):
    """np.argmax or np.argmin (`find`) as torch's argmax/argmin: the first position of the extreme (nan counts as
    the extreme, as in torch), int64; None where this path does not apply (errors come from the caller's path)."""
    if type(x) is not Tensor or not takes((x,), FLOATS_AND_INTEGERS) or 0 in x._shape:
        return None
    a = array(x)
    if dim is None:
        return result(np.asarray(find(a.reshape(-1)), np.int64))
    if type(dim) is not int or not -max(a.ndim, 1) <= dim < max(a.ndim, 1) or type(keepdim) is not bool:
        return None
    if a.ndim == 0:
        return result(np.zeros((), np.int64))
    return result(np.asarray(find(a, axis=dim, keepdims=keepdim), np.int64))


def embedding(ids, weight):
    """Rows of `weight` at `ids` (already range-checked by the caller), or None where this path does not apply."""
    if type(ids) is not Tensor or type(weight) is not Tensor or not takes((ids,), EXACT_INTEGERS) or \
            not _takes_large((weight,), rounding=False) or len(weight._shape) != 2 or \
            _prod(ids._shape) * weight._shape[1] > MAX_ELEMENTS:
        return None
    return result(np.take(array(weight), array(ids), axis=0))


WITH_BOOL = FLOATS_AND_INTEGERS + (mindspore.bool_,)  # comparisons, bitwise ops on bool and integers, any/all


def reduce_all_or_any(test, x, dim, keepdim):
    """np.all or np.any (`test`) of a tensor over `dim` (None or an int) as torch's all/any (a bool tensor), or
    None where this path does not apply."""
    if type(x) is not Tensor or not takes((x,), WITH_BOOL) or 0 in x._shape or type(keepdim) is not bool:
        return None
    a = array(x)
    if dim is None:
        return result(np.asarray(test(a)))
    if type(dim) is not int or not -max(a.ndim, 1) <= dim < max(a.ndim, 1):
        return None
    return result(np.asarray(test(a, axis=dim if a.ndim else None, keepdims=keepdim and a.ndim > 0)))


def extreme(find, x):
    """The largest or smallest element (np.max / np.min as `find`: nan wins, as in torch), or None."""
    if type(x) is not Tensor or not takes((x,), WITH_BOOL) or 0 in x._shape:
        return None
    with quiet_numpy():
        return result(np.asarray(find(array(x))))


def _advanced_item(item):
    """The NumPy form of one index item of an advanced index, or None where this path does not take it. An int
    is not taken: beside a list or tensor, NumPy counts it as one more advanced index, where torch selects it
    first, and the two place the result's dimensions differently (x[:, 0, :, [1, 2]] of a (2, 3, 4, 5) tensor:
    torch (2, 4, 2), NumPy (2, 2, 4))."""
    kind = type(item)
    if item is None or item is Ellipsis:
        return item
    if kind is slice:
        ok = all(v is None or type(v) is int for v in (item.start, item.stop, item.step))
        return item if ok and (item.step is None or item.step > 0) else None
    if kind is list:
        return item if item and all(type(v) is int for v in item) else None  # (bool lists: the general path)
    if kind is Tensor:
        if item._dtype not in EXACT_INTEGERS and item._dtype is not mindspore.bool_ or not takes((item,), WITH_BOOL) \
                or not item._shape:
            return None
        return array(item)
    return None


def advanced_getitem(t, index):
    """torch indexing with at least one list or integer/bool tensor item (a copy, as in torch and NumPy: the same
    rules place the indexed dimensions), or None where this path does not apply."""
    if not takes((t,), WITH_BOOL):
        return None
    items = index if type(index) is tuple else (index,)
    converted = []
    advanced = False
    for item in items:
        numpy_item = _advanced_item(item)
        if numpy_item is None and item is not None:
            return None
        advanced = advanced or type(item) is list or type(item) is Tensor
        converted.append(numpy_item)
    if not advanced:
        return None
    try:
        values = array(t)[tuple(converted)]
    except IndexError:
        return None  # torch's message from the caller's path
    return result(np.array(values, copy=True, order="C"))
