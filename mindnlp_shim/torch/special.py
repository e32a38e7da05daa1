"""torch.special: the functions that exist under other names."""
from ._ops.pointwise import erf, erfc, erfinv, expm1, log1p, sigmoid as expit  # noqa: F401
from ._ops.reduction import logsumexp, softmax, log_softmax  # noqa: F401
from ._ops.special_math import (digamma, digamma as psi, i0, lgamma as gammaln, logit, sinc, xlogy,  # noqa: F401
                                 igamma as gammainc, igammac as gammaincc)
