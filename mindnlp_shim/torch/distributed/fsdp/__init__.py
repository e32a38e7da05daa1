"""torch.distributed.fsdp: FullyShardedDataParallel (FSDP1) with every parameter kept whole on every rank
(docs/distributed.md); FSDP2's `fully_shard` and its types are not provided."""
from ... import _stand_ins
from . import api, fully_sharded_data_parallel, wrap  # noqa: F401
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,  # noqa: F401
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision, OptimStateDictConfig,
                  OptimStateKeyType, ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictSettings, StateDictType)
from .fully_sharded_data_parallel import FullyShardedDataParallel  # noqa: F401

CPUOffloadPolicy = _stand_ins.placeholder_type("torch.distributed.fsdp.CPUOffloadPolicy")
MixedPrecisionPolicy = _stand_ins.placeholder_type("torch.distributed.fsdp.MixedPrecisionPolicy")
FSDPModule = _stand_ins.placeholder_type("torch.distributed.fsdp.FSDPModule")
OffloadPolicy = _stand_ins.placeholder_type("torch.distributed.fsdp.OffloadPolicy")
fully_shard = _stand_ins.unsupported("distributed.fsdp.fully_shard", "FSDP2 (fully_shard) is not provided; "
                                     "FullyShardedDataParallel (FSDP1) is")
