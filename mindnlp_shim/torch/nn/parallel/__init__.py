"""torch.nn.parallel: DistributedDataParallel (one process per device, gradients averaged after backward) and
DataParallel (one device only)."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
