"""Random number generation: torch's CPU generator (a Mersenne Twister with torch's seeding and state bytes,
`torch/_generator/`), the one source of randomness of the shim's host-side random ops.

Every random op draws here, the way torch's CPU kernels draw: after `torch.manual_seed(s)` the shim produces
real PyTorch's numbers, and `get_rng_state()`/`set_rng_state()` exchange torch's 5056-byte state both ways, so
a checkpoint's RNG state written by either one resumes in the other. MindSpore's device-side generators (GPU,
Ascend kernels) are not this generator; see docs/random.md.
"""
import contextlib
import os

import numpy as np
import mindspore

from ._generator import MT19937, STATE_BYTES


class Generator:
    """torch.Generator: `manual_seed`, `seed`, `initial_seed`, `get_state`/`set_state` (torch's byte layout)."""

    def __init__(self, device="cpu"):
        from ._device import device as _device

        self.device = device if isinstance(device, _device) else _device(device)
        self._engine = MT19937()

    def manual_seed(self, seed):
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise RuntimeError(f"Overflow when unpacking long long: manual_seed expects a 64-bit seed, got {seed}")
        self._engine.seed(seed)
        return self

    def seed(self):
        """Seed from the OS entropy source (63 bits, as torch's non-deterministic seeds are) and return it."""
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self._engine.seed(s)
        return s

    def initial_seed(self):
        return self._engine.initial_seed

    def get_state(self):
        return mindspore.Tensor(self._engine.get_state_bytes())

    def set_state(self, new_state):
        data = new_state.asnumpy() if hasattr(new_state, "asnumpy") else np.asarray(new_state)
        if data.dtype != np.uint8:
            raise TypeError(f"expected a torch.ByteTensor of {STATE_BYTES} bytes as the RNG state, "
                            f"got a tensor of {data.dtype}")
        self._engine.set_state_bytes(data.tobytes())
        return self

    def __reduce__(self):
        raise TypeError("torch.Generator cannot be pickled; save generator.get_state() instead")


default_generator = Generator()


def _engine(generator=None):
    """The Mersenne Twister behind `generator` (or the default generator): what every sampler draws from."""
    return (generator or default_generator)._engine


def _numpy_rng(generator=None):
    """A NumPy Generator drawing from the same twister, for samplers torch has no CPU kernel for here
    (gamma, binomial, Poisson): seeded and restored with the generator, though not torch's own draws."""
    engine = _engine(generator)
    twister = engine.bit_generator  # (at the generator's position: outputs drawn ahead are given back)
    if engine.numpy_view is None:
        engine.numpy_view = np.random.Generator(twister)
    return engine.numpy_view


def manual_seed(seed):
    default_generator.manual_seed(seed)
    return default_generator


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
