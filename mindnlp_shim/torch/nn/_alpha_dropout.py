"""Alpha dropout (for SELU networks) with torch's rule and torch's draws: keep = bernoulli(1 - p) from the
generator dropout uses (one draw per element, or per (sample, channel) for the feature variant), then
a = 1 / sqrt((alpha^2 p + 1)(1 - p)) and out = input * keep * a + (keep - 1) * alpha * a + alpha * a * p, the
scalars rounded to float32 as torch's float-tensor arithmetic rounds them. p == 1 gives zeros, as torch."""
import math

import numpy as np
from mindspore import ops

from ._dropout_frame import apply_dropout

_ALPHA = 1.7580993408473766  # SELU's -scale * alpha


def _noise_shape(input, feature):
    if not feature:
        return tuple(input.shape)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:2]) + (1,) * (input.ndim - 2)


def _alpha_mask(input, p, feature):
    from . import functional as F

    keep = F._keep_bools(_noise_shape(input, feature), p).astype(np.float32)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    scale = keep * np.float32(a)
    shift = (keep - np.float32(1.0)) * np.float32(_ALPHA * a) + np.float32(_ALPHA * a * p)
    like = input.dtype
    return ops.add(ops.mul(input, F.Tensor.from_numpy(scale).astype(like)), F.Tensor.from_numpy(shift).astype(like))


def _mask_elements(input, p):
    return _alpha_mask(input, p, feature=False)


def _mask_channels(input, p):
    return _alpha_mask(input, p, feature=True)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return apply_dropout(input, p, training, inplace, _mask_elements)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return apply_dropout(input, p, training, inplace, _mask_channels)
