from .... import _stand_ins

fully_shard = _stand_ins.unsupported("distributed._composable.fsdp.fully_shard", "FSDP is not provided")
