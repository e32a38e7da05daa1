"""torch.nn.utils.parameters_to_vector and vector_to_parameters: parameters flattened into one vector and back."""
from .... import torch


def parameters_to_vector(parameters):
    """One 1-D tensor of every parameter's values, in order (differentiable)."""
    return torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Write consecutive slices of `vec` into the parameters, in order (outside autograd, as torch's .data)."""
    if not isinstance(vec, torch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with torch.no_grad():
        for param in parameters:
            count = param.numel()
            param.copy_(vec[offset:offset + count].reshape(param.shape))
            offset += count
