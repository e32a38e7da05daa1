"""torch.nn.functional on MindSpore kernels that exist on every device target (see `_backend` notes inline)."""
import functools
import math

import numpy as np
import mindspore
from mindspore import ops

from .. import _dtype
from .._ops import linalg as _linalg, pointwise as _pw, reduction as _red, shape as _sh
from .._ops import _util as _ix  # (index range checks)
from .._ops import host_small as _host_small
from .._ops import product_dtypes as _product_dtypes
from .._ops._util import no_kernel as _no_kernel, type_name as _type_name, wrap_dim as _wrap_dim
from .._ops._util import write_out as _write_out
from .._ops.broadcast import expanded as _expanded
from .._ops.dense import kernel_operand as _kernel_operand
from .._ops.softmax_kernel import softmax_kernel as _softmax_kernel
from .._inplace import leaf_meta_is_stale as _leaf_meta_is_stale
from . import _norm_functions
from .._runtime import grad_enabled
from ..autograd.function import Function as _Function
from .._generator.sampling import DRAW_AHEAD_MAX, bernoulli_scalar as _bernoulli_scalar
from ..random import _engine, _numpy_rng
from . import _blockwise_attention as _blockwise
from . import _attention_mask_memo as _mask_memo
from . import _grouped_query_attention as _gqa
from . import _lean_backward as _lean
from ._dropout_frame import apply_dropout as _apply_dropout
from ._grouped_mm import grouped_mm  # noqa: F401  (mixture-of-experts layers)
from ... import _mindspore as _ms

Tensor = mindspore.Tensor
_layer_norm_prims = {}
_HALF = frozenset({mindspore.float16, mindspore.bfloat16})
_FLOATS = frozenset({mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64})
_F64 = mindspore.float64


def _k(value, x):
    """A Python float as an operand of an op on x. MindSpore rounds a Python float operand to float32 (0.01
    becomes 0.009999999776); for float64 x it goes in as a float64 0-d tensor."""
    return Tensor(value, _F64) if x._dtype == _F64 else value


def _empty_result(input, *params):
    """The empty result of a normalisation of an empty input, in the graph of the input and the parameters
    (MindSpore's kernels refuse empty input; torch's result still requires grad through the weight)."""
    out = ops.reshape(input, input._shape)
    for p in params:
        if p is not None:
            out = ops.add(out, ops.broadcast_to(ops.mul(ops.reduce_sum(p), 0).astype(out.dtype), out._shape))
    return out


def _floats_only(input, kernel):
    """torch's activations with no integer or bool kernel refuse those dtypes (MindSpore's would compute them
    in float, or fail with a message about its own kernel)."""
    if input._dtype not in _FLOATING:
        raise _no_kernel(kernel, input._dtype)


_FLOATING = _dtype.FLOATING | _dtype.COMPLEX


def _up(x):
    """float16 and bfloat16 in float32, as torch's CPU kernels compute them (and MindSpore turns a 0-d float16
    times a Python float into float32); the result goes back to the input's dtype in `_maybe_inplace`."""
    return ops.cast(x, mindspore.float32) if x._dtype in _HALF else x


# ---------------------------------------------------------------- linear / embedding / normalisation


@_product_dtypes.checked_by(_product_dtypes.linear)
def linear(input, weight, bias=None):
    """y = x W^T + b for x of shape (*, in_features).

    MatMul with transpose_b plus BiasAdd on a 2-D view measured ~2x faster on the CPU than `ops.dense` or
    `matmul(x, W.T) + b` (no transposed copy of W, and BiasAdd is a dedicated kernel); under autograd one
    Function that keeps x rather than its flattened copy (`_lean_backward.linear`); small products outside
    autograd on the host (`host_small.linear`), asked first since decoding runs a few dozen per token."""
    _product_dtypes.linear(input, weight, bias)
    if not grad_enabled():
        on_host = _host_small.linear(input, weight, bias)
        if on_host is not None:
            return on_host
    if input.ndim == 1 or input.dtype != weight.dtype or 0 in input._shape or 0 in weight._shape or \
            _leaf_meta_is_stale(weight) or _leaf_meta_is_stale(bias):
        # (an empty input or weight goes through matmul, which answers empty products without MatMul; so do
        # parameters converted after they began requiring grad: a Function's gradient would get their old dtype)
        out = _linalg.matmul(input, _sh.transpose(weight, 0, 1))
        return out if bias is None else _pw.add(out, bias)
    return _lean.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    # out[..., o] = x1 W[o] x2, as one matmul and a reduction (MindSpore's Einsum has no CPU kernel)
    out_features, in1, in2 = weight.shape
    lead = tuple(input1.shape[:-1])
    x1 = ops.reshape(input1, (-1, in1))
    x2 = ops.reshape(input2, (-1, 1, in2))
    left = ops.matmul(x1, ops.reshape(ops.transpose(weight, (1, 0, 2)), (in1, out_features * in2)))
    out = ops.sum(ops.mul(ops.reshape(left, (-1, out_features, in2)), x2), -1)
    out = ops.reshape(out, lead + (out_features,))
    return out if bias is None else ops.add(out, bias)


_EMBEDDING_INDEX_DTYPES = frozenset({mindspore.int64, mindspore.int32})


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """torch's max_norm: each row the indices name whose norm exceeds max_norm is scaled in place (outside
    autograd) to max_norm / (norm + 1e-7) of itself, before the lookup."""
    from ..autograd.grad_mode import no_grad

    rows = np.unique(input.asnumpy().reshape(-1))
    if rows.size == 0:
        return
    with no_grad():
        index = mindspore.Tensor(rows.astype(np.int64))
        picked = ops.gather(weight, index, 0)
        norms = _linalg.vector_norm(picked, norm_type, -1, True)
        scale = ops.where(ops.gt(norms, max_norm), ops.div(_k(float(max_norm), norms), ops.add(norms, 1e-7)),
                          ops.ones_like(norms))
        weight[index] = ops.mul(picked, scale)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("torch.nn.functional.embedding(scale_grad_by_freq/sparse) is not supported on "
                                  "MindSpore: its gradients are always dense and unscaled")
    if padding_idx is not None:
        padding_idx = _embedding_padding_row(padding_idx, weight._shape[0])
    # MindSpore's CPU Gather wraps a negative index and reads past the table for a large one: check first
    # (one reduction on the host; measured ~3 us for a (16, 128) int64 batch, ~1.5% of the lookup)
    if input._dtype not in _EMBEDDING_INDEX_DTYPES:
        raise RuntimeError(f"embedding(): expected indices of dtype Long or Int, but got {_type_name(input.dtype)}")
    if _ix.any_outside(input, weight._shape[0]):
        low, high = _ix.index_range(input)
        raise IndexError(f"embedding(): index out of range in self: index {low if low < 0 else high} is outside "
                         f"a table of {weight._shape[0]} rows")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    out = _host_small.embedding(input, weight)  # (a recorded weight keeps the Gather and its gradient)
    if out is not None:
        return out
    if not _lean._records(weight):
        return ops.gather(_kernel_operand(weight), input, 0)
    out = _lean.embedding(input, weight, padding_idx)
    if out is not None:
        return out
    out = ops.gather(weight, input, 0)
    if padding_idx is not None:
        # torch gives the padding row no gradient; the forward value stays the row's value
        keep = ops.expand_dims(ops.not_equal(input, padding_idx), -1)
        out = ops.where(keep, out, ops.stop_gradient(out))
    return out


def _embedding_padding_row(padding_idx, rows):
    """torch's reading of F.embedding's padding_idx: a row of the table, counted from the end when negative."""
    if padding_idx >= rows if padding_idx > 0 else padding_idx < -rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + rows if padding_idx < 0 else padding_idx


