"""Helpers the distributions share: broadcasting their parameters, probabilities <-> logits, lazy properties."""
import numbers

from ... import torch

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def broadcast_all(*values):
    """The values broadcast to one shape; Python numbers become tensors of the tensors' dtype (or the default)."""
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    for v in values:
        if not isinstance(v, (torch.Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                             "implementing __torch_function__.")
    dtype = tensors[0].dtype if tensors else torch.get_default_dtype()
    as_tensors = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*as_tensors)


def clamp_exact(value, min=None, max=None):
    """torch.clamp with bounds exact in value's dtype (the shim's clamp rounds a float64 bound to float32, which
    turns 1 - eps into 1 and tiny into 0); the gradient passes where min <= value <= max, as clamp's."""
    if min is not None:
        low = torch.full_like(value, min)
        value = torch.where(value < low, low, value)
    if max is not None:
        high = torch.full_like(value, max)
        value = torch.where(value > high, high, value)
    return value


def clamp_probs(probs):
    """Probabilities kept eps away from 0 and 1 (eps of their dtype), so their logs stay finite."""
    eps = torch.finfo(probs.dtype).eps
    return clamp_exact(probs, eps, 1 - eps)


def logits_to_probs(logits, is_binary=False):
    return torch.sigmoid(logits) if is_binary else torch.nn.functional.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(clamped) - torch.log1p(-clamped)
    return torch.log(clamped)


class lazy_property:
    """Computed on first access and stored on the instance (so a parameter given as the other form is derived
    once)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def sum_rightmost(value, dims):
    """`value` summed over its `dims` rightmost dimensions."""
    if dims == 0:
        return value
    return value.reshape(tuple(value.shape[:value.ndim - dims]) + (-1,)).sum(-1)
