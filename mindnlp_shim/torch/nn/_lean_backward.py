"""Linear, exact GELU, attention and layer norm as single autograd Functions whose backward keeps only what it
needs, computed with the faster CPU kernels (dense operands, tiled broadcasts, row sums as products).

MindSpore's tape keeps, for every recorded primitive, the tensors its gradient reads. Written as compositions,
the exact GELU (five primitives) and attention (scaling, two batched products, mask addition, softmax,
dropout) keep several full-size intermediates per call; in a BERT training step they were most of the
activation memory (measured per call: GELU 4.5x its output, attention 10x its output, against about 1x in real
torch). A linear layer on a 3-D input kept a flattened copy of its input (MindSpore's reshape under autograd
copies), one per layer even when q, k and v share the input. Here each is one Function: linear keeps its
input and weight; GELU keeps its derivative; attention keeps the scaled q, k, v and the dropout mask as bytes and
recomputes the attention weights in the backward, as torch's fused CPU attention does. Layer norm keeps its
input, weight and row statistics, like MindSpore's own, but its backward is written out for speed.
"""
import math

import numpy as np
import mindspore
from mindspore import ops

from ..autograd.function import Function, first_order_only
from .._ops import host_gelu as _host_gelu
from .._ops._host_math import accurate_unary as _accurate_unary
from .._ops import host_small as _host_small
from .._ops import matrix_products as _products
from .._ops.broadcast import expanded
from .._ops.dense import dense_copy, kernel_operand, takes_kernel_alias
from .._ops.softmax_kernel import softmax_kernel
from .._ops.sums import sum_last_axis, sum_rows
from .._function_outputs import plain_reshape, plain_tensor
from .._runtime import grad_enabled
from ... import _mindspore as _ms

_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# (products through matrix_products: MindSpore's MatMul family keeps memory for good on every call)
_bmm = _mm = _products.product


def bmm_b_transposed(a, b):
    return _products.product(a, b, transpose_b=True)


def _bmm_a_transposed(a, b):
    return _products.product(a, b, transpose_a=True)


_mm_b_transposed, _mm_a_transposed = bmm_b_transposed, _bmm_a_transposed


def _records(*tensors):
    """Whether autograd records an op on `tensors`: grad mode is on and one of them requires grad. MindSpore's
    C-level flag is read first; the torch property (which also excludes integer tensors) only when it is set."""
    if not grad_enabled():
        return False
    for t in tensors:
        if t is not None and t._requires_grad and t.requires_grad:
            return True
    return False


# ---------------------------------------------------------------- linear
def _rows(x):
    return x if x.ndim == 2 else ops.reshape(x, (-1, x.shape[-1]))


def _linear_2d(x, weight, bias):
    # (called unrecorded: inside _Linear or outside grad mode)
    out = _mm_b_transposed(kernel_operand(_rows(x)), kernel_operand(weight))
    if bias is None or _host_small.add_bias_into_product(out, bias):
        return out
    return ops.add(out, bias)  # (not BiasAdd: its format argument is a host value MindSpore keeps per call)


def _out_shape(x, weight):
    return tuple(x.shape[:-1]) + (weight.shape[0],)


def linear_rows(x, weight, bias):
    """x W^T + b for x of shape (*, in_features): MatMul with transpose_b plus BiasAdd on the 2-D rows."""
    out = _linear_2d(x, weight, bias)
    return out if x.ndim == 2 else ops.reshape(out, _out_shape(x, weight))