def _layer_norm_prim(begin_axis, eps):
    key = (begin_axis, eps)
    prim = _layer_norm_prims.get(key)
    if prim is None:
        prim = _layer_norm_prims[key] = ops.LayerNorm(begin_norm_axis=begin_axis, begin_params_axis=begin_axis,
                                                       epsilon=eps)
    return prim


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[-len(normalized_shape):]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    if 0 in input._shape:  # (no rows: MindSpore's LayerNorm kernel refuses them)
        return _empty_result(input, weight, bias)
    on_host = _host_small.layer_norm(input, normalized_shape, weight, bias, float(eps))
    if on_host is None and _lean._records(input, weight, bias):
        on_host = _lean.host_layer_norm(input, normalized_shape, weight, bias, float(eps))
    if on_host is not None:
        return on_host
    compute_dtype = input.dtype
    if input._dtype == _F64:  # MindSpore's LayerNorm computes float64 in float32 precision
        return _layer_norm_composed(input, normalized_shape, weight, bias, eps)
    if input.dtype in (mindspore.bfloat16,):  # no bf16 LayerNorm kernel on CPU: compute in float32
        input = ops.cast(input, mindspore.float32)
    if weight is None:
        weight = ops.ones(normalized_shape, input.dtype)
    if bias is None:
        bias = _ms.zeros(normalized_shape, input.dtype)
    # gamma goes in as an op's output, never as the leaf parameter itself: measured on MindSpore 2.10, when a
    # leaf gamma equals an earlier gamma that was written in place while a detached alias of it was alive
    # (a fresh LayerNorm in a second model after training a first one while holding its state_dict), the
    # LayerNorm backward computes the input's gradient from the earlier gamma's values. Outside autograd there is
    # no backward, and the parameter goes in as it is (one kernel fewer per call: eval and decoding).
    if weight.dtype != input.dtype:
        gamma = ops.cast(weight, input.dtype)
    elif _lean._records(input, weight, bias):
        gamma = ops.mul(weight, 1)
    else:
        gamma = weight
    prim = _layer_norm_prim(input.ndim - len(normalized_shape), float(eps))
    if input.dtype == mindspore.float32:
        y = _lean.layer_norm(input, gamma, ops.cast(bias, input.dtype), prim)
    else:
        y = prim(input, gamma, ops.cast(bias, input.dtype))[0]
    return y if y.dtype == compute_dtype else ops.cast(y, compute_dtype)


def _layer_norm_composed(input, normalized_shape, weight, bias, eps):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axes, in recorded ops of x's dtype."""
    dims = tuple(range(-len(normalized_shape), 0))
    mean = ops.mean(input, dims, True)
    centered = ops.sub(input, mean)
    var = ops.mean(ops.square(centered), dims, True)
    y = ops.mul(centered, ops.rsqrt(ops.add(var, _k(float(eps), input))))
    if weight is not None:
        y = ops.mul(y, weight)
    return y if bias is None else _pw.add(y, bias)  # (ops.add of two float64 operands has no CPU Clone for its backward)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dims = tuple(range(-len(normalized_shape), 0))
    if eps is None:
        eps = _dtype.finfo(input.dtype).eps
    # float64 stays float64; the other types in float32
    x = input if input._dtype in (mindspore.float32, _F64) else ops.cast(input, mindspore.float32)
    y = ops.mul(x, ops.rsqrt(ops.add(ops.mean(ops.square(x), dims, True), _k(float(eps), x))))
    y = ops.cast(y, input.dtype) if y.dtype != input.dtype else y
    return y if weight is None else ops.mul(y, weight)


