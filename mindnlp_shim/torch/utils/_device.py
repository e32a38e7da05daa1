from .. import _stand_ins

DeviceContext = _stand_ins.placeholder_type("torch.utils._device.DeviceContext")
