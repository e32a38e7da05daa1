"""torch.nn.init: fill a tensor in place with values from a distribution or a structured pattern.

Values are drawn from the shim's generator exactly as torch's CPU kernels draw them (`torch/_generator`), so
after `torch.manual_seed(s)` a model is initialised with real PyTorch's numbers, and written into the tensor
with the core's in-place assignment, which keeps the tensor object: a parameter stays where its module and
optimizer hold it. Distributions, bounds, gains and fan modes follow torch's documentation.
"""
import math
import warnings

import mindspore
import numpy as np

from .. import _dtype, _inplace, random as _random
from .._generator import sampling
from .._generator.vector_math import f32
from ..autograd.grad_mode import no_grad

Tensor = mindspore.Tensor

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
]


# ---------------------------------------------------------------- writing values

def _write(tensor, values):
    """Write the NumPy `values` (broadcast to the tensor's shape, cast to its dtype) into `tensor`."""
    values = np.broadcast_to(np.asarray(values), tuple(tensor.shape))
    array = np.ascontiguousarray(values.astype(_dtype.to_numpy_dtype(tensor.dtype)))
    with no_grad():
        _inplace.assign(tensor, Tensor.from_numpy(array), value_is_fresh=True)
    return tensor


def _kind(tensor):
    from .._ops.random import _kind as kind_of

    return kind_of(tensor.dtype)


def _numel(tensor):
    return int(np.prod(tuple(tensor.shape), dtype=np.int64))


def _require_floating(tensor, name):
    if tensor.dtype not in _dtype.FLOATING:
        raise RuntimeError(f'"{name}" not implemented for \'{_dtype._CANONICAL.get(tensor.dtype, tensor.dtype)}\': '
                           f"torch.nn.init.{name} fills floating point tensors only")


# ---------------------------------------------------------------- the _no_grad_* helpers torch code imports

def _is_meta(tensor):
    """A meta tensor is filled by nothing: torch's meta kernels draw nothing, so the generator stays put
    (models built under `torch.device("meta")`, as transformers' from_pretrained builds them)."""
    return getattr(tensor, "_is_meta", False)


def _no_grad_uniform_(tensor, a, b, generator=None):
    _require_floating(tensor, "uniform_")
    if _is_meta(tensor):
        return tensor
    values = sampling.uniform(_random._engine(generator), _numel(tensor), _kind(tensor), a, b)
    return _write(tensor, values.reshape(tuple(tensor.shape)))


