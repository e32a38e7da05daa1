"""torch.distributions: not provided; the names peft imports exist and raise when used."""
from .. import _stand_ins
from . import constraints, relaxed_bernoulli, wishart  # noqa: F401

Distribution = _stand_ins.placeholder_type("torch.distributions.Distribution")
