"""torch.distributed.algorithms.ddp_comm_hooks: named so accelerate can build its table of hooks; registering
one raises (DistributedDataParallel here averages each bucket with one plain all-reduce)."""
from . import default_hooks, powerSGD_hook  # noqa: F401
