"""Gradient accumulation into leaves, done by the shim rather than by MindSpore's tape.

MindSpore's own accumulation of a new gradient into a leaf's existing `.grad` is wrong in two ways, measured:
- it reads a non-contiguous new gradient as if it were contiguous (2.8-2.10): a leaf reached by `linear` and then
  by a strided view `x[:, ::2]` got the view's gradient at permuted places, silently;
- with synchronous dispatch (which the shim turns on for speed and for errors raised at the op that caused them)
  it corrupts the heap (2.7.x-2.8.0): the process aborts later, at exit at the latest ("malloc_consolidate():
  unaligned fastbin chunk detected").
So every tensor that becomes a leaf requiring grad through the shim is remembered (weakly), a backward starts with
no such leaf holding a gradient, and each gradient held before is added back afterwards, as torch accumulates.
"""
import weakref

from mindspore import ops

_leaves = {}  # id(tensor) -> weak reference, for the leaves marked while they live


def mark(tensor):
    """Remember `tensor`, a leaf that now requires grad."""
    if id(tensor) not in _leaves:
        key = id(tensor)
        _leaves[key] = weakref.ref(tensor, lambda _, key=key: _leaves.pop(key, None))


def take_grads():
    """Each remembered leaf's gradient, removed from the leaf: [(leaf, grad)]."""
    held = []
    for ref in list(_leaves.values()):
        leaf = ref()
        if leaf is not None and leaf._grad is not None:
            held.append((leaf, leaf._grad))
            leaf._grad = None
    return held


def give_back(held):
    """Add each gradient taken by `take_grads` to what the backward left in its leaf (torch's accumulation); a
    contiguous leaf's new gradient is made contiguous, as torch's layout rule for `.grad` has it (MindSpore keeps
    the gradient as the last backward op left it: that of `x.t()` came out transposed)."""
    for leaf, before in held:
        new = leaf._grad
        leaf._grad = before if new is None else ops.add(before, new)
    for ref in list(_leaves.values()):
        leaf = ref()
        if leaf is not None:
            grad = leaf._grad
            if grad is not None and not grad.is_contiguous() and leaf.is_contiguous():
                leaf._grad = grad.contiguous()
