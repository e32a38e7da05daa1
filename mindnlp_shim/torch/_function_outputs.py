"""Outputs of custom-gradient Functions as plain tensors, so that in-place writes into them are recorded.

MindSpore refuses a recorded in-place write into a Function's output when that output is a view of a tensor made
inside the Function's forward ("This view tensor is output of custom cell"): the 3-D output of a linear layer
(a reshape of the 2-D product), or whatever a checkpointed region returns. torch allows these writes
(`hidden_states[~mask] = 0` after a projection). `plain_tensor` gives such an output as a tensor that is not a
view: on the CPU target, a new tensor over the same memory (no copy, no kernel); elsewhere a copy.

Only for outputs the Function does not also save for its backward: a saved output must stay the same tensor,
so that a write into it is still caught by the tape's check of modified saved tensors.
"""
import mindspore
from mindspore import ops

from . import _memory
from ._runtime import ON_CPU
from .. import _mindspore as _ms


def plain_tensor(tensor):
    """`tensor`'s values as a tensor that is not a view of another (the same memory where that is free)."""
    if ON_CPU and tensor.is_contiguous():
        return mindspore.Tensor.from_numpy(_memory.host_view(tensor))
    if tensor.dtype == mindspore.bool_:
        return ops.logical_and(tensor, True)
    return ops.add(tensor, _ms.zeros((), tensor.dtype))


def plain_reshape(tensor, shape):
    """`tensor` reshaped to `shape` (its elements in row-major order), as a tensor that is not a view."""
    if ON_CPU and tensor.is_contiguous():
        return mindspore.Tensor.from_numpy(_memory.host_view(tensor).reshape(shape))
    return plain_tensor(ops.reshape(tensor, shape))
