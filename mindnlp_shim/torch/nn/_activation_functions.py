"""torch.nn.functional activations beyond functional.py's: shrinkage, threshold, PReLU, RReLU, Gumbel-softmax and
the in-place `*_` variants (each the out-of-place function with inplace=True). Compositions of the shim's ops,
whose gradients are torch's (the comparisons pick the same branch at the breakpoints)."""
from ... import torch
from .._ops.special_math import hardshrink  # noqa: F401  (the one definition, torch.hardshrink's)


def _F():
    from . import functional

    return functional


def softshrink(input, lambd=0.5):
    _F()._floats_only(input, "softshrink_check")
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    shrunk = torch.where(input > lambd, input - lambd, torch.where(input < -lambd, input + lambd,
                                                                   torch.zeros_like(input)))
    return torch.where(torch.isnan(input), input, shrunk)  # (NaN passes, as in torch)


def tanhshrink(input):
    return input - torch.tanh(input)


def threshold(input, threshold, value, inplace=False):
    out = torch.where((input > threshold) | torch.isnan(input), input, torch.full_like(input, value))
    return _F()._maybe_inplace(input, out, inplace)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


def prelu(input, weight):
    if weight.numel() != 1:
        channels = input.shape[1] if input.ndim >= 2 else input.shape[0]
        if weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
        if input.ndim >= 2:
            weight = weight.reshape((1, -1) + (1,) * (input.ndim - 2))
    return torch.where(input > 0, input, weight * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    F = _F()
    if not training:
        return F.leaky_relu(input, (lower + upper) / 2, inplace)
    # a slope drawn from U(lower, upper) for each negative element (the shim's generator, not torch's numbers)
    slopes = torch.rand(input.shape, dtype=input.dtype) * (upper - lower) + lower
    out = torch.where(input >= 0, input, input * slopes)
    return F._maybe_inplace(input, out, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def relu_(input):
    return _F().relu(input, inplace=True)


def elu_(input, alpha=1.0):
    return _F().elu(input, alpha, inplace=True)


def selu_(input):
    return _F().selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return _F().celu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return _F().leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _F().hardtanh(input, min_val, max_val, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g standard Gumbel noise (from the shim's generator); `hard` returns the
    one-hot argmax whose gradient is the soft sample's (straight-through)."""
    gumbels = -torch.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = torch.zeros_like(logits).scatter(dim, index, 1.0)
    return one_hot - soft.detach() + soft
