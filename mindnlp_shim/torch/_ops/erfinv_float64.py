"""erfinv of floating tensors at their dtype's accuracy. MindSpore's Erfinv kernel computes float64 through
float32 (about 1e-7 off), and its float32 is far off near +-1 (erfinv(0.9991) was 2.2907 for torch's 2.3477,
2.5%); here scipy.special (a dependency of MindSpore itself) computes it on the host in float64, rounded once to
the input's dtype. The tape records it as one Function whose backward, sqrt(pi)/2 * exp(erfinv(x)^2), is made of
recorded ops, so higher derivatives follow."""
import math

import mindspore
import numpy as np
from mindspore import ops
from scipy import special as _scipy_special

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled

# a float64 tensor: MindSpore would round a Python float operand to float32
_HALF_SQRT_PI = mindspore.Tensor(math.sqrt(math.pi) / 2, mindspore.float64)


_HOST_DTYPES = (mindspore.float16, mindspore.float32, mindspore.float64)


def _host_erfinv(x):
    values = x.contiguous().asnumpy()
    # (np.asarray: a 0-d input gives a scalar)
    return mindspore.Tensor.from_numpy(np.asarray(_scipy_special.erfinv(values.astype(np.float64)), values.dtype))


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
    """torch.erfinv: the host's float64 computation for float16, float32 and float64, MindSpore's kernel
    otherwise (it raises for integers as torch's does not: they are promoted before this)."""
    if not isinstance(x, mindspore.Tensor) or x.dtype not in _HOST_DTYPES:
        return ops.erfinv(x)
    if x.requires_grad and is_grad_enabled():
        return _Erfinv64.apply(x)
    return _host_erfinv(x)
