from .. import _stand_ins

RelaxedBernoulli = _stand_ins.placeholder_type("torch.distributions.relaxed_bernoulli.RelaxedBernoulli")
