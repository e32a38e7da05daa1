"""Standard gamma draws for Gamma, Chi2, Beta, Dirichlet and StudentT, made on the host from the shim's generator.

A reparameterised draw's gradient with respect to the concentration needs the derivative of the regularised
incomplete gamma function in the concentration (torch's implicit reparameterisation); nothing here computes it,
so a draw whose concentration requires a gradient raises instead of giving it a silently wrong (zero) one.
Gradients with respect to a rate or scale applied after the draw flow normally."""
import numpy as np

from ... import torch
from ..random import _numpy_rng


def standard_gamma(concentration, shape, caller):
    """Gamma(concentration, 1) draws of `shape` (concentration broadcast to it), in concentration's dtype."""
    if concentration.requires_grad and torch.is_grad_enabled():
        raise NotImplementedError(f"torch.distributions.{caller}.rsample with a concentration that requires grad is "
                                  f"not supported on MindSpore by mindnlp-shim: the implicit reparameterisation "
                                  f"gradient of gamma draws is not implemented (use sample(), or detach it)")
    alpha = np.broadcast_to(concentration.detach().numpy().astype(np.float64), tuple(shape))
    draws = _numpy_rng().standard_gamma(alpha)
    dtype = concentration.dtype
    # torch clamps a draw that underflows to the smallest positive normal number of the dtype
    tiny = float(torch.finfo(dtype).tiny)
    return torch.tensor(np.maximum(draws, tiny), dtype=dtype)
