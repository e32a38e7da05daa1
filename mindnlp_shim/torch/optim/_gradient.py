"""The gradient an update rule starts from, as torch's SGD, Adagrad, RMSprop and Adam (L2 mode) compute it:

    g = -grad if maximize else grad;  g = g + weight_decay*p  (when weight_decay != 0)
"""
import numpy as np
import mindspore
from mindspore import ops


def host_gradient(work, grad, p, maximize, weight_decay):
    """`g` in `work`'s compute dtype, for the NumPy update of the parameter array `p` (never written to)."""
    g = work.read(grad)
    if maximize:
        g = np.negative(g)
    if weight_decay != 0:
        g = g + weight_decay * p
    return g


def device_gradient(param, grad, maximize, weight_decay):
    """`(p, g)` in float32 for a device-kernel update: the parameter's values and the gradient `g`."""
    f32 = mindspore.float32
    p = param.astype(f32)
    g = grad.astype(f32)
    if maximize:
        g = ops.neg(g)
    if weight_decay != 0:
        g = g + weight_decay * p
    return p, g
