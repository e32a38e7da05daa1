"""Matrix products that keep no memory per call, so that a long run's memory stays flat.

MindSpore's MatMul family (MatMul, MatMulExt, BatchMatMul, Dense) receives its transpose flags as host values.
On the CPU (MindSpore 2.8-2.10) every eager call copies each value into memory of MindSpore's pool that is never
given back: about 1.4 KB per product, for as long as the process runs (a training step of a 2-layer BERT makes
about 40 products; docs/long-runs.md). Three routes keep nothing:

- unrecorded 2-d products (the shim's Functions compute their forward and backward outside the tape; products
  of tensors that need no gradient): MatMul compiled by `mindspore.jit`, where the flags are constants of the
  graph. The call runs with MindSpore's grad mode off: with it on, the compiled call is recorded on the tape
  whatever its inputs, and its result requires grad (refusing `out=`, keeping its inputs alive). The graph is
  compiled for dynamic shapes once a second shape arrives (`dynamic=1`): compiled per shape, each
  (2048, 1536)^T x (2048, 384) shape kept ~16 MB, so varying sequence lengths would have grown memory.
- unrecorded n-d products (attention): BatchMatMulExt (`mint.bmm`, tensors only) on dense 3-d operands over the
  tensors' memory, a transposed operand copied by NumPy (not compiled: compiled batched products raised the
  blockwise attention's peak memory past its bound in tests/test_long_input_memory.py).
- recorded products (transposed views in the autograd graph): BatchMatMulExt on the views (2-d operands as
  one-batch views).

Measured per call on MiniLM's shapes (float32, 2 cores, interleaved): the compiled MatMul runs as fast as eager
MatMul with flags; BatchMatMulExt on views is as fast where no operand is transposed and 1.7-6x slower where one
is (MindSpore copies a view before its kernel reads it, a transposed one slowly). bfloat16, which none of these
CPU kernels takes, does not reach them on the CPU; elsewhere it keeps eager BatchMatMul (which keeps its bytes
per call). Mixed dtypes are refused by the kernels.
"""
import numpy as np
import mindspore
from mindspore import mint, ops

from .._function_outputs import plain_reshape
from .._memory import host_view
from .._runtime import DEVICE_TARGET, grad_enabled
from ... import _mindspore as _ms

_TENSOR_ONLY_DTYPES = (mindspore.float32, mindspore.float64, mindspore.float16)
_FLAGS = tuple((a, b) for a in (False, True) for b in (False, True))
# (BatchMatMul, not MatMul, for 2-d operands too: MatMul has no bfloat16 or float16 CPU kernel)
_FLAGGED = {flags: ops.BatchMatMul(*flags) for flags in _FLAGS}


def _compiled(kernel):
    """`kernel(a, b)` as a compiled graph: its flags are constants of the graph, not per-call host values."""
    @mindspore.jit(dynamic=1)
    def run(a, b):
        return kernel(a, b)

    return run


_COMPILED = {(2,) + flags: _compiled(ops.MatMul(*flags)) for flags in _FLAGS}
_ON_CPU = DEVICE_TARGET == "CPU"


def _transposed(t):
    """`t` with its last two axes swapped (a view)."""
    axes = tuple(range(len(t._shape)))
    return ops.transpose(t, axes[:-2] + (axes[-1], axes[-2]))


def _recorded(a, b):
    return grad_enabled() and any(t._requires_grad or not t._is_leaf for t in (a, b))


def _run_unrecorded(kernel, a, b):
    """kernel(a, b) with MindSpore's grad mode off for the call (see the module's docstring)."""
    if not grad_enabled():
        return kernel(a, b)
    _ms.set_grad_enabled(False)
    try:
        return kernel(a, b)
    finally:
        _ms.set_grad_enabled(True)


def _batched_operand(t, transpose):
    """op(t) as a dense 3-d tensor for BatchMatMulExt called unrecorded on the CPU, over t's memory where t is
    dense and untransposed (valid while t is alive), else a copy NumPy makes: MindSpore copies a view (a reshape,
    a transposed view) before its kernel reads it, a transposed one 3-10x slower than NumPy."""
    array = host_view(t)
    if transpose:
        array = np.swapaxes(array, -1, -2)
    return mindspore.Tensor.from_numpy(np.ascontiguousarray(array.reshape((-1,) + array.shape[-2:])))


def product(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b), where op swaps an operand's last two axes when its flag is set: 2-d operands, or n-d ones
    with equal batch dimensions (as BatchMatMul takes them)."""
    if a._dtype not in _TENSOR_ONLY_DTYPES or a._dtype is not b._dtype:
        return _FLAGGED[(transpose_a, transpose_b)](a, b)
    if not _recorded(a, b):
        if len(a._shape) == 2 and len(b._shape) == 2:
            return _run_unrecorded(_COMPILED[(2, transpose_a, transpose_b)], a, b)
        if _ON_CPU:
            out = mint.bmm(_batched_operand(a, transpose_a), _batched_operand(b, transpose_b))
            return plain_reshape(out, a.shape[:-2] + out.shape[-2:])
    left = _transposed(a) if transpose_a else a
    right = _transposed(b) if transpose_b else b
    if len(left._shape) == 3:
        return mint.bmm(left, right)
    out = mint.bmm(ops.reshape(left, (-1,) + left.shape[-2:]), ops.reshape(right, (-1,) + right.shape[-2:]))
    shape = left.shape[:-2] + out.shape[-2:]
    if _recorded(a, b):
        return ops.reshape(out, shape)  # (recorded: the tape differentiates through the reshape)
    # not a view of the batched product, as BatchMatMul's result is not: a Function's output that is a view of a
    # tensor made inside it takes no recorded in-place write
    return plain_reshape(out, shape)
