"""Gradient accumulation into leaves done by the shim, on the MindSpore releases that cannot be left to do it.

MindSpore 2.7.x and 2.8.0 corrupt the heap when, with synchronous dispatch (which the shim turns on for speed and
for errors raised at the op that caused them), the tape adds a new gradient into a leaf's existing `.grad`: the
process aborts later, at exit at the latest ("malloc_consolidate(): unaligned fastbin chunk detected"). On those
releases every tensor that becomes a leaf requiring grad through the shim is remembered (weakly), a backward
starts with no such leaf holding a gradient, and each gradient held before is added back afterwards.
"""
import weakref

from mindspore import ops

from .. import _mindspore as _ms

ACCUMULATES_ITSELF = _ms.LEAF_ACCUMULATION_CORRUPTS_HEAP
_leaves = {}  # id(tensor) -> weak reference, for the leaves marked while they live


def mark(tensor):
    """Remember `tensor`, a leaf that now requires grad (only where the shim accumulates itself)."""
    if ACCUMULATES_ITSELF and id(tensor) not in _leaves:
        key = id(tensor)
        _leaves[key] = weakref.ref(tensor, lambda _, key=key: _leaves.pop(key, None))


def take_grads():
    """Each remembered leaf's gradient, removed from the leaf: [(leaf, grad)] (empty where MindSpore accumulates)."""
    if not ACCUMULATES_ITSELF:
        return ()
    held = []
    for ref in list(_leaves.values()):
        leaf = ref()
        if leaf is not None and leaf._grad is not None:
            held.append((leaf, leaf._grad))
            leaf._grad = None
    return held


def give_back(held):
    """Add each gradient taken by `take_grads` to what the backward left in its leaf (torch's accumulation)."""
    for leaf, before in held:
        new = leaf._grad
        leaf._grad = before if new is None else ops.add(before, new)
