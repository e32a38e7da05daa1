"""The Mersenne Twister (MT19937) that drives torch's CPU generator, and torch's 5056-byte state layout.

NumPy's `np.random.MT19937` is the engine: it is the same twister, so given the same 624-word key it yields
the same 32-bit outputs, fast. What is torch's own lives here: seeding (only the seed's low 32 bits reach the
twister, through the reference `init_genrand` recurrence), 64-bit draws (first output high, second low), and
the state bytes `torch.get_rng_state()` returns, measured from real torch 2.13:

    offset  size  field
    0       8     initial seed (uint64)
    8       4     left: outputs before the next twist + 1 (int32; 1 means "twist on the next draw")
    12      4     seeded flag (int32)
    16      8     next: index of the next key word (uint64)
    24      4992  the key: 624 words, each stored as uint64
    5016    8     (unused: 0)
    5024    8     cached second sample of the double normal sampler
    5032    8     (unused: 0)
    5040    4     cached double normal valid (int32)
    5044    4     cached float normal sample (float32)
    5048    1     cached float normal valid (bool), then 7 bytes of padding
"""
import collections
import concurrent.futures
import threading

import numpy as np

STATE_BYTES = 5056
_KEY_WORDS = 624
_KEY_AT = 24
_TAIL_AT = _KEY_AT + 8 * _KEY_WORDS
DEFAULT_SEED = 67280421310721  # torch's default_generator seed


def seeded_key(seed):
    """The 624-word key `init_genrand(seed & 0xffffffff)` builds."""
    key = np.empty(_KEY_WORDS, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    key[0] = x
    for i in range(1, _KEY_WORDS):
        x = (1812433253 * (x ^ (x >> 30)) + i) & 0xFFFFFFFF
        key[i] = x
    return key


_drawing_thread = None
_drawing_thread_lock = threading.Lock()


def _background():
    """One worker thread for drawing ahead (NumPy releases the GIL while it fills an array)."""
    global _drawing_thread
    with _drawing_thread_lock:
        if _drawing_thread is None:
            _drawing_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="torch-rng-ahead")
        return _drawing_thread


