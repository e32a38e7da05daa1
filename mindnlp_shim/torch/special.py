"""torch.special: the functions that exist under other names, and those computed by scipy.special on the host
(_ops/host_special.py, _ops/orthogonal_polynomials.py)."""
from mindspore import Tensor  # noqa: F401  (torch.special re-exports torch.Tensor)

from ._ops.pointwise import erf, erfc, erfinv, exp2, expm1, log1p, round, sigmoid as expit  # noqa: F401
from ._ops.reduction import logsumexp, softmax, log_softmax  # noqa: F401
from ._ops.special_math import (digamma, digamma as psi, i0, lgamma as gammaln,  # noqa: F401
                                 logit, sinc, xlogy, igamma as gammainc, igammac as gammaincc,
                                 mvlgamma as multigammaln)
from ._ops.host_special import (entr, ndtr, log_ndtr, ndtri, erfcx, i0e, i1, i1e, xlog1py, polygamma,  # noqa: F401
                                zeta, bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0,
                                modified_bessel_i1, modified_bessel_k0, modified_bessel_k1,
                                scaled_modified_bessel_k0, scaled_modified_bessel_k1, spherical_bessel_j0, airy_ai)
from ._ops.orthogonal_polynomials import (chebyshev_polynomial_t, chebyshev_polynomial_u,  # noqa: F401
                                          chebyshev_polynomial_v, chebyshev_polynomial_w,
                                          shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
                                          shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w,
                                          hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l,
                                          legendre_polynomial_p)

from . import _python_dtypes  # noqa: E402

_python_dtypes.install(globals())  # dtype=float and friends, as torch reads them
