"""Which ops an autocast region runs in low precision, which in float32, and the casts that make it so.

torch's autocast documents three op lists: ops that run in the region's low-precision dtype (matmuls, linear,
convolutions, attention), ops that run in float32 for range or accuracy (losses; on CUDA also softmax, norms,
exp/log/pow, sums), and everything else, which runs in the dtype of its inputs. The same lists apply here.

What differs is whether MindSpore has a low-precision kernel to run them with:
- GPU and Ascend: float16 and bfloat16 kernels exist, so the low-precision ops cast their floating inputs to
  the region's dtype and run natively.
- CPU: float16 matmul/linear kernels exist (forward and backward, if slower than float32), so a float16 region
  runs them in float16. There are no bfloat16 kernels for them (reference/mindspore-2.10-cpu.md, section 2), so a
  bfloat16 region computes them in float32 and their results stay float32 where torch would return bfloat16:
  never less precise than torch, and the only difference a caller can see is that dtype.

`adapt_module` wraps each listed op of an op module once, at import (called from `_backend.adapt_module`).
Outside any region a wrapped op costs one global read.
"""
import functools

import mindspore
from mindspore import ops

from .._runtime import DEVICE_TARGET
from .._device import PROCESS_DEVICE_TYPE
from . import autocast_mode

Tensor = mindspore.Tensor
F16, BF16, F32 = mindspore.float16, mindspore.bfloat16, mindspore.float32

# Low-precision dtypes with kernels for the LOWER_PRECISION ops, per MindSpore device target.
NATIVE_DTYPES = {"CPU": (F16,), "GPU": (F16, BF16), "Ascend": (F16, BF16)}

LOWER_PRECISION = frozenset({
    "matmul", "mm", "bmm", "baddbmm", "addmm", "addbmm", "addmv", "mv", "einsum", "linear", "conv1d", "conv2d",
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu", "scaled_dot_product_attention",
})

_LOSSES = frozenset({
    "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
    "binary_cross_entropy_with_logits", "margin_ranking_loss", "poisson_nll_loss", "cosine_embedding_loss",
    "hinge_embedding_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "multilabel_margin_loss",
})
_ACCELERATOR_FLOAT32 = _LOSSES | {
    "acos", "asin", "cosh", "sinh", "tan", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
    "reciprocal", "rsqrt", "pow", "softplus", "layer_norm", "group_norm", "norm", "vector_norm",
    "cosine_similarity", "cdist", "dist", "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "prod",
    "sum",
}
# Float32 ops per device type of the region (torch's CPU list is the losses; CUDA's is wider).
FLOAT32 = {"cpu": _LOSSES | {"prod", "cdist"}, "cuda": _ACCELERATOR_FLOAT32, "npu": _ACCELERATOR_FLOAT32}

_native = NATIVE_DTYPES.get(DEVICE_TARGET, ())
_float32_here = FLOAT32.get(PROCESS_DEVICE_TYPE, _LOSSES)


def _cast_one(value, dtype):
    if type(value) is Tensor:
        if value.dtype != dtype and value.dtype in (F16, BF16, F32):
            return ops.cast(value, dtype)
        return value
    if isinstance(value, (list, tuple)) and value and type(value[0]) is Tensor and not hasattr(value, "_fields"):
        return type(value)(_cast_one(v, dtype) for v in value)
    return value


def _with_casts(fn, target_dtype):
    """`fn` with its floating tensor arguments cast to the dtype `target_dtype()` picks (None: no cast)."""

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if not autocast_mode.open_process_regions:
            return fn(*args, **kwargs)
        if kwargs.get("out") is not None:
            # torch: a call given out= runs in an autocast region without being autocast (nor is the value its
            # out= branch computes by calling the op again)
            with autocast_mode.restored({}):
                return fn(*args, **kwargs)
        dtype = target_dtype()
        if dtype is None:
            return fn(*args, **kwargs)
        args = tuple(_cast_one(a, dtype) for a in args)
        kwargs = {k: _cast_one(v, dtype) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    op.__wrapped_for_autocast__ = True
    return op


def lower_precision_dtype():
    """What a low-precision op computes in inside the current region: its dtype where a kernel exists, else
    float32; None outside a region."""
    dtype = autocast_mode.process_region_dtype()
    if dtype is None:
        return None
    return dtype if dtype in _native else F32


def float32_dtype():
    return F32 if autocast_mode.process_region_dtype() is not None else None


def wrap(name, fn):
    """`fn` made autocast-aware if torch's lists name it; otherwise `fn` itself."""
    if getattr(fn, "__wrapped_for_autocast__", False):
        return fn
    if name in LOWER_PRECISION:
        return _with_casts(fn, lower_precision_dtype)
    if name in _float32_here:
        return _with_casts(fn, float32_dtype)
    return fn


def adapt_module(namespace, module_name):
    """Wrap, in `namespace` (a module's globals), the listed ops that module defines."""
    for name, value in list(namespace.items()):
        if (name in LOWER_PRECISION or name in _float32_here) and callable(value) \
                and getattr(value, "__module__", None) == module_name:
            namespace[name] = wrap(name, value)
