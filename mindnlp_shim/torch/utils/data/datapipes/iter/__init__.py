"""torch.utils.data.datapipes.iter: only the names upstream libraries check against (see `combinatorics`)."""
from .combinatorics import ShufflerIterDataPipe  # noqa: F401
