"""The CPU generator as PyTorch's: a Mersenne Twister with torch's seeding and state layout (`mt19937`), and
each distribution drawn the way torch's CPU kernels draw it (`sampling`), with the float32 math those kernels
use (`vector_math`). Same seed, same numbers as real PyTorch; a state saved by either one restores in the other.
"""
from .mt19937 import MT19937, STATE_BYTES  # noqa: F401
