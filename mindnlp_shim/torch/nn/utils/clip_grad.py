"""torch.nn.utils.clip_grad_norm_ / clip_grad_value_ (and torch 2.6's get_total_norm / clip_grads_with_norm_).

The total norm is the norm of the per-gradient norms, as torch computes it. On the CPU target both the norm
and the in-place scaling run in NumPy on zero-copy views of the gradients (one pass each; the MindSpore-op
version took ~2 s for BERT-base against ~30 ms, reference/mindspore-2.10-cpu.md section 3). On GPU/Ascend
they use device kernels.
"""
import math

import numpy as np
import mindspore
from mindspore import ops

from ...optim import _storage
from .... import _mindspore as _ms

Tensor = mindspore.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]

_HALF = (mindspore.float16, mindspore.bfloat16)


def _as_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _grads_of(parameters):
    return [p._grad for p in _as_list(parameters) if p._grad is not None]


def _result_dtype(tensors):
    dtypes = {t.dtype for t in tensors}
    return dtypes.pop() if len(dtypes) == 1 else mindspore.float32


def _host_vector_norm(flat, norm_type):
    if flat.size == 0:
        return 0.0
    if norm_type == math.inf:
        return np.max(np.abs(flat))
    if norm_type == -math.inf:
        return np.min(np.abs(flat))
    if norm_type == 2.0:
        return np.sqrt(np.dot(flat, flat))
    if norm_type == 1.0:
        return np.sum(np.abs(flat))
    if norm_type == 0.0:
        return np.asarray(np.count_nonzero(flat), dtype=flat.dtype)
    return np.sum(np.abs(flat) ** norm_type) ** (1.0 / norm_type)


def _host_norm(tensor, norm_type):
    array = tensor.asnumpy()
    if array.dtype not in (np.float32, np.float64):
        array = array.astype(np.float32)
    return _host_vector_norm(array.reshape(-1), norm_type)


def _device_norm(tensor, norm_type):
    x = tensor.astype(mindspore.float32) if tensor.dtype in _HALF else tensor
    x = x.reshape(-1)
    if x.shape[0] == 0:
        return _ms.zeros((), x.dtype)
    if norm_type == math.inf:
        return ops.abs(x).max()
    if norm_type == -math.inf:
        return ops.abs(x).min()
    if norm_type == 0.0:
        return (x != 0).astype(x.dtype).sum()
    if norm_type == 1.0:
        return ops.abs(x).sum()
    if norm_type == 2.0:
        return ops.sqrt((x * x).sum())
    return ops.pow(ops.pow(ops.abs(x), norm_type).sum(), 1.0 / norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The `norm_type` norm of all `tensors` together (the norm of their individual norms), a 0-dim tensor."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return Tensor.from_numpy(np.array(0.0, dtype=np.float32))
    dtype = _result_dtype(tensors)
    if _storage.uses_host_math():
        norms = np.array([_host_norm(t, norm_type) for t in tensors],
                         dtype=np.float64 if dtype == mindspore.float64 else np.float32)
        total = Tensor.from_numpy(np.array(_host_vector_norm(norms, norm_type), dtype=norms.dtype))
    else:
        norms = ops.stack([_device_norm(t, norm_type).astype(mindspore.float32) for t in tensors])
        total = _device_norm(norms, norm_type)
    if dtype != total.dtype:
        total = total.astype(dtype)
    if error_if_nonfinite:
        value = float(total.astype(mindspore.float32).asnumpy())
        if math.isnan(value) or math.isinf(value):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               f"so it cannot be clipped. To disable this error and scale the gradients by the "
                               f"non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of `parameters` in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = _grads_of(parameters)
    if not grads:
        return
    total = np.float32(float(total_norm.astype(mindspore.float32).asnumpy()) if isinstance(total_norm, Tensor)
                      else total_norm)
    coef = np.float32(max_norm) / (total + np.float32(1e-6))
    if not coef < 1.0 and not np.isnan(coef):
        return  # torch multiplies by the clamped coefficient 1.0: the values do not change
    if _storage.uses_host_math():
        for grad in grads:
            array, is_copy = _storage.host_array(grad)
            if array.dtype in (np.float32, np.float64):
                array *= coef
            else:
                array[...] = (array.astype(np.float32) * coef).astype(array.dtype)
            _storage.release(grad, array, is_copy)
    else:
        for grad in grads:
            _storage.assign(grad, grad.astype(mindspore.float32) * float(coef))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients' total norm to `max_norm` in place; return the total norm before clipping."""
    parameters = _as_list(parameters)
    grads = _grads_of(parameters)
    if not grads:
        return Tensor.from_numpy(np.array(0.0, dtype=np.float32))
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, float(max_norm), total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of `clip_grad_norm_`."""
    import warnings

    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for grad in _grads_of(parameters):
        if _storage.uses_host_math():
            array, is_copy = _storage.host_array(grad)
            np.clip(array, -clip_value, clip_value, out=array)
            _storage.release(grad, array, is_copy)
        else:
            _storage.assign(grad, ops.clamp(grad, -clip_value, clip_value))
