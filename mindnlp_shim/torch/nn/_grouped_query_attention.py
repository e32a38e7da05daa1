"""Grouped-query attention (`enable_gqa=True`) without repeated copies of the keys and values.

Torch's definition repeats each key/value head for the `groups` query heads that share it. The query heads of
one group are instead stacked along the query-length axis, (B, Hkv * groups, L, E) -> (B, Hkv, groups * L, E),
so one batched product against the shared head serves them all: every output row is the same softmax of the
same dot products. In a decoding step this replaces six kernels per layer (expand, tile and reshape of both
keys and values) by two reshapes of the small query and output. Used only when nothing is recorded and there
is no dropout, so gradients and random draws stay those of the plain path.
"""
from mindspore import ops


def applies(query, key, value, dropout_p, records):
    if records or dropout_p != 0.0 or query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        return False
    heads, kv_heads = query._shape[1], key._shape[1]
    return (kv_heads != heads and kv_heads > 0 and heads % kv_heads == 0 and value._shape[1] == kv_heads
            and query._shape[0] == key._shape[0] == value._shape[0])


def attention(plain_attention, query, key, value, attn_mask, causal_mask, scale):
    """`plain_attention(q, k, v, mask, dropout_p, is_causal, scale)` on the stacked query heads. `causal_mask`
    is the (L, S) additive causal mask when is_causal was asked for (it is folded like any other mask)."""
    batch, heads, length, size = query._shape
    kv_heads = key._shape[1]
    groups = heads // kv_heads
    mask = causal_mask if causal_mask is not None else attn_mask
    if mask is not None:
        mask = _folded_mask(mask, kv_heads, groups, length)
    stacked = ops.reshape(query, (batch, kv_heads, groups * length, size))
    out = plain_attention(stacked, key, value, mask, 0.0, False, scale)
    return ops.reshape(out, (batch, heads, length, out._shape[-1]))


def _folded_mask(mask, kv_heads, groups, length):
    """A mask broadcastable to (B, H, L, S) rearranged for the stacked query rows: (B', Hkv or 1, groups*L, S)."""
    shape = (1,) * (4 - mask.ndim) + tuple(mask._shape)
    mask_batch, mask_heads, mask_length, keys = shape
    if mask_heads == 1 and mask_length == 1:
        return ops.reshape(mask, shape)  # the same for every query row: broadcasts as it is
    mask_kv_heads = 1 if mask_heads == 1 else kv_heads
    grouped = ops.reshape(mask, (mask_batch, mask_kv_heads, 1 if mask_heads == 1 else groups, mask_length, keys))
    grouped = ops.broadcast_to(grouped, (mask_batch, mask_kv_heads, groups, length, keys))
    return ops.reshape(grouped, (mask_batch, mask_kv_heads, groups * length, keys))
