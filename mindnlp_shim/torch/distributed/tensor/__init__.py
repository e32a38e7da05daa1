"""torch.distributed.tensor: DTensor does not exist here; its types are never instantiated."""
from ... import _stand_ins
from . import placement_types  # noqa: F401

DTensor = _stand_ins.placeholder_type("torch.distributed.tensor.DTensor")
DeviceMesh = _stand_ins.placeholder_type("torch.distributed.tensor.DeviceMesh")
Shard = placement_types.Shard
Replicate = placement_types.Replicate
Partial = placement_types.Partial
Placement = placement_types.Placement
distribute_tensor = _stand_ins.unsupported("distributed.tensor.distribute_tensor", "DTensor is not provided")
