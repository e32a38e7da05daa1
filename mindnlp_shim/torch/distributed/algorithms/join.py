from ... import _stand_ins

Join = _stand_ins.placeholder_type("torch.distributed.algorithms.join.Join")
Joinable = _stand_ins.placeholder_type("torch.distributed.algorithms.join.Joinable")
