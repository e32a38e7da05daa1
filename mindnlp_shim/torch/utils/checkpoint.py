"""torch.utils.checkpoint.

`checkpoint(fn, *args)` returns fn's outputs with the gradients fn would give. This version runs `fn` once and
keeps its activations (the same results as recomputation, without its memory saving).
"""
import contextlib


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    for fn in (functions if isinstance(functions, (list, tuple)) else list(functions.children())):
        input = fn(input)
    return input


@contextlib.contextmanager
def _noop_context():
    yield


def create_selective_checkpoint_contexts(*args, **kwargs):
    return _noop_context(), _noop_context()
