from .. import _stand_ins

Wishart = _stand_ins.placeholder_type("torch.distributions.wishart.Wishart")