class _Linear(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        out = _linear_2d(x, weight, bias)
        # not a view of the product: in-place writes into the output must stay recordable
        return plain_tensor(out) if x.ndim == 2 else plain_reshape(out, _out_shape(x, weight))

    @staticmethod
    @first_order_only  # written with unrecorded kernels (dense copies, row sums as products)
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        # the gradient of q/k/v projections arrives through a head transpose: MatMul is faster on dense rows
        grad_rows = _rows(dense_copy(grad))
        grad_bias = None
        if ctx.has_bias and needs_bias:
            # first, on the host where it applies: the read waits only for grad, and the products queued after
            # it keep MindSpore's kernel threads busy meanwhile
            grad_bias = _host_small.column_sums(grad_rows)
            if grad_bias is None:
                grad_bias = sum_rows(grad_rows)
        grad_rows = kernel_operand(grad_rows)
        grad_x = ops.reshape(_mm(grad_rows, kernel_operand(weight)), tuple(x.shape)) if needs_x else None
        grad_weight = _mm_a_transposed(grad_rows, kernel_operand(_rows(x))) if needs_weight else None
        return grad_x, grad_weight, grad_bias


def linear(x, weight, bias):
    """`linear_rows`, recorded as one Function that keeps x and W (not a flattened copy of x)."""
    if _records(x, weight, bias):
        return _Linear.apply(x, weight, bias)
    on_host = _host_small.linear(x, weight, bias)
    return on_host if on_host is not None else linear_rows(x, weight, bias)


# ---------------------------------------------------------------- embedding
class _Embedding(Function):
    """Rows of a table that requires grad, read from the table's memory as it is (`kernel_operand`: MindSpore's
    tape would copy a table that is a view, a loaded checkpoint's, on every lookup). The gradient is torch's:
    the incoming rows summed into a zero table by index, none into the padding row; written in recorded ops, so
    it can be differentiated again."""

    @staticmethod
    def forward(ctx, weight, indices, padding_idx):
        ctx.indices, ctx.padding_idx, ctx.rows, ctx.width = indices, padding_idx, weight.shape[0], weight.shape[1]
        return ops.gather(kernel_operand(weight), indices, 0)

    @staticmethod
    def backward(ctx, grad):
        indices = ops.reshape(ctx.indices, (-1,))
        rows = ops.reshape(grad, (-1, ctx.width))
        if ctx.padding_idx is not None:  # (a where, not a product: a nan in a padding position stays out)
            keep = ops.expand_dims(ops.not_equal(indices, ctx.padding_idx), -1)
            rows = ops.where(keep, rows, ops.zeros_like(rows))
        return ops.unsorted_segment_sum(rows, indices, ctx.rows), None, None


def embedding(indices, weight, padding_idx):
    """The rows of `weight` at `indices` (range-checked by the caller) for a weight autograd records, as one
    Function where `kernel_operand` reads the table without a copy, else None."""
    return _Embedding.apply(weight, indices, padding_idx) if takes_kernel_alias(weight) else None


# ---------------------------------------------------------------- GELU (exact, erf form)
def _normal_cdf(x):
    return ops.mul(ops.add(ops.erf(ops.mul(x, _SQRT_HALF)), 1.0), 0.5)


class _ExactGelu(Function):
    @staticmethod
    def forward(ctx, x):
        # The backward needs only the derivative Phi(x) + x phi(x); computing it here and keeping it instead
        # of x keeps the same memory and saves the second erf (MindSpore's CPU erf costs 12-50 ms per
        # 3M elements, a tenth of a MiniLM step for its six GELUs).
        cdf = _normal_cdf(x)
        density = ops.mul(ops.exp(ops.mul(ops.square(x), -0.5)), _INV_SQRT_2PI)
        ctx.save_for_backward(ops.add(cdf, ops.mul(x, density)))
        return ops.mul(x, cdf)

    @staticmethod
    @first_order_only  # written with unrecorded kernels (dense copies, row sums as products)
    def backward(ctx, grad):
        derivative, = ctx.saved_tensors
        return ops.mul(grad, derivative)


class _HostGelu(Function):
    """GELU of a float32 CPU tensor with NumPy (_ops/host_gelu), keeping its derivative as _ExactGelu does."""

    @staticmethod
    def forward(ctx, x):
        out, derivative = _host_gelu.gelu(_host_small.array(x), with_derivative=True)
        ctx.save_for_backward(_host_small.result(derivative))
        return _host_small.result(out)

    @staticmethod
    @first_order_only  # computed with NumPy
    def backward(ctx, grad):
        derivative, = ctx.saved_tensors
        return _host_small.result(np.multiply(_host_small.array(grad), _host_small.array(derivative)))


def gelu_exact(x):
    """x * Phi(x); recorded as one Function that keeps only its derivative (one tensor, as torch keeps x).
    float32 CPU tensors take the host in every mode (a checkpointed region computes alike in both)."""
    records = x._requires_grad and _records(x)  # (the C-level flag first: the common no-grad call skips a frame)
    if x._dtype is mindspore.float32 and _host_small.ON_CPU:
        if records:
            return _HostGelu.apply(x)
        return _host_small.result(_host_gelu.gelu(_host_small.array(x))[0])
    if records:
        return _ExactGelu.apply(x)
    return ops.mul(x, _normal_cdf(x))


# ---------------------------------------------------------------- layer norm (backward)
def _count(tensor):
    n = 1
    for d in tensor._shape:
        n *= d
    return n


# MindSpore's LayerNormGrad kernel serves inputs below this many elements whose rows have at least
# _FUSED_GRAD_MIN_WIDTH elements: one kernel instead of about twenty, forward + backward of a (16, 12, 384)
# input 4.2-5.4 ms against 16-20 ms written out (interleaved, load 4). Narrow rows keep the written-out
# backward, which rounds as torch's kernel does where the gradient is a small difference of large terms.
_FUSED_GRAD_BELOW = 1 << 18
_FUSED_GRAD_MIN_WIDTH = 64
_layer_norm_grads = {}


def _fused_layer_norm_grad(prim, x, grad, variance, mean, weight):
    key = (prim.begin_norm_axis, prim.begin_params_axis)
    grad_prim = _layer_norm_grads.get(key)
    if grad_prim is None:
        grad_prim = _layer_norm_grads[key] = _ms.layer_norm_grad(*key)
    from ..autograd.grad_mode import no_grad

    with no_grad():  # a kernel call, never recorded (MindSpore cannot build LayerNormGrad's own derivative)
        return grad_prim(x, dense_copy(grad), variance, mean, weight)


class _LayerNorm(Function):
    """MindSpore's LayerNorm kernel forward; the backward written out with dense elementwise ops and row sums
    as products (MindSpore's CPU LayerNormGrad took about 10 ms on (16, 128, 384), this 6 ms), or, on small
    inputs, MindSpore's LayerNormGrad kernel (see _FUSED_GRAD_BELOW)."""

    @staticmethod
    def forward(ctx, x, weight, bias, prim):
        y, mean, variance = prim(x, weight, bias)
        ctx.save_for_backward(x, weight, mean, variance)
        ctx.eps = prim.epsilon
        ctx.prim = prim
        return y

    @staticmethod
    @first_order_only  # written with unrecorded kernels (dense copies, row sums as products)
    def backward(ctx, grad):
        x, weight, mean, variance = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        shape = x._shape
        width = _count(weight)
        if width >= _FUSED_GRAD_MIN_WIDTH and _count(x) < _FUSED_GRAD_BELOW:
            grad_x, grad_weight, grad_bias = _fused_layer_norm_grad(ctx.prim, x, grad, variance, mean, weight)
            return (grad_x if needs_x else None, grad_weight if needs_weight else None,
                    grad_bias if needs_bias else None, None)
        rows = _count(x) // width
        as_rows = (1, rows, width)  # 3-D, so that row sums can be one BatchMatMul
        x, grad = ops.reshape(x, as_rows), ops.reshape(dense_copy(grad), as_rows)
        row_rstd = ops.reshape(ops.rsqrt(ops.add(variance, ctx.eps)), (1, rows, 1))
        row_mean = ops.reshape(mean, (1, rows, 1))
        grad_x = grad_weight = grad_bias = None
        if needs_x:
            # torch's arrangement, dx = rstd * g w + b x + c with per-row b and c: for rows of a few elements the
            # gradient is a small difference of large terms, and this order rounds as torch's kernel does
            scaled = ops.mul(grad, expanded(ops.reshape(weight, (1, 1, width)), as_rows))
            sum_scaled_x = sum_last_axis(ops.mul(scaled, x))
            sum_scaled = sum_last_axis(scaled)
            b = ops.mul(ops.sub(ops.mul(sum_scaled, row_mean), sum_scaled_x),
                        ops.mul(ops.mul(ops.mul(row_rstd, row_rstd), row_rstd), 1.0 / width))
            c = ops.sub(ops.mul(ops.neg(b), row_mean), ops.mul(ops.mul(sum_scaled, row_rstd), 1.0 / width))
            grad_x = ops.add(ops.add(ops.mul(scaled, expanded(row_rstd, as_rows)), ops.mul(x, expanded(b, as_rows))),
                             expanded(c, as_rows))
            grad_x = ops.reshape(grad_x, shape)
        if needs_weight:
            normalized = ops.mul(ops.sub(x, expanded(row_mean, as_rows)), expanded(row_rstd, as_rows))
            grad_weight = ops.reshape(sum_rows(ops.reshape(ops.mul(grad, normalized), (rows, width))),
                                      weight.shape)
        if needs_bias:
            grad_bias = ops.reshape(sum_rows(ops.reshape(grad, (rows, width))), weight.shape)
        return grad_x, grad_weight, grad_bias, None


def layer_norm(x, weight, bias, prim):
    """`prim` (a LayerNorm primitive whose normalized axes are x's last ones, weight and bias of their shape)
    applied to float32 x; recorded as one Function with the backward above."""
    if _records(x, weight, bias):
        return _LayerNorm.apply(x, weight, bias, prim)
    return prim(x, weight, bias)[0]


class _HostLayerNorm(Function):
    """Layer norm of a float32/float64 CPU input computed with NumPy, forward and backward
    (host_small.normalized_rows and its gradient): for the inputs host_small.norm_on_host admits, where
    MindSpore's kernels cost milliseconds per call. Keeps x's normalized rows and their 1 / std."""

    @staticmethod
    def forward(ctx, x, weight, bias, count, eps):
        with _host_small.quiet_numpy():
            y, ctx.normalized, ctx.rstd = _host_small.normalized_rows(_host_small.array(x), count, weight, bias, eps)
        # x is not read again (its normalized rows are), but kept as torch keeps it: a backward with create_graph
        # then hangs its refusal of a second derivative on x's gradient instead of refusing the first one
        ctx.save_for_backward(x, weight)
        ctx.shape, ctx.count = x._shape, count
        return _host_small.result(y)

    @staticmethod
    @first_order_only  # computed with NumPy
    def backward(ctx, grad):
        _, weight = ctx.saved_tensors
        with _host_small.quiet_numpy():
            grad_x, grad_weight, grad_bias = _host_small.normalized_rows_grad(
                _host_small.array(grad), ctx.normalized, ctx.rstd, weight, ctx.count)
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        return (_host_small.result(grad_x.reshape(ctx.shape)) if needs_x else None,
                _host_small.result(grad_weight.reshape(weight._shape)) if needs_weight else None,
                _host_small.result(grad_bias.reshape(weight._shape if weight is not None else
                                                     (grad_bias.size,))) if needs_bias else None,
                None, None)


def host_layer_norm(x, normalized_shape, weight, bias, eps):
    """The recorded layer norm of `x` on the host (`_HostLayerNorm`), or None where it does not apply: x, weight
    and bias must be CPU tensors of one float dtype that host_small serves, and norm_on_host must admit the sizes."""
    count = math.prod(normalized_shape)
    dtype = x._dtype
    if dtype not in _host_small.FLOATS or type(x) is not mindspore.Tensor or not _host_small.norm_on_host(x._shape,
                                                                                                          count):
        return None
    for p in (weight, bias):
        if p is not None and (type(p) is not mindspore.Tensor or p._dtype is not dtype or
                              tuple(p._shape) != normalized_shape):
            return None
    return _HostLayerNorm.apply(x, weight, bias, count, eps)


# ---------------------------------------------------------------- attention
def _weights(scaled_query, key, additive_mask):
    scores = bmm_b_transposed(scaled_query, key)
    if additive_mask is not None:
        scores = ops.add(scores, expanded(additive_mask, scores.shape))
    return softmax_kernel(scores, -1)


def _dropout_factor(keep, keep_scale, dtype):
    """The dropout multiplier as a tensor: `keep_scale` where the NumPy bool array `keep` is True, else 0."""
    factor = mindspore.Tensor.from_numpy(keep.astype(np.float32) * np.float32(keep_scale))
    return factor if dtype == mindspore.float32 else ops.cast(factor, dtype)


def _attend(query, key, value, additive_mask, scale, keep, keep_scale):
    """`(scaled query, key, value, output)` of attention, unrecorded, with dense q, k and v."""
    # q, k, v usually arrive as transposed views; BatchMatMul on dense operands is about 5x faster.
    # The scale multiplies q (L*E elements) rather than the scores (L*S): in the backward this also spares
    # scaling the recomputed scores and their gradient; q's gradient is scaled instead.
    query, key, value = dense_copy(query), dense_copy(key), dense_copy(value)
    scaled_query = ops.mul(query, scale)
    weights = _weights(scaled_query, key, additive_mask)
    if keep is not None:
        weights = ops.mul(weights, _dropout_factor(keep, keep_scale, weights.dtype))
    return scaled_query, key, value, _bmm(weights, value)


class _Attention(Function):
    @staticmethod
    def forward(ctx, query, key, value, additive_mask, scale, keep, keep_scale):
        scaled_query, key, value, out = _attend(query, key, value, additive_mask, scale, keep, keep_scale)
        ctx.save_for_backward(scaled_query, key, value, additive_mask)
        ctx.scale, ctx.keep, ctx.keep_scale = scale, keep, keep_scale
        return out

    @staticmethod
    @first_order_only  # written with unrecorded kernels (dense copies, row sums as products)
    def backward(ctx, grad):
        scaled_query, key, value, additive_mask = ctx.saved_tensors
        grad = dense_copy(grad)
        weights = _weights(scaled_query, key, additive_mask)  # recomputed instead of kept
        grad_weights = bmm_b_transposed(grad, value)
        if ctx.keep is None:
            dropped = weights
        else:
            factor = _dropout_factor(ctx.keep, ctx.keep_scale, weights.dtype)
            dropped, grad_weights = ops.mul(weights, factor), ops.mul(grad_weights, factor)
        grad_value = _bmm_a_transposed(dropped, grad)
        # softmax backward: w * (g - sum(g * w)), the gradient of the scores of the scaled query
        row_sums = sum_last_axis(ops.mul(grad_weights, weights))
        grad_scores = ops.mul(weights, ops.sub(grad_weights, expanded(row_sums, weights.shape)))
        grad_query = ops.mul(_bmm(grad_scores, key), ctx.scale)
        grad_key = _bmm_a_transposed(grad_scores, scaled_query)
        return grad_query, grad_key, grad_value, None, None, None, None


def _batched_alike(query, key, value, additive_mask):
    """Matching batch dimensions (BatchMatMul does not broadcast) and a mask no wider than the scores."""
    return (query.ndim >= 3 and tuple(query.shape[:-2]) == tuple(key.shape[:-2]) == tuple(value.shape[:-2])
            and (additive_mask is None or additive_mask.ndim <= query.ndim))


def can_run_attention(query, key, value, additive_mask):
    """Whether `attention` serves these inputs: batched alike, a mask that needs no gradient, and autograd
    recording (otherwise `attention_unrecorded`)."""
    return (_batched_alike(query, key, value, additive_mask)
            and (additive_mask is None or not additive_mask.requires_grad) and _records(query, key, value))


def can_attend_unrecorded(query, key, value, additive_mask):
    """Whether `attention_unrecorded` serves these inputs: batched alike, and nothing to record."""
    return _batched_alike(query, key, value, additive_mask) and not _records(query, key, value, additive_mask)


def attention_unrecorded(query, key, value, additive_mask, scale):
    """The forward of `attention` without dropout, outside autograd. Against the plain composition on BERT's
    (16, 12, 128, 32) heads given as transposed views: 14.7 against 63.7 ms, of which MindSpore's broadcasting
    Add of the (16, 1, 1, 128) mask took 20 ms and its copies of the views most of the rest."""
    return _attend(query, key, value, additive_mask, scale, None, 1.0)[3]


def attention(query, key, value, additive_mask, scale, keep=None, keep_scale=1.0):
    """softmax(q k^T * scale + mask), dropped out where `keep` is False (kept values scaled by `keep_scale`),
    times v; recorded as one Function that keeps the scaled q, k, v, the mask and `keep`."""
    return _Attention.apply(query, key, value, additive_mask, scale, keep, keep_scale)


class _HostAttention(Function):
    """Attention of the inputs host_small.attention_in_every_mode admits, forward and backward in float64 with
    NumPy (host_small.attend and attend_grad), rounded once: MindSpore's kernels took 7.6 ms for a forward and
    backward with dropout on BERT's (16, 12, 12, 32) heads, real torch 2.4 ms. Keeps q, k, v in float64 and the
    attention weights (all small), and the dropout factor."""

    @staticmethod
    def forward(ctx, query, key, value, operands, keep, keep_scale):
        q, k, v, mask, scale, out_shape = operands
        # (torch scales the dropout mask in the weights' dtype: float32(1) / float32(1 - p) for float32)
        factor = None if keep is None else keep * _numpy_float(query)(keep_scale)
        out, weights = _host_small.attend(q, k, v, mask, scale, factor)
        ctx.save_for_backward(query, key, value)  # (read as the float64 copies below; kept for version checks)
        ctx.arrays, ctx.scale, ctx.factor = (q, k, v, weights), scale, factor
        return _host_small.result(out.reshape(out_shape).astype(_numpy_float(query)))

    @staticmethod
    @first_order_only  # computed with NumPy
    def backward(ctx, grad):
        query = ctx.saved_tensors[0]
        q, k, v, weights = ctx.arrays
        g = _host_small.array(grad).astype(np.float64)
        grads = _host_small.attend_grad(g, q, k, v, weights, ctx.scale, ctx.factor)
        dtype = _numpy_float(query)
        return tuple(_host_small.result(x.astype(dtype)) if needed else None
                     for x, needed in zip(grads, ctx.needs_input_grad[:3])) + (None,) * 3


def _numpy_float(tensor):
    return np.float64 if tensor._dtype == mindspore.float64 else np.float32


def host_attention(query, key, value, attn_mask, is_causal, scale, keep, keep_scale):
    """Attention on the host for inputs that host_small.attention_in_every_mode admits; dropped out where the
    boolean array `keep` is False (kept weights scaled by `keep_scale`), recorded when autograd records. None
    where the host does not serve them after all (a mask that does not broadcast, a mask beside is_causal)."""
    operands = _host_small.attention_operands(query, key, value, attn_mask, is_causal, scale, False,
                                              recorded=True)
    if operands is None:
        return None
    return _HostAttention.apply(query, key, value, operands, keep, keep_scale)


# ---------------------------------------------------------------- log_softmax (accurate)
_HOST_LOG_SOFTMAX = frozenset({mindspore.float32, mindspore.float16, mindspore.float64})


def _host_log_softmax(x, axis):
    """x - max - log(sum(exp(x - max))) along `axis`, computed in float64 on the host view of x (a zero-copy view
    on the CPU) and rounded once to x's dtype. MindSpore's LogSoftmax kernel is up to ~46000 ulps from torch in
    float32 and computes float64 in float32 precision (errors of 1e-6 in float64)."""
    if not x.is_contiguous():
        x = x.contiguous()
    src = x.asnumpy()
    b = src.astype(np.float64)  # (a copy for float64 too: the host view of x is never written)
    with np.errstate(all="ignore"):  # -inf rows give nan, as in torch
        b -= np.max(b, axis=axis, keepdims=True)
        lse = np.log(np.sum(np.exp(b), axis=axis, keepdims=True))
        b -= lse
    return mindspore.Tensor.from_numpy(b if src.dtype == np.float64 else b.astype(src.dtype))


def _composed_log_softmax(x, axis):
    """The same formula in MindSpore ops, in float64 (device targets without a host view)."""
    wide = x if x.dtype == mindspore.float64 else ops.cast(x, mindspore.float64)
    shifted = ops.sub(wide, ops.stop_gradient(ops.amax(wide, axis, True)))
    y = ops.sub(shifted, ops.log(ops.sum(ops.exp(shifted), axis, keepdim=True)))
    return y if y.dtype == x.dtype else ops.cast(y, x.dtype)


_accurate_exp = _accurate_unary(ops.exp, "exp")


class _LogSoftmax(Function):
    @staticmethod
    def forward(ctx, x, axis):
        y = _host_log_softmax(x, axis)
        ctx.save_for_backward(y)
        ctx.axis = axis
        return y

    @staticmethod
    def backward(ctx, grad):  # (recorded ops on the kept output: differentiable again)
        y, = ctx.saved_tensors
        # d/dx: g - softmax(x) * sum(g), softmax(x) = exp(y), with the accurate exp (MindSpore's CPU kernel is
        # hundreds of ulps off: the gradient's row sums, 0 in exact arithmetic, came out 40x torch's)
        return ops.sub(grad, ops.mul(_accurate_exp(y), ops.sum(grad, ctx.axis, keepdim=True))), None


def log_softmax(x, axis):
    """log_softmax of a floating tensor of 1 or more dims along the non-negative `axis`; one autograd Function
    that keeps its output, as torch does."""
    from .._runtime import ON_CPU

    if x._dtype not in _HOST_LOG_SOFTMAX:
        # bfloat16 (no NumPy type) in float32; other dtypes go to MindSpore's kernel, which raises as torch does
        if x._dtype == mindspore.bfloat16:
            return ops.cast(log_softmax(ops.cast(x, mindspore.float32), axis), mindspore.bfloat16)
        if 0 in x._shape:  # (torch returns an empty result of an integer type)
            return _ms.zeros(x._shape, x._dtype)
        from .._ops._util import type_name

        raise NotImplementedError(f'"log_softmax_lastdim_kernel_impl" not implemented for \'{type_name(x.dtype)}\'')
    if not ON_CPU or 0 in x._shape:
        return _composed_log_softmax(x, axis) if 0 not in x._shape else ops.mul(x, 0)
    if x._requires_grad and _records(x):
        return _LogSoftmax.apply(x, axis)
    return _host_log_softmax(x, axis)