def _check_group_norm(input, num_groups, weight, bias):
    """torch's checks (a channel count that num_groups does not divide was regrouped across channels)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    shape = list(input.shape)
    c = shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {shape}")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    if input.ndim >= 2:  # (the Python function's own check; torch.group_norm, the aten form, lacks it)
        shape = list(input.shape)
        n, c = shape[0], shape[1]
        if n * c // num_groups * math.prod(shape[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{[n * c // num_groups, num_groups] + shape[2:]}")
    return _group_norm(input, num_groups, weight, bias, eps)


@_norm_functions.float16_statistics_in_float32
def _group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    _check_group_norm(input, num_groups, weight, bias)
    if 0 in input._shape:  # (nothing to normalise: the statistics of no values would fail)
        return _empty_result(input, weight, bias)
    n, c = input.shape[0], input.shape[1]
    x = input.reshape(n, num_groups, -1)
    mean = ops.mean(x, -1, True)
    var = ops.mean(ops.square(ops.sub(x, mean)), -1, True)
    y = ops.div(ops.sub(x, mean), ops.sqrt(ops.add(var, _k(float(eps), x)))).reshape(input.shape)
    shape = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = ops.mul(y, weight.reshape(shape))
    if bias is not None:
        y = ops.add(y, bias.reshape(shape))
    return y


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    from .._ops.linalg import vector_norm

    if out is not None:
        return _write_out(out, normalize(input, p, dim, eps), "div")
    return ops.div(input, ops.clamp(vector_norm(input, p, dim, True), min=eps))


# ---------------------------------------------------------------- dropout (torch's CPU masks)
# torch's CPU dropout is `noise = empty_like(x).bernoulli_(1 - p); noise.div_(1 - p); x * noise`: an element is
# kept where one double uniform of the generator (two twister outputs) is below 1 - p, in C order.
# Masks are drawn in pieces of this many elements (the same values as one draw), which bounds the draw's working
# arrays (13 bytes per element) whatever the mask's size.
_DRAW_PIECE_ELEMENTS = 1 << 20


def _keep_bools(shape, p, generator=None):
    """True where dropout keeps an element (torch's `bernoulli_(1 - p)` from `generator` or the default one)."""
    return _keep_bools_from(_engine(generator), shape, p)


def _keep_bools_from(engine, shape, p):
    """`_keep_bools` drawn from `engine` (a generator's twister, or a NumPy Generator over it). Afterwards the
    twister draws the next mask's outputs ahead, in the background, while the model computes."""
    shape = tuple(shape)
    count = math.prod(shape)
    if count <= _DRAW_PIECE_ELEMENTS:
        keep = _bernoulli_scalar(engine, count, 1.0 - p)
    else:
        keep = np.empty(count, dtype=np.bool_)
        for start in range(0, count, _DRAW_PIECE_ELEMENTS):
            piece = min(_DRAW_PIECE_ELEMENTS, count - start)
            keep[start:start + piece] = _bernoulli_scalar(engine, piece, 1.0 - p)
    if hasattr(engine, "draw_ahead"):
        engine.draw_ahead(min(2 * count, DRAW_AHEAD_MAX))  # (the next mask is likely this size again)
    return keep.reshape(shape)


def _keep_mask(shape, p, dtype, generator=None):
    keep = _keep_bools(shape, p, generator)
    # (torch divides the 0/1 noise by 1 - p in the tensor's dtype: float32(1) / float32(1 - p))
    scaled = np.multiply(keep, np.float32(1.0) / np.float32(1.0 - p), dtype=np.float32)
    mask = Tensor.from_numpy(scaled)
    return mask if dtype == mindspore.float32 else ops.cast(mask, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    return _apply_dropout(input, p, training, inplace, _mask_elements)


def _mask_elements(input, p):
    return ops.mul(input, _keep_mask(input.shape, p, input.dtype))


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace)


dropout2d = dropout3d = dropout1d


def _channel_dropout(input, p, training, inplace):
    return _apply_dropout(input, p, training, inplace, _mask_channels)


def _mask_channels(input, p):
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return ops.mul(input, _keep_mask(shape, p, input.dtype))


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    from ._alpha_dropout import alpha_dropout as _alpha_dropout

    return _alpha_dropout(input, p, training, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    from ._alpha_dropout import feature_alpha_dropout as _feature_alpha_dropout

    return _feature_alpha_dropout(input, p, training, inplace)


# ---------------------------------------------------------------- activations
_SQRT_HALF = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(input, approximate="none"):
    _floats_only(input, "GeluKernelImpl")
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")
    dtype = input._dtype
    if dtype in _HALF:
        return ops.cast(gelu(ops.cast(input, mindspore.float32), approximate), dtype)
    if dtype == _F64:  # (the float32 kernels' constants are float32)
        if approximate == "none":
            cdf = ops.mul(ops.add(ops.erf(ops.mul(input, _k(_SQRT_HALF, input))), 1.0), 0.5)
        else:
            inner = ops.mul(ops.add(input, ops.mul(ops.mul(ops.square(input), input), _k(0.044715, input))),
                            _k(_SQRT_2_OVER_PI, input))
            cdf = ops.mul(ops.add(ops.tanh(inner), 1.0), 0.5)
        return ops.mul(input, cdf)
    if approximate == "none":
        return _lean.gelu_exact(input)
    return ops.gelu(input, approximate=approximate)


def relu(input, inplace=False):
    return _maybe_inplace(input, _pw.relu(input), inplace)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _floats_only(input, "leaky_relu_cpu")
    x = _up(input)
    # (x > 0, not >=: at 0 the gradient is negative_slope, as torch's)
    return _maybe_inplace(input, ops.where(ops.gt(x, 0), x, ops.mul(x, _k(negative_slope, x))), inplace)


def _elu(x, alpha):
    # (the shim's expm1: MindSpore's CPU kernel returns 0 for |x| < 6e-8, see _ops/_host_math.py)
    return ops.where(ops.gt(x, 0), x, ops.mul(_pw.expm1(x), _k(alpha, x)))


def elu(input, alpha=1.0, inplace=False):
    _floats_only(input, "elu_cpu")
    return _maybe_inplace(input, _elu(_up(input), alpha), inplace)


def selu(input, inplace=False):
    _floats_only(input, "elu_cpu")
    scale, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    x = _up(input)
    return _maybe_inplace(input, ops.mul(_elu(x, alpha), _k(scale, x)), inplace)


def celu(input, alpha=1.0, inplace=False):
    _floats_only(input, "elu_cpu")
    # torch: x for x > 0, alpha * expm1(x / alpha) elsewhere; the gradient 1 at 0 and at NaN (which stays NaN)
    def finite_celu(x):
        negative = ops.where(ops.gt(x, 0), ops.zeros_like(x), x)  # (expm1 of a large x would overflow: NaN grads)
        return ops.where(ops.gt(x, 0), x, ops.mul(_pw.expm1(ops.mul(negative, _k(1.0 / alpha, x))), _k(alpha, x)))

    return _maybe_inplace(input, _pw._nan_passing(finite_celu, _up(input), "passes"), inplace)


def silu(input, inplace=False):
    _floats_only(input, "silu_cpu")
    # MindSpore's kernel: up to ~300 ulps off torch in float32 (docs/numerics.md), kept for its speed in
    # Llama-style MLPs (the float64 host sigmoid is 2.5-3.5x slower on large tensors); small tensors outside
    # autograd are computed in float64 on the host (_ops/host_small)
    on_host = _host_small.unary(_SILU64, input, rounding=True)
    if on_host is not None:
        return _maybe_inplace(input, on_host, inplace)
    source = _inplace_source(input, inplace)
    if source._dtype is mindspore.float16:
        # in float32, rounded once, as torch computes half precision: MindSpore's float16 kernel loses the
        # subnormal sigmoid (silu(-11.16) was -0.0 for torch's -1.594e-4)
        return _maybe_inplace(input, ops.silu(source.astype(mindspore.float32)).astype(mindspore.float16), inplace)
    return _maybe_inplace(input, ops.silu(source), inplace)


_SILU64 = _host_small.in_float64(_host_small.silu)


def mish(input, inplace=False):
    _floats_only(input, "mish_cpu")
    x = _up(_inplace_source(input, inplace))
    return _maybe_inplace(input, ops.mul(x, _pw.tanh(softplus(x))), inplace)


_INTEGERS = frozenset({mindspore.int8, mindspore.int16, mindspore.int32, mindspore.int64, mindspore.uint8})


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    dtype = input._dtype
    if dtype == mindspore.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if dtype in _INTEGERS:  # torch keeps the integer type: the limits truncated to it
        if dtype == mindspore.uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        return _maybe_inplace(input, ops.clamp(input, Tensor(int(min_val), dtype), Tensor(int(max_val), dtype)),
                              inplace)
    x = _up(input)
    low, high = _k(min_val, x), _k(max_val, x)
    # torch's gradient passes strictly inside the limits and at NaN (which stays NaN), and is 0 at the limits
    clipped = ops.logical_or(ops.le(x, low), ops.ge(x, high))
    return _maybe_inplace(input, ops.where(clipped, ops.stop_gradient(ops.clamp(x, low, high)), x), inplace)


_F32_SIXTH = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid(x):
    """torch's hardsigmoid: the value min(max(x + 3, 0), 6) / 6 (NaN stays NaN), the gradient g * (1.0f / 6.0f)
    strictly inside (-3, 3) and 0 elsewhere (at -3 and 3 too), the slope a float32 constant also for float64."""
    value = ops.stop_gradient(_pw._nan_passing(lambda v: ops.div(ops.clamp(ops.add(v, 3.0), 0.0, 6.0), _k(6.0, v)), x,
                                              "zero"))
    inside = ops.logical_and(ops.gt(x, -3.0), ops.lt(x, 3.0))
    slope = ops.mul(ops.where(inside, x, ops.zeros_like(x)), _k(_F32_SIXTH, x))
    return ops.add(value, ops.sub(slope, ops.stop_gradient(slope)))


def hardsigmoid(input, inplace=False):
    _floats_only(input, "hardsigmoid_cpu")
    return _maybe_inplace(input, _hardsigmoid(_up(input)), inplace)


def hardswish(input, inplace=False):
    _floats_only(input, "hardswish_cpu")
    x = _up(input)
    finite = _hardswish_float64 if x._dtype == _F64 else (lambda v: ops.mul(v, _hardsigmoid(v)))
    return _maybe_inplace(input, _pw._nan_passing(finite, x, "passes"), inplace)  # (torch: NaN, gradient 1)


def _hardswish_float64(x):
    """torch's float64 hardswish: the value x * min(max(x + 3, 0), 6) / 6, the gradient 0 for x <= -3,
    g * (x / 3 + 1/2) below 3 and g from 3 on, all in float64 (hardsigmoid's float32 slope is not part of it)."""
    clamped = ops.stop_gradient(ops.clamp(ops.add(x, _k(3.0, x)), 0.0, 6.0))
    value = ops.div(ops.mul(ops.stop_gradient(x), clamped), _k(6.0, x))  # (torch's order of rounding)
    gate = ops.div(clamped, _k(6.0, x))
    below, inside = ops.le(x, -3.0), ops.logical_and(ops.gt(x, -3.0), ops.lt(x, 3.0))
    x_inside = ops.where(inside, x, ops.zeros_like(x))  # (an infinite x elsewhere would make its gradient nan)
    quadratic = ops.add(ops.div(ops.mul(x_inside, x_inside), _k(6.0, x)), ops.div(x_inside, _k(2.0, x)))
    middle = ops.add(value, ops.sub(quadratic, ops.stop_gradient(quadratic)))  # d/dx: x / 3 + 1/2
    above = ops.mul(x, gate)  # the gate is 1 there: x, with the gradient g
    return ops.where(below, value, ops.where(inside, middle, above))


def softplus(input, beta=1.0, threshold=20.0):
    _floats_only(input, "softplus_cpu")
    def finite_softplus(x):
        scaled = ops.mul(x, _k(beta, x))
        # the shim's log1p and exp (within 1 ulp; MindSpore's CPU log1p gives 0 for arguments below 6e-8)
        # (the exponent capped by a select, not ops.minimum: at scaled == threshold minimum splits its gradient
        # between its two operands, and torch's is the soft branch's whole)
        capped = ops.where(ops.gt(scaled, _k(threshold, x)), ops.full_like(scaled, threshold), scaled)
        soft = ops.div(_pw.log1p(_pw.exp(capped)), _k(beta, x))
        return ops.where(ops.gt(scaled, _k(threshold, x)), x, soft)

    return _maybe_inplace(input, _pw._nan_passing(finite_softplus, _up(input), "nan"), False)


def softsign(input):
    return ops.div(input, ops.add(ops.abs(input), 1.0))


def logsigmoid(input):
    _floats_only(input, "log_sigmoid_cpu")
    x = _up(input)
    # 0 - softplus(-x), not its negation: where softplus(-x) underflows to 0 torch's answer is 0.0, not -0.0
    return _maybe_inplace(input, ops.sub(0.0, softplus(ops.neg(x))), False)


def glu(input, dim=-1):
    if not input._shape:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = _wrap_dim(dim, len(input._shape))
    if input._shape[dim] % 2:  # (chunk would split an odd size unevenly and multiply what does not match)
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {input._shape[dim]}")
    a, b = _sh.chunk(input, 2, dim)
    return ops.mul(a, ops.sigmoid(b))


tanh = _pw.tanh  # (torch.nn.functional's are torch's own)
sigmoid = _pw.sigmoid


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _red.softmax(ops.neg(input), dim, dtype)


def _inplace_source(input, inplace):
    """What an activation whose backward reads its input computes from: `input`, or a recorded copy of it when the
    activation then writes into `input` under autograd (torch keeps the original values for the backward the
    same way; MindSpore's kernel would find its saved input overwritten)."""
    if inplace and grad_enabled() and input.requires_grad:
        return input.clone()
    return input


def _maybe_inplace(input, out, inplace):
    if out._dtype != input._dtype and input._dtype in _FLOATS:
        out = ops.cast(out, input._dtype)  # (computed in float32, see `_up`)
    if inplace:
        from .._inplace import assign

        return assign(input, out, value_is_fresh=True)
    return out


softmax = _red.softmax
log_softmax = _red.log_softmax


# ---------------------------------------------------------------- losses
def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _red.sum(loss)
    if reduction == "mean":
        return _red.mean(loss)
    raise ValueError(f"{reduction} is not a valid value for reduction")


_TARGET_DTYPES = frozenset({mindspore.int64, mindspore.uint8})


def _check_targets(input, target, weight, ignore_index):
    """torch's checks on class-index targets: dtype Long or Byte, batch and spatial sizes matching the input, a
    weight per class, and every target a class in [0, C) or `ignore_index` (MindSpore's gather would wrap a
    negative label such as the -1 of unlabeled test splits, and train on it)."""
    if input.ndim == 1:
        if target.ndim != 0:
            raise ValueError(f"Expected input batch_size (1) to match target batch_size ({target.shape[0]}).")
    elif target.ndim == 0 or input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    if target._dtype not in _TARGET_DTYPES:  # (after the batch size, as torch checks them)
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target.dtype)}")
    if input.ndim > 1 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"expected target of shape {[input.shape[0]] + list(input.shape[2:])}, but got "
                           f"{list(target.shape)}")
    classes = input.shape[0 if input.ndim == 1 else 1]
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    if _ix.any_outside(target, classes):  # (one reduction; the ignored label is looked for only after it)
        values = target.asnumpy()
        bad = values[(values != ignore_index) & ((values < 0) | (values >= classes))]
        if bad.size:
            raise IndexError(f"Target {int(bad.reshape(-1)[0])} is out of bounds: class labels must lie in "
                             f"[0, {classes}) or equal ignore_index ({ignore_index}).")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_targets(input, target, weight, ignore_index)
    if input.ndim == 1:
        input, target = ops.expand_dims(input, 0), ops.expand_dims(target, 0)
    logp = _sh.movedim(input, 1, -1) if input.ndim > 2 else input  # (N, ..., C)
    target = target.astype(mindspore.int64) if target.dtype != mindspore.int64 else target
    valid = ops.not_equal(target, ignore_index)
    safe_target = ops.where(valid, target, ops.zeros_like(target))
    picked = ops.squeeze(ops.gather_elements(logp, logp.ndim - 1, ops.expand_dims(safe_target, -1)), -1)
    w = ops.gather(weight, safe_target, 0) if weight is not None else ops.ones(target.shape, logp.dtype)
    w = ops.mul(w, valid.astype(logp.dtype))
    loss = ops.neg(ops.mul(picked, w))
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _red.sum(loss)
    return _mean_over_weight(_red.sum(loss), _red.sum(w))


