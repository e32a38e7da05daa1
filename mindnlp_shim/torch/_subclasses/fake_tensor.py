from .. import _stand_ins

FakeTensor = _stand_ins.placeholder_type("torch._subclasses.fake_tensor.FakeTensor")
FakeTensorMode = _stand_ins.placeholder_type("torch._subclasses.fake_tensor.FakeTensorMode")
