"""torch.distributed.fsdp: FSDP is not provided; its types are never instantiated."""
from ... import _stand_ins
from . import fully_sharded_data_parallel  # noqa: F401

FullyShardedDataParallel = fully_sharded_data_parallel.FullyShardedDataParallel
CPUOffloadPolicy = _stand_ins.placeholder_type("torch.distributed.fsdp.CPUOffloadPolicy")
MixedPrecisionPolicy = _stand_ins.placeholder_type("torch.distributed.fsdp.MixedPrecisionPolicy")
FSDPModule = _stand_ins.placeholder_type("torch.distributed.fsdp.FSDPModule")
fully_shard = _stand_ins.unsupported("distributed.fsdp.fully_shard", "FSDP is not provided")
