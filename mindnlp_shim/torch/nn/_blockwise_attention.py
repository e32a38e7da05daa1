"""Scaled dot-product attention over blocks of query rows, for inputs whose score tensor would be large.

Written as one expression, attention holds (*batch, L, S) scores, the mask added to them, the softmax and the
dropped-out weights at once; for a MiniLM-sized BERT at batch 8 x 2048 tokens that is 1.6 GB per tensor and a
forward peaked at 12 GB (real torch: under 1 GB, its CPU kernel works blockwise). Here the query rows are taken
`rows` at a time, so only one block's (*batch, rows, S) intermediates exist at any moment. Each block still sees
every key of its rows, so its softmax is the whole row's softmax: the result is the same function, not an
approximation.

Masks are never expanded to the score shape: a boolean or additive mask is cut into row blocks of its own
(broadcastable) shape and turned into an additive block only there; the causal mask is built per block.

Under autograd it is one Function that keeps q, k, v and the mask (O(L) memory, as the inputs themselves) and, in
the backward, recomputes each block's weights and applies the softmax gradient block by block. Dropout draws a
block's keep mask as the block is computed; the backward redraws the same masks by replaying the random
generator from its saved state, so nothing of size L x S is kept. (That redraw is the price: a MiniLM-sized
forward + backward in train mode at 8 x 512 and 16 x 256 tokens measured 4% slower than the one-expression
Function of `_lean_backward`, which keeps its dropout mask; the forward alone is as fast or faster.)
"""
import numpy as np
import mindspore
from mindspore import ops

from .. import _dtype
from .._ops.broadcast import expanded
from .._ops.dense import dense_copy
from .._ops.softmax_kernel import softmax_kernel
from .._ops.sums import sum_last_axis
from ..autograd.function import Function, first_order_only
from ._lean_backward import _bmm, _bmm_a_transposed  # (matrix_products: no memory kept per call)
from ._lean_backward import bmm_b_transposed as _bmm_b_transposed

# Attention takes this path when its scores have at least this many elements (32 MB of float32): shorter inputs
# (the MiniLM Trainer step's 16 x 12 x 128 x 128 is 3 M) keep the one-expression path, lean enough at their size.
BLOCKWISE_FROM_ELEMENTS = 1 << 23
# Elements of one block's scores (8 MB of float32). A forward with dropout holds about 6 block-sized tensors at
# once and its backward about 14 (measured: 51 and 113 MB at 1 x 12 x 2048 x 32, twice that with 16 MB blocks):
# small next to a long input's activations, and each BatchMatMul still has real work per launch.
BLOCK_ELEMENTS = 1 << 21

_NEG_INF = float("-inf")


def score_elements(query, key):
    count = key.shape[-2]
    for d in query.shape[:-1]:
        count *= d
    return count


def applies(query, key, value, attn_mask):
    """Whether this path serves these inputs: scores of at least `BLOCKWISE_FROM_ELEMENTS` elements, q, k and v
    with the same batch dimensions (BatchMatMul does not broadcast) in float32 or float64, and a mask that needs
    no gradient."""
    return (query.ndim >= 3 and score_elements(query, key) >= BLOCKWISE_FROM_ELEMENTS
            and tuple(query.shape[:-2]) == tuple(key.shape[:-2]) == tuple(value.shape[:-2])
            and query._dtype in (mindspore.float32, mindspore.float64)
            and key._dtype == query._dtype and value._dtype == query._dtype
            and (attn_mask is None or not attn_mask.requires_grad))


