"""The data pipeline's randomness, drawn as torch's data utilities draw it (from mindnlp_shim.torch.random), so
that `torch.manual_seed`, a sampler's `generator=`, and a restored RNG state give real PyTorch's sample order."""
import numpy as np

from ..._generator import sampling


def _engine(generator):
    from ... import random

    return random._engine(generator)


def numpy_rng(generator=None):
    """A NumPy Generator over the twister behind a `torch.Generator` (None: the default generator): seeded and
    restored with it, but its draws are NumPy's, not torch's (use `randperm`/`randint` for torch's)."""
    from ... import random

    return random._numpy_rng(generator)


def draw_seed(generator=None):
    """One int64 seed drawn from `generator`: torch's `torch.empty((), dtype=torch.int64).random_()`."""
    return int(sampling.random_full(_engine(generator), 1, "int64")[0])


def randperm(n, generator=None):
    """torch.randperm(n, generator=generator) as a list."""
    return sampling.randperm(_engine(generator), int(n)).tolist()


def randint(high, count, generator=None):
    """torch.randint(high=high, size=(count,), generator=generator) as a list."""
    if count == 0:
        return []
    return sampling.random_from_to(_engine(generator), count, 0, high).astype(np.int64).tolist()


def seeded_generator(seed):
    """A fresh `torch.Generator` seeded with `seed`."""
    from ... import random

    return random.Generator().manual_seed(seed)
