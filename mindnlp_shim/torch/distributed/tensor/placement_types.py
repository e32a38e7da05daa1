from ... import _stand_ins

Placement = _stand_ins.placeholder_type("torch.distributed.tensor.placement_types.Placement")
Shard = _stand_ins.placeholder_type("torch.distributed.tensor.placement_types.Shard")
_StridedShard = _stand_ins.placeholder_type("torch.distributed.tensor.placement_types._StridedShard")
Replicate = _stand_ins.placeholder_type("torch.distributed.tensor.placement_types.Replicate")
Partial = _stand_ins.placeholder_type("torch.distributed.tensor.placement_types.Partial")
