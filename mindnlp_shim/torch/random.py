"""Random number generation: torch's Generator API over NumPy's PCG64, the one source of randomness.

MindSpore's own CPU random kernels cannot be replayed from a saved state, but checkpoint resume and
recomputation need exactly that. So every random op of the shim draws from a `Generator` here: its state
is saved and restored byte for byte (`get_rng_state`/`set_rng_state`), and `manual_seed(s)` reproduces runs.
"""
import contextlib
import time

import numpy as np
import mindspore

_STATE_BYTES = 48  # 16 state + 16 increment + 4 has_uint32 + 4 uinteger + 8 initial seed


class ForeignRNGStateError(RuntimeError):
    """A generator state that was not produced by this module (e.g. real PyTorch's Mersenne-Twister state)."""


class Generator:
    def __init__(self, device="cpu"):
        from ._device import device as _device

        self.device = device if isinstance(device, _device) else _device(device)
        self._seed = 67280421310721  # torch's default seed
        self._np = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        self._seed = seed
        self._np = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self):
        s = int(time.time_ns()) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        st = self._np.bit_generator.state
        raw = (st["state"]["state"].to_bytes(16, "little") + st["state"]["inc"].to_bytes(16, "little")
               + int(st["has_uint32"]).to_bytes(4, "little") + int(st["uinteger"]).to_bytes(4, "little")
               + self._seed.to_bytes(8, "little"))
        return mindspore.Tensor(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state):
        raw = bytes(np.asarray(new_state.asnumpy() if hasattr(new_state, "asnumpy") else new_state,
                               dtype=np.uint8).tobytes())
        if len(raw) != _STATE_BYTES:
            raise ForeignRNGStateError(f"Generator.set_state: expected a ByteTensor of {_STATE_BYTES} bytes "
                                       f"produced by get_state(), got {len(raw)} bytes (states of other RNG "
                                       f"implementations are not interchangeable)")
        bitgen = np.random.PCG64()
        bitgen.state = {"bit_generator": "PCG64",
                        "state": {"state": int.from_bytes(raw[0:16], "little"),
                                  "inc": int.from_bytes(raw[16:32], "little")},
                        "has_uint32": int.from_bytes(raw[32:36], "little"),
                        "uinteger": int.from_bytes(raw[36:40], "little")}
        self._np = np.random.Generator(bitgen)
        self._seed = int.from_bytes(raw[40:48], "little")
        return self

    def __reduce__(self):
        raise TypeError("torch.Generator cannot be pickled; save generator.get_state() instead")


default_generator = Generator()


def _numpy_rng(generator=None):
    """The NumPy generator behind `generator` (or the default one): the bridge every random op uses."""
    return (generator or default_generator)._np


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