class MT19937:
    """torch's CPU generator state: the twister, the initial seed and the normal sampler's cached sample.

    Large consumers (dropout masks: two outputs per element) may have the next outputs drawn ahead in a
    background thread while the model computes (`draw_ahead`); `take` hands them out in order first. Whoever
    reads `bit_generator` gets the twister at the generator's true position: outputs drawn ahead and not yet
    used are given back (the twister is set to the state they started from, advanced by those used)."""

    def __init__(self, seed=DEFAULT_SEED):
        self._twister = np.random.MT19937()
        self._twister_view = np.random.Generator(self._twister)  # (full-range uint32 draws are the raw outputs)
        self._ahead = collections.deque()  # [start state, outputs (uint32), how many are used], oldest first
        self._pending = None  # the background draw in progress
        self.numpy_view = None  # a NumPy Generator over the twister for samplers torch has no kernel for here
        self.seed(seed)

    @property
    def bit_generator(self):
        """The twister at the generator's current position."""
        self._settle()
        return self._twister

    def _settle(self):
        if self._pending is not None:
            self._pending.result()
            self._pending = None
        if self._ahead:
            start, _, used = self._ahead[0]
            self._twister.state = start
            if used:
                self._twister.random_raw(used, output=False)
            self._ahead.clear()

    def seed(self, seed):
        seed = int(seed) % (1 << 64)  # torch keeps a negative seed as its two's complement
        self._settle()
        self.initial_seed = seed
        self._seeded_key = seeded_key(seed)
        self._twister.state = {"bit_generator": "MT19937", "state": {"key": self._seeded_key, "pos": _KEY_WORDS}}
        self.next_double_normal = None
        self.next_float_normal = None

    # ------------------------------------------------------------ draws
    def take(self, n):
        """The next n outputs as a uint32 array: those drawn ahead first, then fresh ones."""
        if self._pending is not None:
            self._pending.result()
            self._pending = None
        pieces = []
        while n and self._ahead:
            entry = self._ahead[0]
            outputs, used = entry[1], entry[2]
            k = min(n, outputs.size - used)
            pieces.append(outputs[used:used + k])
            n -= k
            entry[2] = used + k
            if entry[2] == outputs.size:
                self._ahead.popleft()
        if n or not pieces:
            pieces.append(self._twister_view.integers(0, 1 << 32, size=n, dtype=np.uint32))
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    def draw_ahead(self, n):
        """Start drawing the n outputs after those already drawn, in the background (at most one draw at a time;
        the twister is only touched by that draw until the next `take` or `bit_generator` waits for it)."""
        if self._pending is not None or n <= 0:
            return

        def draw():
            start = self._twister.state
            self._ahead.append([start, self._twister_view.integers(0, 1 << 32, size=n, dtype=np.uint32), 0])

        self._pending = _background().submit(draw)

    def raw32(self, n):
        """n 32-bit outputs, as uint64."""
        return self.take(n).astype(np.uint64)

    def raw64(self, n):
        """n 64-bit values, each from two outputs: the first the high word, the second the low word."""
        pairs = self.raw32(2 * n)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]

    # ------------------------------------------------------------ torch's state bytes
    def get_state_bytes(self):
        state = self.bit_generator.state["state"]
        pos = int(state["pos"])
        if pos >= _KEY_WORDS:
            # torch reports next = 0 before the first twist of a fresh key, 624 after a full key was used
            untouched = self._seeded_key is not None and np.array_equal(state["key"], self._seeded_key)
            left, nxt = 1, 0 if untouched else _KEY_WORDS
        else:
            left, nxt = _KEY_WORDS + 1 - pos, pos
        raw = bytearray(STATE_BYTES)
        head = np.array([self.initial_seed], dtype=np.uint64).tobytes() + np.array([left, 1], dtype=np.int32).tobytes()
        raw[0:16] = head
        raw[16:24] = np.array([nxt], dtype=np.uint64).tobytes()
        raw[_KEY_AT:_TAIL_AT] = state["key"].astype(np.uint64).tobytes()
        if self.next_double_normal is not None:
            raw[_TAIL_AT + 8:_TAIL_AT + 16] = np.array([self.next_double_normal], dtype=np.float64).tobytes()
            raw[_TAIL_AT + 24:_TAIL_AT + 28] = np.array([1], dtype=np.int32).tobytes()
        if self.next_float_normal is not None:
            raw[_TAIL_AT + 28:_TAIL_AT + 32] = np.array([self.next_float_normal], dtype=np.float32).tobytes()
            raw[_TAIL_AT + 32] = 1
        return np.frombuffer(bytes(raw), dtype=np.uint8).copy()

    def set_state_bytes(self, raw):
        raw = bytes(raw)
        self._settle()
        if len(raw) != STATE_BYTES:
            raise RuntimeError(f"Expected either a THGeneratorState of size {STATE_BYTES} or a CPUGeneratorImplState "
                               f"of size {STATE_BYTES}, but found the input RNG state size to be {len(raw)}")
        seed = int(np.frombuffer(raw[0:8], dtype=np.uint64)[0])
        left = int(np.frombuffer(raw[8:12], dtype=np.int32)[0])
        nxt = int(np.frombuffer(raw[16:24], dtype=np.uint64)[0])
        key = np.frombuffer(raw[_KEY_AT:_TAIL_AT], dtype=np.uint64)
        if np.any(key > 0xFFFFFFFF) or not (left == 1 or 1 <= nxt < _KEY_WORDS):
            raise RuntimeError("set_rng_state: the state is not a Mersenne Twister state (key words over 32 bits "
                               "or a position outside the key)")
        key = key.astype(np.uint32)
        self._twister.state = {"bit_generator": "MT19937",
                               "state": {"key": key, "pos": _KEY_WORDS if left == 1 else nxt}}
        self.initial_seed = seed
        self._seeded_key = key if left == 1 and nxt == 0 else None
        double_valid = int(np.frombuffer(raw[_TAIL_AT + 24:_TAIL_AT + 28], dtype=np.int32)[0])
        self.next_double_normal = (float(np.frombuffer(raw[_TAIL_AT + 8:_TAIL_AT + 16], dtype=np.float64)[0])
                                   if double_valid else None)
        self.next_float_normal = (float(np.frombuffer(raw[_TAIL_AT + 28:_TAIL_AT + 32], dtype=np.float32)[0])
                                  if raw[_TAIL_AT + 32] else None)