class _Plan:
    """How the inputs are cut into blocks: `entries` of the first dimension (the batch) at a time and, within
    them, `rows` query rows at a time, so that a block's scores have at most BLOCK_ELEMENTS elements. Rows are
    taken as many as fit (the key and value gradients are summed over row blocks: few, long row blocks keep
    that sum cheap); whole batch entries are grouped only when all their rows fit."""

    def __init__(self, query, key, attn_mask, is_causal, dropout_p):
        self.length, self.source_length = query.shape[-2], key.shape[-2]
        self.batch = query.shape[0]
        per_entry_row = max(1, score_elements(query, key) // max(1, self.batch * self.length))
        self.rows = max(1, min(self.length, BLOCK_ELEMENTS // per_entry_row))
        per_entry = per_entry_row * self.length
        self.entries = max(1, min(self.batch, BLOCK_ELEMENTS // per_entry)) if self.rows == self.length else 1
        self.row_starts = list(range(0, self.length, self.rows))
        self.entry_starts = list(range(0, self.batch, self.entries))
        self.ndim = query.ndim
        self.dtype = query._dtype
        self.is_causal = is_causal
        self.dropout_p = dropout_p
        self.keep_scale = 1.0 / (1.0 - dropout_p) if dropout_p > 0.0 else 1.0
        self.mask_blocks = self._split_mask(attn_mask)
        self.attended = self._attended_rows(attn_mask)
        # (a tensor: MindSpore would round a Python float operand to float32, and float64's minimum to -inf)
        self.floor = (mindspore.Tensor(float(_dtype.finfo(self.dtype).min), self.dtype)
                      if self.attended is not None else None)
        self.rng_state = None

    def split_entries(self, tensor):
        if len(self.entry_starts) == 1 or tensor.shape[0] == 1:
            return [tensor] * len(self.entry_starts)
        return list(ops.split(tensor, self.entries, axis=0))

    def split_rows(self, tensor):
        if len(self.row_starts) == 1 or tensor.shape[-2] == 1:
            return [tensor] * len(self.row_starts)
        return list(ops.split(tensor, self.rows, axis=tensor.ndim - 2))

    def _at_rank(self, tensor):
        if tensor.ndim < self.ndim:
            tensor = ops.reshape(tensor, (1,) * (self.ndim - tensor.ndim) + tuple(tensor.shape))
        return tensor

    def _split_mask(self, attn_mask):
        """The mask at query's rank, cut like the queries where it has more than one entry or row (a size-1
        dimension is shared by every block): a list per entry block of lists per row block."""
        if attn_mask is None:
            return None
        if attn_mask._dtype != mindspore.bool_ and attn_mask._dtype != self.dtype:
            attn_mask = ops.cast(attn_mask, self.dtype)
        attn_mask = dense_copy(self._at_rank(attn_mask))
        return [self.split_rows(entry) for entry in self.split_entries(attn_mask)]

    def _attended_rows(self, attn_mask):
        """A 0/1 factor per query row, 0 where the mask hides every key (torch gives such rows zeros; MindSpore's
        softmax must not see an all -inf row: it corrupts the rows after it), or None when there is no such row."""
        if attn_mask is None:
            return None
        if attn_mask._dtype == mindspore.bool_:
            dead = ops.logical_not(ops.any(attn_mask, -1, keep_dims=True))
        else:
            dead = ops.all(ops.isneginf(attn_mask), -1, keep_dims=True)
        if not bool(ops.any(dead)):
            return None
        factor = ops.cast(ops.logical_not(self._at_rank(dead)), self.dtype)
        return factor

    def additive_block(self, entry_index, row_index):
        """The block's mask as an additive tensor of its own (broadcastable) shape, or None."""
        if self.is_causal:
            start = self.row_starts[row_index]
            rows = np.arange(start, min(start + self.rows, self.length))[:, None]
            hidden = np.arange(self.source_length)[None, :] > rows
            return mindspore.Tensor.from_numpy(np.where(hidden, _NEG_INF, 0.0).astype(_dtype_np(self.dtype)))
        if self.mask_blocks is None:
            return None
        block = self.mask_blocks[entry_index][row_index]
        if block._dtype == mindspore.bool_:
            # (0 where True: filling a -inf block needs no logical_not, a slow CPU kernel on bool)
            return ops.masked_fill(ops.full(block.shape, _NEG_INF, dtype=self.dtype), block, 0.0)
        return block

    def start_dropout(self, generator_np):
        """Remember the generator's state before the first block's draw, so the backward can draw again."""
        self.rng_state = generator_np.bit_generator.state

    def replay_generator(self, generator_np):
        bit_generator = type(generator_np.bit_generator)()
        bit_generator.state = self.rng_state
        return np.random.Generator(bit_generator)


def _dtype_np(dtype):
    return np.float64 if dtype == mindspore.float64 else np.float32


def _block_weights(plan, entry_index, row_index, scaled_query_block, key):
    """softmax(q_block k^T + mask_block) over every key: the block's rows of the attention weights."""
    scores = _bmm_b_transposed(scaled_query_block, key)
    additive = plan.additive_block(entry_index, row_index)
    if additive is not None:
        scores = ops.add(scores, expanded(additive, scores._shape))
    if plan.floor is not None:
        scores = ops.maximum(scores, plan.floor)
    return softmax_kernel(scores, -1)


def _dropout_factor(plan, rng, shape):
    """The block's dropout multiplier: keep_scale with probability 1 - p, else 0 (one uniform draw per weight)."""
    from .functional import _keep_bools_from

    keep = _keep_bools_from(rng, shape, plan.dropout_p)
    return mindspore.Tensor.from_numpy(np.multiply(keep, plan.keep_scale, dtype=_dtype_np(plan.dtype)))


def _join(blocks, axis):
    return blocks[0] if len(blocks) == 1 else ops.cat(blocks, axis=axis)


def _with_attended(plan, tensor):
    return tensor if plan.attended is None else ops.mul(tensor, expanded(plan.attended, tensor._shape))


def _forward(plan, query, key, value, scale, rng):
    outputs = []
    for e, (query_entries, key_entries, value_entries) in enumerate(zip(
            plan.split_entries(query), plan.split_entries(key), plan.split_entries(value))):
        for r, query_block in enumerate(plan.split_rows(query_entries)):
            # scaled per block: a dense block for BatchMatMul, and no scaled copy of the whole query
            weights = _block_weights(plan, e, r, ops.mul(query_block, scale), key_entries)
            if rng is not None:
                weights = ops.mul(weights, _dropout_factor(plan, rng, weights._shape))
            outputs.append(_bmm(weights, value_entries))
    rows_per_entry_block = len(plan.row_starts)
    out = _join([_join(outputs[i:i + rows_per_entry_block], plan.ndim - 2)
                 for i in range(0, len(outputs), rows_per_entry_block)], 0)
    return _with_attended(plan, out)


class _BlockwiseAttention(Function):
    @staticmethod
    def forward(ctx, query, key, value, scale, plan, generator_np):
        # k and v dense (BatchMatMul is several times faster on dense operands); q is read block by block
        key, value = dense_copy(key), dense_copy(value)
        ctx.save_for_backward(query, key, value)
        ctx.scale, ctx.plan = scale, plan
        ctx.generator_np = generator_np
        return _forward(plan, query, key, value, scale, generator_np if plan.dropout_p > 0.0 else None)

    @staticmethod
    @first_order_only  # recomputes the attention weights block by block, unrecorded
    def backward(ctx, grad):
        query, key, value = ctx.saved_tensors
        plan = ctx.plan
        grad = _with_attended(plan, dense_copy(grad))
        rng = plan.replay_generator(ctx.generator_np) if plan.dropout_p > 0.0 else None
        grad_query, grad_key, grad_value = [], [], []
        for e, (query_entries, key_entries, value_entries, grad_entries) in enumerate(zip(
                plan.split_entries(query), plan.split_entries(key), plan.split_entries(value),
                plan.split_entries(grad))):
            entry_grad_key = entry_grad_value = None
            for r, (query_block, grad_block) in enumerate(zip(plan.split_rows(query_entries),
                                                              plan.split_rows(grad_entries))):
                query_block = ops.mul(query_block, ctx.scale)
                weights = _block_weights(plan, e, r, query_block, key_entries)
                grad_weights = _bmm_b_transposed(grad_block, value_entries)  # gradient of the dropped-out weights
                if rng is None:
                    dropped = weights
                else:
                    factor = _dropout_factor(plan, rng, weights._shape)
                    dropped, grad_weights = ops.mul(weights, factor), ops.mul(grad_weights, factor)
                block_grad_value = _bmm_a_transposed(dropped, grad_block)
                # softmax backward on whole rows: w * (g - sum(g * w))
                row_sums = sum_last_axis(ops.mul(grad_weights, weights))
                grad_scores = ops.mul(weights, ops.sub(grad_weights, expanded(row_sums, weights._shape)))
                grad_query.append(ops.mul(_bmm(grad_scores, key_entries), ctx.scale))
                block_grad_key = _bmm_a_transposed(grad_scores, query_block)
                entry_grad_key = block_grad_key if entry_grad_key is None else ops.add(entry_grad_key, block_grad_key)
                entry_grad_value = (block_grad_value if entry_grad_value is None
                                    else ops.add(entry_grad_value, block_grad_value))
            grad_key.append(entry_grad_key)
            grad_value.append(entry_grad_value)
        rows_per_entry_block = len(plan.row_starts)
        grad_query = _join([_join(grad_query[i:i + rows_per_entry_block], plan.ndim - 2)
                            for i in range(0, len(grad_query), rows_per_entry_block)], 0)
        return grad_query, _join(grad_key, 0), _join(grad_value, 0), None, None, None


def attention(query, key, value, attn_mask, is_causal, scale, dropout_p, generator_np, records):
    """softmax(q k^T * scale + mask) v with dropout `dropout_p` on the weights, block by block (see the module's
    reason). `scale` is a Python float (or a 0-d tensor for float64); `generator_np` the NumPy generator dropout
    draws from; `records` whether autograd records this call."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: attn_mask and is_causal cannot both be set")
    plan = _Plan(query, key, attn_mask, is_causal, dropout_p)
    if dropout_p > 0.0:
        plan.start_dropout(generator_np)
    if records:
        return _BlockwiseAttention.apply(query, key, value, scale, plan, generator_np)
    return _forward(plan, query, dense_copy(key), dense_copy(value), scale, generator_np if dropout_p > 0.0 else None)
