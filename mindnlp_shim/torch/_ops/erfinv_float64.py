"""erfinv of float64 tensors at float64 accuracy. MindSpore's Erfinv kernel computes float64 through float32
(about 1e-7 off); here scipy.special (a dependency of MindSpore itself) computes it on the host. The tape
records it as one Function whose backward, sqrt(pi)/2 * exp(erfinv(x)^2), is made of recorded ops, so higher
derivatives follow."""
import math

import mindspore
import numpy as np
from mindspore import ops
from scipy import special as _scipy_special

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled

# a float64 tensor: MindSpore would round a Python float operand to float32
_HALF_SQRT_PI = mindspore.Tensor(math.sqrt(math.pi) / 2, mindspore.float64)


def _host_erfinv(x):
    return mindspore.Tensor.from_numpy(np.asarray(_scipy_special.erfinv(x.contiguous().asnumpy())))  # (0-d: a scalar)


class _Erfinv64(Function):
    @staticmethod
    def forward(ctx, x):
        y = _host_erfinv(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return ops.mul(grad, ops.mul(ops.exp(ops.square(y)), _HALF_SQRT_PI))


def erfinv_any(x):
    """torch.erfinv: MindSpore's kernel below float64, the host's float64 computation for float64."""
    if not isinstance(x, mindspore.Tensor) or x.dtype != mindspore.float64:
        return ops.erfinv(x)
    if x.requires_grad and is_grad_enabled():
        return _Erfinv64.apply(x)
    return _host_erfinv(x)
