"""torch.nn.functional.batch_norm, instance_norm and local_response_norm.

Running statistics are written in place (outside autograd) as torch does: running = (1 - momentum) running +
momentum batch_statistic, with the unbiased variance."""
import functools
import inspect

from ... import torch


def float16_statistics_in_float32(fn):
    """`fn(input, ...)` computed in float32 for a float16 input (its weight and bias cast too), the result rounded
    back: torch accumulates half-precision statistics in float32, where float16 squares overflowed (a group norm of
    values near 300 came out 0). Running statistics stay the caller's tensors, written in place."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(input, *args, **kwargs):
        if input.dtype != torch.float16:
            return fn(input, *args, **kwargs)
        bound = signature.bind(input, *args, **kwargs)
        for name in ("input", "weight", "bias"):
            value = bound.arguments.get(name)
            if isinstance(value, torch.Tensor) and value.dtype == torch.float16:
                bound.arguments[name] = value.float()
        return fn(*bound.args, **bound.kwargs).to(torch.float16)

    return wrapper


def _channel_shape(input):
    return (1, input.shape[1]) + (1,) * (input.dim() - 2)


def _update_running(running, value, momentum):
    with torch.no_grad():
        running.copy_(running * (1 - momentum) + value.detach().to(running.dtype) * momentum)


def _normalise(input, mean, var, weight, bias, eps):
    shape = _channel_shape(input)
    out = (input - mean.reshape(shape)) * torch.rsqrt(var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


@float16_statistics_in_float32
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if input.dim() < 2:
        raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
    if training:
        dims = (0,) + tuple(range(2, input.dim()))
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        mean = input.mean(dims)
        var = ((input - mean.reshape(_channel_shape(input))) ** 2).mean(dims)
        if running_mean is not None:
            _update_running(running_mean, mean, momentum)
        if running_var is not None:
            _update_running(running_var, var * (count / (count - 1)), momentum)
        return _normalise(input, mean, var, weight, bias, eps)
    if running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    return _normalise(input, running_mean, running_var, weight, bias, eps)


@float16_statistics_in_float32
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if input.dim() < 3:
        raise ValueError(f"expected at least 3D input (got {input.dim()}D input)")
    if not use_input_stats:
        return _normalise(input, running_mean, running_var, weight, bias, eps)
    dims = tuple(range(2, input.dim()))
    count = input.numel() // (input.shape[0] * input.shape[1])
    if count <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    mean = input.mean(dims, keepdim=True)
    var = ((input - mean) ** 2).mean(dims, keepdim=True)
    out = (input - mean) * torch.rsqrt(var + eps)
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    if running_mean is not None:
        _update_running(running_mean, mean.reshape(input.shape[:2]).mean(0), momentum)
    if running_var is not None:
        unbiased = var.reshape(input.shape[:2]) * (count / (count - 1))
        _update_running(running_var, unbiased.mean(0), momentum)
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of input^2 over `size` neighbouring channels) ** beta."""
    from . import _pool_functions as P
    from . import functional as F

    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    squared = (input * input).unsqueeze(1)
    if input.dim() == 3:
        padded = F.pad(squared, (0, 0, size // 2, (size - 1) // 2))
        div = P.avg_pool2d(padded, (size, 1), stride=1).squeeze(1)
    else:
        n, c = input.shape[0], input.shape[1]
        squared = squared.reshape(n, 1, c, input.shape[2], -1)
        padded = F.pad(squared, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = P.avg_pool3d(padded, (size, 1, 1), stride=1).squeeze(1).reshape(input.shape)
    return input / (div * alpha + k).pow(beta)
