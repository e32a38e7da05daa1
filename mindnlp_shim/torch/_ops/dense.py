"""Dense (row-major) copies of strided tensors: `contiguous()`, and reshapes that cannot be views.

Transposed views are everywhere in attention (`x.view(b, s, h, d).transpose(1, 2)`). MindSpore 2.10's CPU
copy of such a view (its `contiguous`) is slow: 3.5-7 ms for a (16, 12, 128, 32) float32 tensor, which NumPy
copies in 0.25-0.4 ms. On the CPU NumPy therefore copies strided tensors of the dtypes it holds, reading them
through their host view (`_memory.host_view`); other dtypes, and every other target, use MindSpore's own copy.
"""
from math import prod as _prod

import numpy as np
import mindspore
from mindspore import ops

from .._memory import host_view
from .._runtime import DEVICE_TARGET
from .host_small import array as _host_array

Tensor = mindspore.Tensor
_ms_contiguous = Tensor.contiguous  # MindSpore's own, captured before the torch binding replaces it
_NUMPY_COPIED = frozenset({mindspore.float32, mindspore.float16, mindspore.float64, mindspore.int64,
                           mindspore.int32, mindspore.bool_})


def _host_copy(tensor):
    """A new dense tensor with `tensor`'s elements, copied by NumPy from its host view (any strides): 27 us for a
    transposed (16, 12, 12, 32) float32 view, 365 us for (16, 12, 128, 32). (Always a copy: NumPy may find a
    layout MindSpore calls strided, such as odd strides on size-1 axes, already C-contiguous.)"""
    return Tensor.from_numpy(np.array(host_view(tensor), order="C", copy=True))


def dense_copy(tensor):
    """`tensor` itself when it is contiguous, else a contiguous copy (no autograd recording)."""
    if tensor.is_contiguous():
        return tensor
    if DEVICE_TARGET == "CPU" and tensor.dtype in _NUMPY_COPIED:
        return _host_copy(tensor)
    return _ms_contiguous(tensor)


_KERNEL_ALIASED = frozenset({mindspore.float32, mindspore.float16, mindspore.float64})
_MIN_ALIASED = 1 << 14  # below this, MindSpore's copy costs about what making the alias does (5 us)


def kernel_operand(tensor):
    """`tensor` as an input of a MindSpore kernel called outside the tape, without the copy MindSpore makes of a
    view.

    MindSpore 2.10's CPU kernels copy every input that is a view before reading it, a dense one too: a reshape,
    a slice, or a parameter loaded from safetensors (a reshape of the bytes read from the file). Measured: Gather
    of 192 rows from MiniLM's (30522, 384) loaded word embedding 7.9-9.6 ms, from a fresh table 0.1 ms; MatMul of
    (192, 384) rows by a (1536, 384) view 2.0 ms, by a fresh weight 1.5 ms. On the CPU a dense float tensor
    of 2^14 elements or more is passed as a new tensor over the same memory, which MindSpore does not take for a
    view. The alias is not the tensor autograd knows, so callers use it only in unrecorded kernel calls (inside
    a Function, or outside grad mode), while `tensor` itself is alive."""
    return Tensor.from_numpy(_host_array(tensor)) if takes_kernel_alias(tensor) else tensor


def takes_kernel_alias(tensor):
    """Whether `kernel_operand` passes `tensor` as a new tensor over its memory (else as itself)."""
    if DEVICE_TARGET != "CPU" or tensor._dtype not in _KERNEL_ALIASED or _prod(tensor._shape) < _MIN_ALIASED:
        return False
    return _host_array(tensor).flags.c_contiguous  # (the array is kept on the tensor: the second call is a lookup)


_DenseCopy = None


def _dense_copy_function():
    global _DenseCopy
    if _DenseCopy is None:
        from ..autograd.function import Function

        class DenseCopy(Function):
            """A copy: its gradient is the incoming gradient, which already has the input's shape."""

            @staticmethod
            def forward(ctx, x):
                return dense_copy(x)

            @staticmethod
            def backward(ctx, grad):
                return grad

        _DenseCopy = DenseCopy
    return _DenseCopy


def contiguous(input, memory_format=None):
    if input.is_contiguous():
        return input
    from .. import _float8

    if input.dtype in _float8.FLOAT8:  # its codes, in order (no CPU kernel copies float8)
        return _float8.from_codes(_float8.codes_of(input), input.dtype)
    from ..autograd.grad_mode import is_grad_enabled

    if is_grad_enabled() and (input._requires_grad or not input._is_leaf):
        return _dense_copy_function().apply(input)
    return dense_copy(input)
