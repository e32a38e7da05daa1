"""torch.<name> forms of nn.functional's functions under the argument conventions of torch's own operators:
positional `train` flags, integer reduction codes (0 'none', 1 'mean', 2 'sum'), the weight-first embedding,
batch_norm's weight-before-statistics order; and a few more operators of that level (constant_pad_nd,
channel_shuffle, norm_except_dim, frobenius_norm, nuclear_norm, fill, conj_physical, nonzero_static,
view_as_complex). nn.functional is imported on first call (it costs 0.4 s at `import torch`)."""
import numpy as np
import mindspore
from mindspore import ops

from .. import _autograd_views, _dtype, _memory
from .._runtime import ON_CPU
from . import pointwise as pw, shape as sh
from ._util import Tensor
from ... import _mindspore as _ms

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _F():
    from ..nn import functional

    return functional


def _reduction(code):
    if code not in _REDUCTIONS:
        raise RuntimeError(f"{code} is not a valid value for reduction")
    return _REDUCTIONS[code]


def dropout(input, p, train):
    return _F().dropout(input, p, train)


def alpha_dropout(input, p, train):
    return _F().alpha_dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return _F()._group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _F().embedding(indices, weight, padding_idx if padding_idx >= 0 else None, None, 2.0,
                          scale_grad_by_freq, sparse)


def kl_div(input, target, reduction=1, *, log_target=False):
    return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def selu(input):
    return _F().selu(input)


def celu(input, alpha=1.0):
    return _F().celu(input, alpha)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    if training and generator is not None:
        raise NotImplementedError("torch.rrelu with a generator is not supported by mindnlp-shim")
    return _F().rrelu(input, lower, upper, training)


def threshold(input, threshold, value):
    return _F().threshold(input, threshold, value)


def _pool(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    return getattr(_F(), name)(input, kernel_size, stride if stride not in ((), []) else None, padding, dilation,
                               ceil_mode)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool("max_pool1d_with_indices", input, kernel_size, stride, padding, dilation, ceil_mode)


def adaptive_avg_pool1d(input, output_size):
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """(values, indices): torch's operator always answers both."""
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    return _F().pad(input, tuple(pad), "constant", value)


def channel_shuffle(input, groups):
    """Channels (dim 1) regrouped: (N, g, C/g, ...) -> (N, C/g, g, ...)."""
    n, c = input.shape[0], input.shape[1]
    if groups <= 0 or c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    x = input.reshape((n, groups, c // groups) + rest)
    return sh.transpose(x, 1, 2).reshape((n, c) + rest)


native_channel_shuffle = channel_shuffle


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm over every dim but `dim`, shaped to broadcast against v (weight_norm's g); dim -1: of all."""
    from .linalg import vector_norm

    if dim == -1:
        return vector_norm(v, pow)
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return vector_norm(v, pow, others, keepdim=True) if others else pw.abs(v)


def frobenius_norm(input, dim, keepdim=False):
    from .linalg import vector_norm

    return vector_norm(input, 2, tuple(dim) if not isinstance(dim, int) else (dim,), keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """The nuclear norm of a matrix (dim: the two matrix dims; a bool in its place is keepdim)."""
    from .linalg_matrix_functions import matrix_norm

    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        if input.ndim != 2:
            raise RuntimeError(f"Expected a tensor with 2 dimensions, but got a tensor with {input.ndim} "
                               f"dimensions instead.")
        dim = (0, 1)
    return matrix_norm(input, "nuc", tuple(dim), keepdim)


def fill(input, value):
    """A tensor like input filled with value (a number or a 0-d tensor, whose gradient is the sum)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               f"dimensions.")
        value = value.astype(input.dtype) if value.dtype != input.dtype else value
        return sh.expand(value, tuple(input.shape)).clone()
    return ops.full(tuple(input.shape), value, dtype=input.dtype)


def conj_physical(input, *, out=None):
    if out is not None:
        from ._util import write_out

        return write_out(out, conj_physical(input), "conj_physical", exact=True, differentiable=False)
    return ops.conj(input) if input.dtype in _dtype.COMPLEX else input.clone()


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's (n, ndim) indices cut or padded with fill_value to exactly `size` rows."""
    from .indexing import nonzero

    nz = nonzero(input)
    n = nz.shape[0]
    if n >= size:
        return nz[:size]
    pad = ops.full((size - n, input.ndim), fill_value, dtype=mindspore.int64)
    return sh.cat((nz, pad), 0) if n else pad


def view_as_complex(input):
    """A complex tensor from a float32/float64 one whose last dim holds (real, imaginary). On the CPU target a
    dense input outside autograd is aliased, as torch's view is: writes into either reach the other. In the
    autograd graph the result is a recorded copy that counts as a view of input, so writes into it or into input
    are refused (as for any view there, `_autograd_views`) rather than silently not reaching the other."""
    if input.dtype not in (mindspore.float32, mindspore.float64):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {input.dtype}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    tracked = (input._requires_grad or not input._is_leaf) and _ms.grad_enabled()
    if ON_CPU and not tracked and input.is_contiguous():
        complex_dtype = np.complex64 if input.dtype == mindspore.float32 else np.complex128
        # the host view keeps `input` alive; from_numpy keeps the view: the result reads input's memory
        return mindspore.Tensor.from_numpy(_memory.host_view(input).view(complex_dtype)[..., 0])
    result = ops.Complex()(sh.select(input, -1, 0), sh.select(input, -1, 1))
    if tracked:
        _autograd_views.register(input, result, stands_for_view=True)
    return result
