"""2-d matrix products by a MindSpore kernel that takes tensors only, so that a long run's memory stays flat.

MindSpore's MatMul family (MatMul, MatMulExt, BatchMatMul, Dense) receives its transpose flags as host values.
On the CPU (MindSpore 2.8-2.10) every such call copies each value into memory of MindSpore's pool that is never
given back: about 1.4 KB per product, for as long as the process runs (a training step of a 2-layer BERT makes
about 40 products; docs/long-runs.md). BatchMatMulExt (`mint.bmm`) takes only its two tensors and leaves
nothing behind, so the products of the training hot paths go through it (2-d operands as one-batch views); a
transposed operand is a transposed view, which the kernel reads as such.

Measured beside MatMul with flags (float32, 2 cores, one run): equal for (384, 64) x (64, 256), 0-35% slower
for MiniLM's (2048, 384) x (384, 1536) and its gradients, the cost of flat memory. Dtypes BatchMatMulExt has
no CPU kernel for (bfloat16) keep BatchMatMul.
"""
import mindspore
from mindspore import mint, ops

from .._function_outputs import plain_reshape
from .._runtime import grad_enabled

_TENSOR_ONLY_DTYPES = (mindspore.float32, mindspore.float64, mindspore.float16)
_FLAGGED = {(a, b): ops.BatchMatMul(transpose_a=a, transpose_b=b) for a in (False, True) for b in (False, True)}


def _transposed(t):
    """`t` with its last two axes swapped (a view)."""
    axes = tuple(range(len(t._shape)))
    return ops.transpose(t, axes[:-2] + (axes[-1], axes[-2]))


def product(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b), where op swaps an operand's last two axes when its flag is set: 2-d operands, or n-d ones
    with equal batch dimensions (as BatchMatMul takes them)."""
    if a._dtype not in _TENSOR_ONLY_DTYPES or a._dtype is not b._dtype:
        return _FLAGGED[(transpose_a, transpose_b)](a, b)
    left = _transposed(a) if transpose_a else a
    right = _transposed(b) if transpose_b else b
    if len(left._shape) == 3:
        return mint.bmm(left, right)
    out = mint.bmm(ops.reshape(left, (-1,) + left.shape[-2:]), ops.reshape(right, (-1,) + right.shape[-2:]))
    shape = left.shape[:-2] + out.shape[-2:]
    if grad_enabled() and any(t._requires_grad or not t._is_leaf for t in (a, b)):
        return ops.reshape(out, shape)  # (recorded: the tape differentiates through the reshape)
    # not a view of the batched product, as BatchMatMul's result is not: a Function's output that is a view of a
    # tensor made inside it takes no recorded in-place write
    return plain_reshape(out, shape)
