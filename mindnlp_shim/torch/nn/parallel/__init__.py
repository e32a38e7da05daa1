"""torch.nn.parallel: DataParallel/DistributedDataParallel are not provided (single-process training)."""
from ... import _stand_ins

DistributedDataParallel = _stand_ins.placeholder_type("torch.nn.parallel.DistributedDataParallel")
DataParallel = _stand_ins.placeholder_type("torch.nn.parallel.DataParallel")
