"""The additive form of the last attention mask, reused while a mask with the same values comes back.

A transformer hands one mask to every layer. Building its additive form (a boolean mask becomes 0/-inf; query
rows that see no key are found, which reads a flag on the host) takes about eleven kernels and one host read
per layer: on short inputs more than the attention itself. Here the mask's values are read on the host (a
zero-copy view of a dense CPU tensor) and compared with a copy kept from the last call, so a mask written in
place in between is never served stale. Only small masks that do not require grad take part, on the CPU.
"""
import numpy as np

from .._runtime import ON_CPU

MAX_ELEMENTS = 1 << 16  # the compare and the kept copy stay far cheaper than the kernels they replace

_last = None  # (query dtype, mask dtype, host copy of the mask's values, the built result)


def additive_mask(attn_mask, query_dtype, build):
    """`build()` (the additive mask and the per-row factor), or the result kept for the same mask values."""
    global _last
    if not ON_CPU or attn_mask.requires_grad or attn_mask.numel() > MAX_ELEMENTS:
        return build()
    values = attn_mask.asnumpy()
    last = _last
    if (last is not None and last[0] == query_dtype and last[1] == attn_mask._dtype
            and last[2].shape == values.shape and np.array_equal(last[2], values)):
        return last[3]
    result = build()
    _last = (query_dtype, attn_mask._dtype, values.copy(), result)
    return result
