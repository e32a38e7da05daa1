"""Where an optimizer update runs, and how it reaches the tensors it changes in place.

On the CPU target the update runs in NumPy on zero-copy views of the parameter, its gradient and the state
tensors (`_memory.host_view`: the tensor's own elements in its storage, also for a tensor that is a view of
another): one pass of in-place ufuncs per tensor, 5-50x faster than per-tensor MindSpore ops there
(docs: reference/mindspore-2.10-cpu.md, section 3). Views are fetched again for every step because a
MindSpore write (`copy_`, setitem) may give a tensor new storage. On GPU/Ascend the update uses device
kernels instead (each optimizer's `_device_update`).

The updates walk flat arrays, so a tensor whose elements are not laid out densely (a transposed view) is
updated in a dense copy that `release` writes back. Every tensor an update writes has its write count
raised, as torch's in-place ops raise the version counter: a backward that saved a parameter before the
step refuses to run, as torch's does, instead of reading the new values.
"""
import contextlib

import numpy as np
import mindspore
from mindspore import ops

from .. import _runtime
from .. import _memory
from .._memory import host_view
from ... import _mindspore as _ms

Tensor = mindspore.Tensor

_force_device_kernels = False


def uses_host_math():
    """True when updates run in NumPy (the CPU target), False when they run as device kernels."""
    return _runtime.ON_CPU and not _force_device_kernels


@contextlib.contextmanager
def device_kernels():
    """Run updates with the device-kernel code path even on the CPU target (used to test that path)."""
    global _force_device_kernels
    previous, _force_device_kernels = _force_device_kernels, True
    try:
        yield
    finally:
        _force_device_kernels = previous


def host_array(tensor):
    """`(array, is_copy)`: a writable NumPy array over `tensor`'s elements in its storage, or a private dense
    copy of them where they are not laid out densely."""
    array = host_view(tensor)
    if array.flags.c_contiguous:
        return array, False
    return np.ascontiguousarray(array), True


def count_writes(tensors):
    """Raise the write count of each tensor an update wrote through its host array (torch's version counter)."""
    if tensors:
        _memory.count_writes(tensors)
        for tensor in tensors:  # (views in the graph of a parameter, kept across a step, keep their gradients)
            _memory.views_written(tensor)


def release(tensor, array, is_copy):
    """Finish an in-place update started with `host_array`: write the copy back if there was one."""
    if is_copy:
        assign(tensor, host_tensor(np.require(array, requirements="C")))


def host_tensor(array):
    """A tensor over `array` without copying it (the optimizer's state lives in such tensors)."""
    return Tensor.from_numpy(np.require(array, requirements="C"))  # (ascontiguousarray would make 0-dim 1-dim)


def zeros_state(param_array, fill=0.0):
    """A state tensor shaped and typed like the parameter, filled with `fill` (torch's `zeros_like(p)`)."""
    return host_tensor(np.full(param_array.shape, fill, dtype=param_array.dtype))


def zeros_like_param(param):
    """torch's `zeros_like(p)` for optimizer state. Allocated by MindSpore on every target: on the CPU its
    memory pool still holds the activations the backward just freed, so the first step's state reuses that
    memory instead of growing the process (its `asnumpy()` is a zero-copy view all the same)."""
    if uses_host_math() and param.dtype == mindspore.bfloat16:
        return zeros_state(param.asnumpy())  # (no bfloat16 fill kernel on the CPU)
    return _ms.zeros(param.shape, param.dtype)


def step_tensor(value=0.0):
    """torch 2.x keeps the step count as a 0-dim float32 tensor."""
    return host_tensor(np.array(value, dtype=np.float32))


def advance_step_on_host(step):
    """Add one to the step-count tensor `step` in place (host update) and return the new count."""
    array, is_copy = host_array(step)
    array += 1
    count = float(array)
    if is_copy:
        release(step, array, is_copy)
    count_writes([step])
    return count


def advance_step_on_device(step):
    """Add one to the step-count tensor `step` in place (device-kernel update) and return the new count."""
    count = as_float(step) + 1
    assign(step, step_tensor(count))
    return count


def compute_dtype(array):
    """Half-precision values are updated in float32 (and stored back in their own dtype); others as they are."""
    return np.float64 if array.dtype == np.float64 else np.float32


def as_float(value):
    """A hyper-parameter that may be a Python number or a 0-dim tensor, as a float."""
    return float(value.asnumpy()) if isinstance(value, Tensor) else float(value)


def assign(tensor, value):
    """Write `value` into `tensor` in place, outside autograd (device-kernel path and write-backs)."""
    from .._inplace import assign as _assign
    from ..autograd.grad_mode import no_grad

    with no_grad():
        _assign(tensor, value)


def no_grad():
    from ..autograd.grad_mode import no_grad as _no_grad

    return _no_grad()


def enable_grad():
    from ..autograd.grad_mode import enable_grad as _enable_grad

    return _enable_grad()


def check_real(param, optimizer_name):
    if param.dtype in (mindspore.complex64, mindspore.complex128):
        raise NotImplementedError(f"torch.optim.{optimizer_name} with complex parameters is not supported on "
                                  f"MindSpore by mindnlp-shim: use real parameters (torch.view_as_real)")
