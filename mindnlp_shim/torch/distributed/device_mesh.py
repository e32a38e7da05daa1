from .. import _stand_ins

DeviceMesh = _stand_ins.placeholder_type("torch.distributed.device_mesh.DeviceMesh")
init_device_mesh = _stand_ins.unsupported("distributed.device_mesh.init_device_mesh", "no process groups")
