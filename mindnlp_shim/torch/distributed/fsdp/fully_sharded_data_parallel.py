from ... import _stand_ins

FullyShardedDataParallel = _stand_ins.placeholder_type(
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel")