def _no_grad_normal_(tensor, mean, std, generator=None):
    _require_floating(tensor, "normal_")
    if _is_meta(tensor):
        return tensor
    values = sampling.normal(_random._engine(generator), _numel(tensor), _kind(tensor), mean, std)
    return _write(tensor, values.reshape(tuple(tensor.shape)))


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    """torch's rejection samplers, drawing what torch draws: when [a, b] holds more than 30% of the mass, a
    normal fill whose out-of-range elements are replaced from fresh full-size normal fills until none is left;
    otherwise uniform proposals on [a, b], each accepted when log(U(0, 1)) < its log density relative to the
    peak, the pending ones re-proposed (full-size draws each round)."""
    _require_floating(tensor, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    if _is_meta(tensor):
        return tensor

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    engine, kind, n = _random._engine(generator), _kind(tensor), _numel(tensor)
    work = np.float64 if kind == "float64" else f32

    def bound(v):  # a bound as the tensor's dtype holds it
        return work(sampling.round_to(np.array([v], dtype=work), kind)[0]) if kind != "float64" else work(v)

    if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
        low, high = bound(a), bound(b)
        result = sampling.normal(engine, n, kind, mean, std)
        while True:
            rejected = (result < low) | (result > high)
            if not rejected.any():
                break
            result = np.where(rejected, sampling.normal(engine, n, kind, mean, std), result)
    else:
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def relative_log_density(x):  # ((x - mean) / std) ** 2 * -0.5 - log_peak, op by op in the dtype
            x = sampling.round_to((x - work(mean)).astype(work), kind)
            x = sampling.round_to((x / work(std)).astype(work), kind)
            x = sampling.round_to((x * x).astype(work), kind)
            return sampling.round_to((x * work(-0.5) - work(log_peak)).astype(work), kind)

        def rejects(threshold):
            u = sampling.uniform(engine, n, kind).astype(work)
            with np.errstate(divide="ignore"):
                log_u = np.log(u.astype(np.float64)).astype(work)  # (correctly rounded)
            return sampling.round_to(log_u, kind) > threshold

        result = sampling.uniform(engine, n, kind, a, b)
        pending = rejects(relative_log_density(result))
        while pending.any():
            proposal = sampling.uniform(engine, n, kind, a, b)
            result = np.where(pending, proposal, result)
            pending = np.where(pending, rejects(relative_log_density(proposal)), pending)
    return _write(tensor, result.reshape(tuple(tensor.shape)))


def _no_grad_fill_(tensor, val):
    return _write(tensor, np.asarray(val))


def _no_grad_zero_(tensor):
    return _write(tensor, np.asarray(0))


# ---------------------------------------------------------------- gains and fans

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + negative_slope**2)) for leaky_relu (slope defaults to 0.01), 3/4 for selu."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """fan_in = shape[1] * receptive field, fan_out = shape[0] * receptive field (receptive field = the
    product of the dimensions after the first two)."""
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for s in shape[2:]:
        receptive_field *= s
    return shape[1] * receptive_field, shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---------------------------------------------------------------- the public fills

def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std**2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std**2) conditioned on the absolute bounds [a, b]."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val):
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    return _no_grad_zero_(tensor)


def eye_(tensor):
    """Fill a 2-D tensor with the identity (ones on the main diagonal of a possibly non-square matrix)."""
    if len(tensor.shape) != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tuple(tensor.shape)))


def dirac_(tensor, groups=1):
    """Fill a 3/4/5-D convolution weight with the Dirac delta (identity convolution per group)."""
    shape = tuple(tensor.shape)
    if len(shape) not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = shape[0] // groups
    values = np.zeros(shape)
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, shape[1])):
            values[(g * out_per_group + d, d) + centre] = 1
    return _write(tensor, values)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Fill with U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Fill with N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fill with U(-bound, bound), bound = gain * sqrt(3 / fan_mode) (He et al., 2015)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fill with N(0, std**2), std = gain / sqrt(fan_mode)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    return _no_grad_normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix (Saxe et al., 2013): the Q of a QR decomposition of a Gaussian
    matrix, trailing dimensions flattened; rows or columns orthonormal, scaled by `gain`."""
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if _numel(tensor) == 0:
        return tensor
    _require_floating(tensor, "orthogonal_")
    if _is_meta(tensor):
        return tensor
    rows = shape[0]
    cols = _numel(tensor) // rows
    flat = sampling.normal(_random._engine(generator), rows * cols, _kind(tensor)).reshape(rows, cols)
    flat = flat.astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # makes the decomposition unique, hence the distribution uniform
    if rows < cols:
        q = q.T
    return _write(tensor, (gain * q).reshape(shape))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor with N(0, std**2) values, then zero ceil(sparsity * rows) random entries per column."""
    shape = tuple(tensor.shape)
    if len(shape) != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    _require_floating(tensor, "sparse_")
    if _is_meta(tensor):
        return tensor
    rows, cols = shape
    num_zeros = int(math.ceil(sparsity * rows))
    values = sampling.normal(_random._engine(generator), rows * cols, _kind(tensor), 0.0, std).reshape(shape)
    for col in range(cols):  # (torch draws these permutations from the default generator)
        values[sampling.randperm(_random._engine(None), rows)[:num_zeros], col] = 0
    return _write(tensor, values)


# ---------------------------------------------------------------- deprecated spellings without the underscore

def _deprecated(new_fn):
    old_name = new_fn.__name__[:-1]

    def old_fn(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_fn.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new_fn(*args, **kwargs)

    old_fn.__name__ = old_name
    return old_fn


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
