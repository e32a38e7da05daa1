"""The data pipeline's randomness comes from the shim's generators (mindnlp_shim.torch.random), so that
`torch.manual_seed`, a sampler's `generator=`, and a restored RNG state decide the sample order exactly
as they do in PyTorch."""
import numpy as np

_INT64_BOUND = 2 ** 63 - 1


def numpy_rng(generator=None):
    """The NumPy generator behind a `torch.Generator` (None: the default generator); drawing advances it."""
    from ... import random

    return random._numpy_rng(generator)


def draw_seed(generator=None):
    """One int64 seed drawn from `generator` (torch's `torch.empty((), dtype=torch.int64).random_()`)."""
    return int(numpy_rng(generator).integers(0, _INT64_BOUND, dtype=np.int64))


def seeded_generator(seed):
    """A fresh `torch.Generator` seeded with `seed`."""
    from ... import random

    return random.Generator().manual_seed(seed)