def _mean_over_weight(total, total_weight):
    """total / total_weight with torch's gradients when every target is ignored (total_weight 0): the loss is
    nan but the gradients are zeros, not 0/0 (which would turn every parameter nan at the next step)."""
    total_weight = ops.stop_gradient(total_weight)
    empty = ops.equal(total_weight, 0)
    safe = ops.where(empty, ops.ones_like(total_weight), total_weight)
    nan_if_empty = ops.div(ops.zeros_like(total_weight), total_weight)  # 0/0 = nan, else 0
    return ops.add(ops.div(total, safe), nan_if_empty)


_FUSED_CROSS_ENTROPY_MIN = 1 << 16  # logits; measured: (16, 2) 1.5 against 12 ms, (256, 1024) 20 against 12 ms


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    class_dim = 0 if input.ndim == 1 else 1
    # Large float32 logits (a language model's) keep MindSpore's fused kernel: half the time of the accurate
    # host log_softmax there, its log-probabilities up to ~2e-6 off (60 ulp at 0.3). Small ones (a classifier's),
    # other types, and logits holding NaN (the kernel answers -inf and finite gradients for such a row: a NaN
    # loss would read inf) take the accurate one, torch's values, which is also faster below this size.
    fused = input._dtype == mindspore.float32 and input.numel() > _FUSED_CROSS_ENTROPY_MIN and \
        not bool(ops.isnan(input).any())
    logp = ops.log_softmax(input, class_dim) if fused else _red.log_softmax(input, class_dim)
    if target.is_floating_point() and tuple(target.shape) == tuple(input.shape):  # class probabilities
        if label_smoothing > 0:
            target = ops.add(ops.mul(target, _k(1 - label_smoothing, target)),
                             _k(label_smoothing / input.shape[class_dim], target))
        wl = logp if weight is None else ops.mul(logp, weight.reshape((-1,) + (1,) * (logp.ndim - class_dim - 1)))
        loss = ops.neg(_red.sum(ops.mul(wl, target), class_dim))
        if reduction == "mean":
            return ops.div(_red.sum(loss), loss.numel() and (loss.numel() if input.ndim > 1 else 1))
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    num_classes = input.shape[class_dim]
    lp = _sh.movedim(logp, class_dim, -1) if logp.ndim > 1 else logp
    per_class = lp if weight is None else ops.mul(lp, weight)
    smooth = ops.neg(_red.sum(per_class, -1))  # (N, ...)
    tgt = target if target.ndim else ops.expand_dims(target, 0)
    valid = ops.not_equal(tgt, ignore_index)
    smooth = ops.mul(smooth, valid.astype(smooth.dtype))
    if reduction == "none":
        smooth_red = smooth
    elif reduction == "sum":
        smooth_red = _red.sum(smooth)
    else:
        if weight is not None:
            safe = ops.where(valid, tgt, ops.zeros_like(tgt))
            denom = _red.sum(ops.mul(ops.gather(weight, safe, 0), valid.astype(weight.dtype)))
        else:
            denom = _red.sum(valid.astype(smooth.dtype))
        smooth_red = _mean_over_weight(_red.sum(smooth), denom)
    return ops.add(ops.mul(nll, _k(1 - label_smoothing, nll)),
                   ops.mul(smooth_red, _k(label_smoothing / num_classes, nll)))


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _reduce(ops.square(ops.sub(input, target)), _legacy_reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce(ops.abs(ops.sub(input, target)), _legacy_reduction(size_average, reduce, reduction))


def _like_inputs(loss, input, target):
    """A loss computed in float32 (`_up`) back in the inputs' half type."""
    dtype = input._dtype
    return ops.cast(loss, dtype) if dtype in _HALF and target._dtype == dtype and loss._dtype != dtype else loss


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    d = ops.abs(ops.sub(_up(input), _up(target)))
    loss = ops.where(ops.lt(d, _k(beta, d)), ops.div(ops.mul(ops.square(d), 0.5), _k(beta, d)),
                     ops.sub(d, _k(0.5 * beta, d))) if beta > 0 else d
    return _like_inputs(_reduce(loss, _legacy_reduction(size_average, reduce, reduction)), input, target)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    d = ops.abs(ops.sub(_up(input), _up(target)))
    loss = ops.where(ops.lt(d, _k(delta, d)), ops.mul(ops.square(d), 0.5),
                     ops.mul(ops.sub(d, _k(0.5 * delta, d)), _k(delta, d)))
    return _like_inputs(_reduce(loss, reduction), input, target)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    x, t = _up(input), _up(target)
    log_sig = logsigmoid(x)
    log_one_minus = logsigmoid(ops.neg(x))
    pos = ops.mul(t, log_sig)
    if pos_weight is not None:
        pos = ops.mul(pos, pos_weight)
    loss = ops.neg(ops.add(pos, ops.mul(ops.sub(1.0, t), log_one_minus)))
    if weight is not None:
        loss = ops.mul(loss, weight)
    return _like_inputs(_reduce(loss, _legacy_reduction(size_average, reduce, reduction)), input, target)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    # torch's checks: values outside [0, 1] (a logit passed as a probability, a label 2) give a finite loss here
    for name, t in (("input", input), ("target", target)):
        if isinstance(t, Tensor) and not _all_within_unit_interval(t):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    logx = ops.clamp(ops.log(input), min=-100.0)
    log1mx = ops.clamp(ops.log(ops.sub(1.0, input)), min=-100.0)
    loss = ops.neg(ops.add(ops.mul(target, logx), ops.mul(ops.sub(1.0, target), log1mx)))
    if weight is not None:
        loss = ops.mul(loss, weight)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


def _all_within_unit_interval(t):
    """Whether every element of `t` lies in [0, 1] (NaN does not): one reduction and one host read."""
    if 0 in t._shape:
        return True
    return bool(ops.logical_and(ops.ge(t, 0), ops.le(t, 1)).all())


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if log_target:
        loss = ops.mul(ops.exp(target), ops.sub(target, input))
    else:
        loss = ops.where(ops.gt(target, 0), ops.mul(target, ops.sub(ops.log(target), input)), ops.zeros_like(target))
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "batchmean":
        return ops.div(_red.sum(loss), input.shape[0])
    return _reduce(loss, reduction)


class _ClampedNorm(_Function):
    """max(||x||_2, eps) along `dim` (kept); its gradient is the norm's, x / ||x|| (0 where x is 0), also where
    the clamp is active, as torch clamps the norms without recording it."""

    @staticmethod
    def forward(ctx, x, dim, eps):
        norm = ops.sqrt(_red.sum(ops.square(x), dim, True))
        ctx.save_for_backward(x, norm)
        ctx.dim = dim
        return ops.maximum(norm, _k(eps, x))

    @staticmethod
    def backward(ctx, grad):
        x, norm = ctx.saved_tensors
        if _ms.grad_enabled():  # create_graph=True: the norm recorded too, for its derivative
            norm = ops.sqrt(_red.sum(ops.square(x), ctx.dim, True))
        safe = ops.where(ops.equal(norm, 0), ops.ones_like(norm), norm)
        return ops.mul(ops.div(grad, safe), x), None, None


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along `dim` after broadcasting x1 and x2 (torch's
    formula: each vector normalized on its own, so that the product of two small norms does not underflow)."""
    if not (x1.is_floating_point() or x2.is_floating_point()):
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_type_name(x1.dtype)}")
    try:
        shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({list(x1.shape)}) must match the size of tensor b "
                           f"({list(x2.shape)}) at a non-singleton dimension") from None
    rank = max(len(shape), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    if x1.dtype != x2.dtype:
        common = x1.dtype if not x2.is_floating_point() else x2.dtype if not x1.is_floating_point() else \
            _dtype.promote_types(x1.dtype, x2.dtype)
        x1, x2 = x1.astype(common), x2.astype(common)
    if len(shape) == 0:
        x1, x2, shape, dim = x1.reshape(1), x2.reshape(1), (1,), 0
        squeeze = True
    else:
        squeeze = False
    x1 = x1 if tuple(x1.shape) == shape else ops.broadcast_to(x1, shape)
    x2 = x2 if tuple(x2.shape) == shape else ops.broadcast_to(x2, shape)
    dim = dim % len(shape)
    if x1._dtype is mindspore.float16:  # in float32, rounded once, as torch's (float16 norms overflowed: 0.0 for 1.0)
        out = cosine_similarity(x1.astype(mindspore.float32), x2.astype(mindspore.float32), dim, eps)
        return (out.reshape(()) if squeeze else out).astype(mindspore.float16)
    unit1 = ops.div(x1, _ClampedNorm.apply(x1, dim, eps))
    unit2 = ops.div(x2, _ClampedNorm.apply(x2, dim, eps))
    out = _red.sum(ops.mul(unit1, unit2), dim)
    return out.reshape(()) if squeeze else out


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    scaled = ops.mul(ops.neg(target), ops.sub(input1, input2))
    loss = _pw.clamp(ops.add(scaled, _k(margin, scaled)), min=0)  # (torch's clamp: at 0 the gradient passes)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


# ---------------------------------------------------------------- attention
_causal_masks = {}


def _causal_additive_mask(length, source_length, dtype):
    key = (length, source_length, dtype)
    mask = _causal_masks.get(key)
    if mask is None:
        upper = np.triu(np.ones((length, source_length), dtype=np.bool_), 1)
        mask = _causal_masks[key] = ops.cast(Tensor.from_numpy(np.where(upper, -np.inf, 0.0).astype(np.float32)),
                                             dtype)
    return mask


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v, computed as torch's math backend defines it.

    Under autograd it is one Function that keeps q, k, v and recomputes the weights in the backward
    (`_lean_backward.attention`). Otherwise, the faster formulation of the same function on MindSpore: q is
    scaled before the product (L*E elements instead of L*S), k is never transposed in memory (BatchMatMul with
    transpose_b), and masks are applied as one broadcast addition (a boolean mask becomes 0/-inf on its own,
    smaller, shape first)."""
    if _host_small.attention_in_every_mode(query, key, value, attn_mask, is_causal, dropout_p):
        # small inputs: the host in every mode, so that values never depend on grad mode (checkpoint)
        recorded = _lean._records(query, key, value)
        if dropout_p == 0.0 and not recorded:
            on_host = _host_small.attention(query, key, value, attn_mask, is_causal, scale, enable_gqa, False)
        else:
            keep = _keep_bools(tuple(query.shape[:-1]) + (key.shape[-2],), dropout_p) if dropout_p > 0.0 else None
            on_host = _lean.host_attention(query, key, value, attn_mask, is_causal, scale, keep,
                                           1.0 / (1.0 - dropout_p))
        if on_host is not None:
            return on_host
    if dropout_p == 0.0:
        on_host = _host_small.attention(query, key, value, attn_mask, is_causal, scale, enable_gqa)
        if on_host is not None:
            return on_host
    if enable_gqa and _gqa.applies(query, key, value, dropout_p, _lean._records(query, key, value)):
        causal = _causal_additive_mask(query.shape[-2], key.shape[-2], query.dtype) if is_causal else None
        if causal is not None and attn_mask is not None:
            raise RuntimeError("scaled_dot_product_attention: attn_mask and is_causal cannot both be set")
        return _gqa.attention(scaled_dot_product_attention, query, key, value, attn_mask, causal, scale)
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key = ops.repeat_interleave(key, groups, key.ndim - 3)
        value = ops.repeat_interleave(value, groups, value.ndim - 3)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if query._dtype in _HALF and key._dtype == query._dtype and value._dtype == query._dtype:
        # in float32 and rounded once, as torch's CPU attention accumulates half types in float32
        f32 = mindspore.float32
        if attn_mask is not None and attn_mask._dtype == query._dtype:
            attn_mask = ops.cast(attn_mask, f32)
        # (the function itself, not the module name: autocast wraps that and would cast back to half)
        out = _attention_in_float32(ops.cast(query, f32), ops.cast(key, f32), ops.cast(value, f32),
                                    attn_mask, dropout_p, is_causal, scale)
        return ops.cast(out, query._dtype)
    scale = _k(scale, query)
    if 0.0 <= dropout_p < 1.0 and _blockwise.applies(query, key, value, attn_mask):
        # long inputs: query rows in blocks, so no (L, S) intermediate exists whole
        return _blockwise.attention(query, key, value, attn_mask, is_causal, scale, dropout_p, _numpy_rng(None),
                                    _lean._records(query, key, value))
    additive, attended = _additive_attention_mask(query, key, attn_mask, is_causal)
    if 0.0 <= dropout_p < 1.0 and _lean.can_run_attention(query, key, value, additive):
        keep = _keep_bools(tuple(query.shape[:-1]) + (key.shape[-2],), dropout_p) if dropout_p > 0.0 else None
        out = _lean.attention(query, key, value, additive, scale, keep, 1.0 / (1.0 - dropout_p))
    elif dropout_p == 0.0 and _lean.can_attend_unrecorded(query, key, value, additive):
        out = _lean.attention_unrecorded(query, key, value, additive, scale)
    else:
        query = ops.mul(query, scale)
        if query.ndim >= 3 and query.shape[:-2] == key.shape[:-2]:
            scores = _lean.bmm_b_transposed(query, key)
        else:
            scores = ops.matmul(query, _sh.transpose(key, -2, -1))
        weights = _softmax_kernel(scores if additive is None else ops.add(scores, additive), -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p, True)
        out = ops.matmul(weights, value)
    return out if attended is None else ops.mul(out, attended)



_attention_in_float32 = scaled_dot_product_attention


def _additive_attention_mask(query, key, attn_mask, is_causal):
    """(mask to add to the scores or None, per-row 0/1 factor for rows with no visible key or None)."""
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("scaled_dot_product_attention: attn_mask and is_causal cannot both be set")
        return _causal_additive_mask(query.shape[-2], key.shape[-2], query.dtype), None
    if attn_mask is None:
        return None, None
    return _mask_memo.additive_mask(attn_mask, query.dtype, lambda: _additive_form(attn_mask, query.dtype))


def _additive_form(attn_mask, dtype):
    if attn_mask.dtype == mindspore.bool_:
        attn_mask = ops.masked_fill(_ms.zeros(attn_mask.shape, dtype), ops.logical_not(attn_mask), float("-inf"))
    attn_mask = ops.cast(attn_mask, dtype) if attn_mask.dtype != dtype else attn_mask
    return _without_fully_masked_rows(attn_mask)


def _without_fully_masked_rows(additive_mask):
    """A query row whose keys are all masked (-inf) attends to nothing: torch's CPU kernel returns zeros there
    (and zero gradients). MindSpore's float32 softmax must not see such a row at all: it corrupts the rows after
    it. When there are such rows, the mask gets a finite floor and the rows are zeroed after the product."""
    dead = ops.all(ops.isneginf(additive_mask), -1, keep_dims=True)
    if not bool(ops.any(dead)):
        return additive_mask, None
    floor = float(_dtype.finfo(additive_mask.dtype).min)
    attended = ops.cast(ops.logical_not(dead), additive_mask.dtype)
    return ops.maximum(additive_mask, _k(floor, additive_mask)), attended


# ---------------------------------------------------------------- shape utilities
def pad(input, pad, mode="constant", value=None):
    """`pad` lists (left, right) pairs starting from the last dimension; negative amounts crop."""
    if len(pad) % 2:
        raise ValueError("Padding length must be divisible by 2")
    if mode != "constant":
        return ops.pad(input, tuple(pad), mode=mode)
    out = input
    for i in range(len(pad) // 2):  # crop first
        dim = input.ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        start, stop = max(-left, 0), out.shape[dim] - max(-right, 0)
        if stop < start:  # (cropped by more than the dim holds)
            raise RuntimeError("narrow(): length must be non-negative.")
        if start or stop != out.shape[dim]:
            out = _sh.narrow(out, dim, start, stop - start)
    positive = tuple(max(p, 0) for p in pad)
    if any(positive):
        out = ops.pad(out, positive, mode="constant", value=0.0 if value is None else value)
    return out


def one_hot(tensor, num_classes=-1):
    # checked first: MindSpore's comparison would give an all-zero row for a class outside [0, num_classes)
    if tensor._dtype is not mindspore.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes < 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        low, high = _ix.index_range(tensor)
        if low < 0:
            raise RuntimeError(f"Class values must be non-negative (got {low}).")
        if num_classes < 0:
            num_classes = high + 1
        elif high >= num_classes:
            raise RuntimeError(f"Class values must be smaller than num_classes (got {high} for {num_classes} "
                               f"classes).")
    return ops.cast(ops.equal(ops.expand_dims(tensor, -1), Tensor.from_numpy(np.arange(num_classes))), mindspore.int64)




def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    if mode not in ("nearest", "bilinear", "linear", "bicubic"):
        raise NotImplementedError(f"torch.nn.functional.interpolate(mode='{mode}') is not supported on MindSpore")
    if antialias:
        # torch's antialiased kernels (bilinear/bicubic only) widen the filter when downsampling and use a
        # different cubic coefficient; nothing here reproduces them, and ignoring the flag gives other values
        raise NotImplementedError("torch.nn.functional.interpolate(antialias=True) is not supported on MindSpore")
    if mode == "nearest" and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (mode in ("bicubic", "linear", "bilinear")
            or (scale_factor is not None and not recompute_scale_factor and input.ndim in (3, 4))):
        # MindSpore's bicubic uses other coordinates and coefficients than torch, its linear (3-D) gives
        # another value for a single output sample, its bilinear works in float32 for float64 input and
        # spreads an inf or NaN to other outputs than torch's, and its 3-D/4-D resizes refuse a scale_factor
        # unless it only picks the output size
        return _separable_interpolate(input, size, scale_factor, mode, bool(align_corners), recompute_scale_factor)
    return ops.interpolate(input, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners,
                           recompute_scale_factor=recompute_scale_factor)


_CUBIC_A = -0.75  # torch's coefficient for bicubic without antialias


def _cubic_tap_weights(t):
    """Cubic-convolution weights of the taps at floor(src) - 1 .. + 2, for t = src - floor(src) in [0, 1)."""
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return (-1, far(t + 1)), (0, near(t)), (1, near(1 - t)), (2, far(2 - t))


@functools.lru_cache(maxsize=128)
def _resize_taps(mode, in_size, out_size, scale, align_corners, precision):
    """The taps of one axis as torch samples it: (index, weight), both (out_size, K) (K = 4 for bicubic, 2 for
    the linear modes), output i being sum_k weight[i, k] * input[index[i, k]]; then the same for the adjoint
    map, which the backward applies (see `_adjoint_taps`).

    `scale` is the output-to-input coordinate ratio (already chosen from sizes or the scale factor). The
    coordinates and weights are computed in `precision` (np.float32 or np.float64), torch's arithmetic type
    for the input: a coordinate that lands on a whole number in float64 can miss it by an ulp in float32, and
    then a tap torch weights by a tiny nonzero amount (an inf there stays inf) would get exactly 0 (NaN)."""
    dst = np.arange(out_size, dtype=precision)
    scale = precision(scale)
    src = dst * scale if align_corners else (dst + precision(0.5)) * scale - precision(0.5)
    if mode != "bicubic" and not align_corners:
        # linear modes clamp the coordinate at 0; bicubic keeps it and clamps the taps
        src = np.maximum(src, precision(0))
    base = np.floor(src)
    t = src - base
    taps = _cubic_tap_weights(t) if mode == "bicubic" else ((0, 1.0 - t), (1, t))
    if mode != "bicubic" and in_size == out_size:
        # measured: torch reads output i from input i twice, with weights 1 and 0, whatever the scale factor
        # says (an inf pixel gives NaN there, and nothing spreads to its neighbours)
        taps, base = ((0, np.ones(out_size, precision)), (0, np.zeros(out_size, precision))), dst
    # a tap outside the input reads the border element; taps of weight 0 stay, because torch reads them too
    # (a NaN there makes the output NaN)
    index = np.stack([np.clip(base + offset, 0, in_size - 1) for offset, _ in taps], axis=1).astype(np.int64)
    weight = np.stack([np.broadcast_to(w, (out_size,)) for _, w in taps], axis=1).astype(precision)
    arrays = (index, weight) + _adjoint_taps(index, weight, in_size)
    for array in arrays:
        array.setflags(write=False)
    return arrays


def _adjoint_taps(index, weight, in_size):
    """(index, weight), both (in_size, M): input j collects weight * gradient from every (output, tap) that
    reads it, in output order (the order torch accumulates them in). Shorter rows are filled with index
    out_size, a zero appended to the gradient, so a NaN gradient reaches only the inputs its taps read."""
    out_size = index.shape[0]
    reader = np.repeat(np.arange(out_size), index.shape[1])
    order = np.argsort(index.ravel(), kind="stable")
    read = index.ravel()[order]
    counts = np.bincount(read, minlength=in_size)
    rank = np.arange(read.size) - np.repeat(np.cumsum(counts) - counts, counts)
    adj_index = np.full((in_size, counts.max()), out_size, dtype=np.int64)
    adj_weight = np.zeros((in_size, counts.max()), dtype=weight.dtype)
    adj_index[read, rank] = reader[order]
    adj_weight[read, rank] = weight.ravel()[order]
    return adj_index, adj_weight


@functools.lru_cache(maxsize=128)
def _nearest_indices(in_size, out_size, scale, shortcuts):
    # measured against torch: its 2-D kernel copies an axis whose size is kept and halves the index of one
    # whose size doubles, whatever the scale factor says; its 1-D kernel always uses the scale
    if shortcuts and out_size == in_size:
        return np.arange(out_size, dtype=np.int64)
    if shortcuts and out_size == 2 * in_size:
        return np.arange(out_size, dtype=np.int64) // 2
    # torch computes floor(dst * scale) in float32; doing it in float64 would move some boundary cases
    src = np.floor(np.arange(out_size, dtype=np.float32) * np.float32(scale))
    return np.minimum(src.astype(np.int64), in_size - 1)


def _apply_taps(x, dim, index, weight):
    """sum_k weight[:, k] * x.index_select(dim, index[:, k]), unrecorded: K gathers instead of an (out, in)
    matrix product, so an inf or NaN only reaches the outputs whose taps read it and the cost stays linear in
    the output size. Summed tap by tap in k order, as torch does."""
    np_dtype = np.float64 if x.dtype == mindspore.float64 else np.float32
    bcast = (-1,) + (1,) * (x.ndim - 1 - dim)  # the weight varies along `dim` only
    out = None
    for k in range(index.shape[1]):
        tap = ops.gather(x, Tensor.from_numpy(np.ascontiguousarray(index[:, k])), dim)
        w = Tensor.from_numpy(np.ascontiguousarray(weight[:, k], dtype=np_dtype).reshape(bcast))
        term = ops.mul(tap, _expanded(w, tap.shape))  # tiled: MindSpore's CPU Mul is slow when it broadcasts
        out = term if out is None else ops.add(out, term)
    return out


class _AxisTaps(_Function):
    """One axis of a resize as a single autograd node. Recorded op by op, MindSpore's backward would also
    compute (and reduce) the gradient of every constant weight and scatter each gather back separately; the
    adjoint is the same kind of tap sum, applied to the gradient."""

    @staticmethod
    def forward(ctx, x, dim, taps):
        ctx.dim, ctx.taps = dim, taps
        return _apply_taps(x, dim, taps[0], taps[1])

    @staticmethod
    def backward(ctx, grad):
        dim, (_, _, adj_index, adj_weight) = ctx.dim, ctx.taps
        pad_shape = tuple(grad.shape[:dim]) + (1,) + tuple(grad.shape[dim + 1:])
        padded = ops.concat((grad, _ms.zeros(pad_shape, grad.dtype)), dim)  # index out_size reads this zero
        return _apply_taps(padded, dim, adj_index, adj_weight), None, None


def _separable_interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor):
    spatial = input.ndim - 2
    wanted = {"bicubic": 2, "bilinear": 2, "linear": 1}.get(mode)
    if spatial < 1 or (wanted is not None and spatial != wanted):
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {(wanted or 1) + 2}D input")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = tuple(input.shape[2:])

    def per_axis(value, name):
        if isinstance(value, (tuple, list)):
            if len(value) != spatial:
                raise ValueError(f"Input and {name} must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(in_sizes)} and output size of {list(value)}.")
            return tuple(value)
        return (value,) * spatial

    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        out_sizes, factors = tuple(int(s) for s in per_axis(size, "output size")), (None,) * spatial
    else:
        factors = tuple(float(f) for f in per_axis(scale_factor, "scale_factor"))
        out_sizes = tuple(int(math.floor(n * f)) for n, f in zip(in_sizes, factors))
        if recompute_scale_factor:
            factors = (None,) * spatial  # the coordinates then follow the rounded sizes
    if any(n <= 0 for n in out_sizes) or any(n <= 0 for n in in_sizes):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input {in_sizes} and "
                           f"output {out_sizes}")

    def scale(n_in, n_out, factor, real=float):
        # in `real`, as torch computes it: the sizes converted first, a scale factor inverted in double
        if align_corners and mode != "nearest":
            return real(n_in - 1) / real(n_out - 1) if n_out > 1 else real(0)
        return real(1.0 / factor) if factor else real(n_in) / real(n_out)

    out = input
    if mode == "nearest":
        for axis, (n_in, n_out, f) in enumerate(zip(in_sizes, out_sizes, factors)):
            idx = _nearest_indices(n_in, n_out, scale(n_in, n_out, f), spatial == 2)
            out = ops.gather(out, Tensor.from_numpy(idx.copy()), axis + 2)
        return out
    dtype = input.dtype
    compute = dtype if dtype in (mindspore.float32, mindspore.float64) else mindspore.float32
    if compute != dtype:
        out = ops.cast(out, compute)
    precision = np.float64 if compute == mindspore.float64 else np.float32
    # the last axis first, then the one before (2-D): the order torch nests its sums in, so an inf or NaN
    # reaches the same outputs and the rounding follows the same steps
    for axis in reversed(range(spatial)):
        n_in, n_out = in_sizes[axis], out_sizes[axis]
        taps = _resize_taps(mode, n_in, n_out, scale(n_in, n_out, factors[axis], precision), align_corners,
                            precision)
        out = (_AxisTaps.apply(out, axis + 2, taps) if _lean._records(out)
               else _apply_taps(out, axis + 2, taps[0], taps[1]))
    return out if compute == dtype else ops.cast(out, dtype)


