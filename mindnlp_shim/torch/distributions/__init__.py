"""torch.distributions: the Distribution base, MultivariateNormal and the constraints they check (what
transformers' mean-resizing of token embeddings uses). The names peft imports for other distributions exist
and raise when used."""
from . import constraints, multivariate_normal, relaxed_bernoulli, wishart  # noqa: F401
from .distribution import Distribution  # noqa: F401
from .multivariate_normal import MultivariateNormal  # noqa: F401
