"""Matrix products that keep no memory per call, so that a long run's memory stays flat.

MindSpore's MatMul family (MatMul, MatMulExt, BatchMatMul, Dense) receives its transpose flags as host values.
On the CPU (MindSpore 2.8-2.10) every eager call copies each value into memory of MindSpore's pool that is never
given back: about 1.4 KB per product, for as long as the process runs (a training step of a 2-layer BERT makes
about 40 products; docs/long-runs.md). Two ways keep nothing:

- outside the tape (the shim's Functions compute their forward and backward there): MatMul/BatchMatMul compiled
  by `mindspore.jit`, where the flags are constants of the graph (one compilation per input shape, ~20-60 ms);
- on the tape (products of transposed views in the graph): BatchMatMulExt (`mint.bmm`), which takes only its
  two tensors (2-d operands as one-batch views; a transposed operand is a transposed view the kernel reads).

Dtypes BatchMatMulExt has no CPU kernel for (bfloat16) keep eager BatchMatMul.
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


def _compiled(kernel):
    """`kernel(a, b)` compiled by mindspore.jit: in a compiled graph the flags are constants of the graph, given
    once per input shape, not host values copied per call; and the compiled MatMul runs faster than the eager one
    (MiniLM's (2048, 384) x (384, 1536): 17 ms against 27 ms, one measurement)."""
    @mindspore.jit
    def run(a, b):
        return kernel(a, b)

    return run


_COMPILED = {(rank, a, b): _compiled(ops.MatMul(transpose_a=a, transpose_b=b) if rank == 2 else
                                     ops.BatchMatMul(transpose_a=a, transpose_b=b))
             for rank in (2, 3, 4) for a in (False, True) for b in (False, True)}


def product(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b), where op swaps an operand's last two axes when its flag is set: 2-d operands, or n-d ones
    with equal batch dimensions (as BatchMatMul takes them)."""
    if a._dtype not in _TENSOR_ONLY_DTYPES or a._dtype is not b._dtype:
        return _FLAGGED[(transpose_a, transpose_b)](a, b)
    rank = len(a._shape)
    if rank <= 4 and rank == len(b._shape) and not (
            grad_enabled() and any(t._requires_grad or not t._is_leaf for t in (a, b))):
        # outside the tape (the Functions' own forward and backward): the compiled kernel
        return _COMPILED[(rank, transpose_a, transpose_b)](a, b)
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