# ---------------------------------------------------------------- convolution and pooling
def _check_convolution_dtype(input, weight, name):
    """MindSpore 2.10's CPU Conv2D, which every convolution of the shim runs on, has no float64 kernel."""
    if input._dtype is mindspore.float64 or weight._dtype is mindspore.float64:
        raise NotImplementedError(f"torch.nn.functional.{name} of float64 tensors is not supported by mindnlp-shim: "
                                  "MindSpore's CPU convolution kernel has no float64 form (float32, float16 and "
                                  "bfloat16 are supported)")


@_product_dtypes.checked_by(_product_dtypes.convolution)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _product_dtypes.convolution(input, weight, bias)
    _check_convolution_dtype(input, weight, "conv1d")
    x = ops.expand_dims(input, 2)
    w = ops.expand_dims(weight, 2)
    out = conv2d(x, w, bias, (1, _single(stride)), _conv1d_padding(padding), (1, _single(dilation)), groups)
    return ops.squeeze(out, 2)


def _single(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def _conv1d_padding(padding):
    if isinstance(padding, str):
        return padding
    return (0, _single(padding))


@_product_dtypes.checked_by(_product_dtypes.convolution)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # torch's (ph, pw) is what ops.conv2d takes too: it expands it to (top, bottom, left, right) itself
    _product_dtypes.convolution(input, weight, bias)
    _check_convolution_dtype(input, weight, "conv2d")
    pad_mode, pad = ("pad", padding) if not isinstance(padding, str) else (padding, 0)
    if isinstance(pad, (tuple, list)):
        pad = tuple(pad)
    out = ops.conv2d(input, weight, None, stride, pad_mode, pad, dilation, groups)
    if bias is not None:
        out = ops.add(out, bias.reshape(1, -1, 1, 1))
    return out


def _triple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3


def _conv3d_padding(padding, kernel, stride, dilation):
    """torch's `padding` as (before, after) per spatial dimension, depth first: ints on both sides, 'valid'
    none, 'same' the total dilation * (k - 1) split with the odd one after (torch's split)."""
    if padding == "valid":
        return ((0, 0),) * 3
    if padding == "same":
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    if isinstance(padding, str):
        raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
    return tuple((p, p) for p in _triple(padding))


@_product_dtypes.checked_by(_product_dtypes.convolution)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """(N, C_in, D, H, W) or unbatched (C_in, D, H, W) by (C_out, C_in/groups, kD, kH, kW)."""
    _product_dtypes.convolution(input, weight, bias)
    _check_convolution_dtype(input, weight, "conv3d")
    if input.ndim not in (4, 5) or weight.ndim != 5:
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
                           f"{list(input.shape)}")
    batched = input.ndim == 5
    x = input if batched else ops.expand_dims(input, 0)
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got {x.shape[1]} "
                           "channels instead")
    stride, dilation = _triple(stride), _triple(dilation)
    borders = _conv3d_padding(padding, weight.shape[2:], stride, dilation)
    if any(before != after for before, after in borders):  # (ops.conv3d pads both sides alike)
        x = ops.pad(x, tuple(v for pair in reversed(borders) for v in pair))
        borders = ((0, 0),) * 3
    out = ops.conv3d(x, weight, None, stride, "pad", tuple(before for before, _ in borders), dilation, groups)
    if bias is not None:
        out = ops.add(out, bias.reshape(1, -1, 1, 1, 1))
    return out if batched else ops.squeeze(out, 0)






def adaptive_avg_pool1d(input, output_size):
    # as a 2d pool over a height-1 input: MindSpore's 1d kernel refuses lengths not divisible by the size
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    return _sh.squeeze(adaptive_avg_pool2d(_sh.unsqueeze(input, -2), (1, size)), -2)


def adaptive_avg_pool2d(input, output_size):
    return ops.adaptive_avg_pool2d(input, output_size)


from ._ctc import ctc_loss  # noqa: E402,F401  (speech models' CTC heads)


# ---------------------------------------------------------------- more of torch.nn.functional, one module per family
from ._pool_functions import (  # noqa: E402,F401
    adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices, adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d,
    avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d, max_pool1d_with_indices, max_pool2d,
    max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d)
from ._activation_functions import (  # noqa: E402,F401
    celu_, elu_, gumbel_softmax, hardshrink, hardtanh_, leaky_relu_, prelu, relu_, rrelu, rrelu_, selu_, softshrink,
    tanhshrink, threshold, threshold_)
from ._loss_functions import (  # noqa: E402,F401
    cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss, multi_margin_loss, multilabel_margin_loss,
    multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss)
from ._distance_functions import pairwise_distance, pdist  # noqa: E402,F401
from ._shuffle_functions import channel_shuffle, native_channel_shuffle, pixel_shuffle, pixel_unshuffle  # noqa: E402,F401
from ._sliding_blocks import fold, unfold  # noqa: E402,F401
from ._norm_functions import batch_norm, instance_norm, local_response_norm  # noqa: E402,F401
from ._grid_sampling import (  # noqa: E402,F401
    GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES, affine_grid, grid_sample)
from ._upsample_functions import upsample, upsample_bilinear, upsample_nearest  # noqa: E402,F401
from ._multi_head_attention import multi_head_attention_forward  # noqa: E402,F401
from ._embedding_bag import embedding_bag  # noqa: E402,F401
from ._transposed_conv import conv_transpose1d, conv_transpose2d, conv_transpose3d  # noqa: E402,F401


from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)

# torch's layout of elementwise results (see _ops/result_layout; a call with inplace=True keeps its input)
from .._ops import result_layout as _result_layout  # noqa: E402

_result_layout.follow_operands(globals(), (
    "gelu", "silu", "leaky_relu", "elu", "selu", "celu", "softplus", "hardtanh", "relu6", "mish", "hardswish",
    "hardsigmoid", "softsign",
))

from .. import _python_dtypes  # noqa: E402

_python_dtypes.install(globals())  # dtype=float and friends, as torch reads them
