"""Random sampling ops: torch's CPU kernels' draws (`torch/_generator/sampling.py`) from the shim's generator,
so `torch.manual_seed(s)` gives real PyTorch's numbers.

A sampler whose result or receiver is on the meta device draws nothing, as torch's meta kernels draw nothing:
building a model under `torch.device("meta")` (transformers' `from_pretrained` does) leaves the generator where
it was. The shim's meta tensors hold zeros (docs/architecture.md)."""
import math

import numpy as np
import mindspore

from .. import _device_context, _dtype
from .._device import PROCESS_DEVICE, check_reachable
from .._generator import sampling
from ..random import _engine
from ._util import no_kernel, out_dtype, shape_arg, Tensor, type_name, write_out  # noqa: F401  (write_out: re-export)
from .creation import _factory_out, _finish

_KINDS = {mindspore.float32: "float32", mindspore.float64: "float64", mindspore.float16: "float16",
          mindspore.bfloat16: "bfloat16", mindspore.int64: "int64", mindspore.int32: "int32",
          mindspore.int16: "int16", mindspore.int8: "int8", mindspore.uint8: "uint8", mindspore.bool_: "bool"}


def _kind(dtype):
    kind = _KINDS.get(dtype)
    if kind is None:
        raise NotImplementedError(f"random sampling into {type_name(dtype)} tensors is not supported on the CPU "
                                  f"generator of MindSpore's shim")
    return kind


def _as_tensor(arr, dtype):
    dtype = dtype or _dtype.get_default_dtype()
    if dtype == mindspore.bfloat16:  # (the values are bfloat16-exact already: the cast only changes storage)
        return Tensor(np.asarray(arr, dtype=np.float32)).astype(dtype)
    # (np.ascontiguousarray would make a 0-d array 1-d)
    return Tensor.from_numpy(np.asarray(arr, dtype=_dtype.to_numpy_dtype(dtype), order="C"))


def _floating_only(dtype, kernel):
    # torch's samplers of real values have no integer kernels
    if dtype is not None and not (dtype in _dtype.FLOATING or dtype in _dtype.COMPLEX):
        raise no_kernel(kernel, dtype)


def _float_kind(dtype):
    return _kind(dtype or _dtype.get_default_dtype())


def is_meta(tensor):
    return getattr(tensor, "_is_meta", False)


def _targets_meta(device):
    """Whether a factory call with `device` makes a meta tensor (an explicit device, or the default one)."""
    return (check_reachable(device) if device is not None else _device_context.current()).type == "meta"


def _drawn(device, shape, draw):
    """`draw()` shaped `shape`, or zeros when the result goes to the meta device (no draw: torch's meta kernels
    leave the generator alone)."""
    if _targets_meta(device):
        return np.zeros(shape, dtype=np.float32)
    return draw().reshape(shape)


def _meta_result(shape, dtype):
    """What a sampler returns for meta parameters: a meta tensor (zeros here), with nothing drawn."""
    t = _as_tensor(np.zeros(tuple(shape), dtype=np.float32), dtype)
    t._is_meta = True
    return t


def _like_device(input, device):
    """The device of a `*_like` result: the given one, else the input's (not the default device's)."""
    return device if device is not None else input.device


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    if out is not None:
        return _factory_out(out, rand(*size, generator=generator, dtype=dtype or out_dtype(out, "rand")), "rand")
    _floating_only(dtype, "check_uniform_bounds")
    shape = shape_arg(size)
    arr = _drawn(device, shape, lambda: sampling.uniform(_engine(generator), math.prod(shape), _float_kind(dtype)))
    return _finish(_as_tensor(arr, dtype), device, requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    if out is not None:
        return _factory_out(out, randn(*size, generator=generator, dtype=dtype or out_dtype(out, "randn")), "randn")
    _floating_only(dtype, "normal_kernel_cpu")
    shape = shape_arg(size)
    arr = _drawn(device, shape, lambda: sampling.normal(_engine(generator), math.prod(shape), _float_kind(dtype)))
    return _finish(_as_tensor(arr, dtype), device, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False):
    if out is not None:
        return _factory_out(out, randint(low, high, size, generator=generator,
                                         dtype=dtype or out_dtype(out, "randint")), "randint")
    if dtype == mindspore.bool_:
        raise RuntimeError("randint(): to - 1 is out of bounds for bool")
    if dtype in _dtype.COMPLEX:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if size is None and isinstance(high, (tuple, list)):  # torch's other overload: randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    shape = tuple(size)
    if int(high) <= int(low):  # (checked before the draw: a meta result draws nothing but is checked too)
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    arr = _drawn(device, shape, lambda: sampling.random_from_to(_engine(generator), math.prod(shape), low, high))
    return _finish(_as_tensor(arr, dtype or mindspore.int64), device, requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    if out is not None:
        return _factory_out(out, randperm(n, generator=generator, dtype=dtype or out_dtype(out, "randperm")),
                            "randperm")
    if dtype == mindspore.bool_ or dtype in _dtype.COMPLEX:
        raise no_kernel("randperm", dtype)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    arr = _drawn(device, (n,), lambda: sampling.randperm(_engine(generator), n))
    return _finish(_as_tensor(arr, dtype or mindspore.int64), device, requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              generator=None):
    return rand(input.shape, generator=generator, dtype=dtype or input.dtype, device=_like_device(input, device),
                requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               generator=None):
    return randn(input.shape, generator=generator, dtype=dtype or input.dtype, device=_like_device(input, device),
                 requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, generator=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, generator=generator, dtype=dtype or input.dtype,
                   device=_like_device(input, device))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """torch.normal: with a tensor mean and/or std, torch draws N(0, 1) (N(0, std) for a float std) and then
    scales and shifts elementwise; with floats, one N(mean, std) fill."""
    if out is not None:
        return _sample_out(out, normal(mean, std, size, generator=generator, dtype=dtype or out_dtype(out, "normal")),
                           "normal", (mean, std), keep_shape=True)
    _floating_only(dtype, "normal_kernel_cpu")
    device = device if device is not None else PROCESS_DEVICE  # (torch's default-device context skips normal)
    engine = _engine(generator)
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mean_is_tensor or std_is_tensor):
        shape = tuple(size)
        arr = _drawn(device, shape, lambda: sampling.normal(engine, math.prod(shape), _float_kind(dtype), mean, std))
        return _finish(_as_tensor(arr, dtype), device, requires_grad)
    if std_is_tensor and bool((std < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    ref = mean if mean_is_tensor else std
    dtype = dtype or ref.dtype
    if is_meta(mean) or is_meta(std):
        return _meta_result(np.broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ()))),
                            dtype)
    kind = _float_kind(dtype)
    m = mean.asnumpy() if mean_is_tensor else mean
    s = std.asnumpy() if std_is_tensor else std
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    n = math.prod(shape)
    work = np.float64 if kind == "float64" else np.float32
    if std_is_tensor:  # normal_(0, 1), then * std + mean in the tensor's dtype
        values = sampling.normal(engine, n, kind).reshape(shape).astype(work)
        values = sampling.round_to(values * np.asarray(s, dtype=work), kind) if kind != "float64" else values * s
        values = values + np.asarray(m, dtype=work)
    else:  # normal_(0, std), then + mean
        values = sampling.normal(engine, n, kind, 0.0, std).reshape(shape).astype(work) + np.asarray(m, dtype=work)
    return _as_tensor(sampling.round_to(values.astype(work), kind) if kind != "float64" else values, dtype)


def _sample_out(out, result, name, inputs, keep_shape=False):
    """out= for a sampler with tensor parameters: like torch, refuse parameters that require grad (the samples,
    drawn on the host, carry no graph to show it); `keep_shape`: an out of another shape is an error (normal)."""
    from .._tensor import _get_requires_grad
    from ..autograd.grad_mode import is_grad_enabled

    if is_grad_enabled() and any(isinstance(t, Tensor) and _get_requires_grad(t) for t in inputs):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           f"but one of the arguments requires grad.")
    if keep_shape and isinstance(out, Tensor) and any(isinstance(t, Tensor) for t in inputs) \
            and out.shape != result.shape:
        raise RuntimeError(f"{name}(): the out tensor of shape {list(out.shape)} does not match the parameters' "
                           f"shape {list(result.shape)}")
    return _factory_out(out, result, name)


def _probabilities(t):
    """A probability tensor as NumPy: float64 stays double (torch then draws double uniforms), others float32."""
    arr = t.asnumpy() if t.dtype != mindspore.bfloat16 else t.astype(mindspore.float32).asnumpy()
    return arr.astype(np.float64 if arr.dtype == np.float64 else np.float32)


def bernoulli(input, p=None, *, generator=None, out=None):
    if out is not None:  # (in out's dtype; torch resizes out to the input's shape)
        return _sample_out(out, bernoulli(input, p, generator=generator).astype(out_dtype(out, "bernoulli")),
                           "bernoulli", (input,))
    if is_meta(input):
        return _meta_result(input.shape, input.dtype)
    if p is not None:  # torch: empty_like(input).bernoulli_(p)
        return _as_tensor(sampling.bernoulli_scalar(_engine(generator), math.prod(input.shape), p)
                          .reshape(tuple(input.shape)), input.dtype)
    probs = _probabilities(input)
    if probs.size and (probs.min() < 0 or probs.max() > 1):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return _as_tensor(sampling.bernoulli_tensor(_engine(generator), probs), input.dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """With replacement: inverse-CDF draws per row; without (or a single sample): torch's exponential race,
    the top `num_samples` of p / q with q ~ Exp(1) drawn in the input's dtype."""
    if out is not None:  # (indices: out must be int64)
        if isinstance(out, Tensor) and out.dtype != mindspore.int64:
            raise RuntimeError(f"multinomial expects Long tensor out, got: {type_name(out.dtype)}")
        return _factory_out(out, multinomial(input, num_samples, replacement, generator=generator), "multinomial")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if is_meta(input):  # (torch's meta multinomial checks neither the count nor the probabilities)
        return _meta_result(tuple(input.shape[:-1]) + (num_samples,), mindspore.int64)
    probs = _probabilities(input)
    rows = probs.reshape(-1, probs.shape[-1])
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if np.any(rows < 0) or not np.all(np.isfinite(rows)) or np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0, or an entry that is "
                           "negative, inf or nan)")
    engine = _engine(generator)
    if not replacement or num_samples == 1:
        kind = _kind(input.dtype)
        q = sampling.exponential(engine, rows.size, kind).reshape(rows.shape).astype(rows.dtype)
        race = rows / q
        # More samples than non-zero probabilities: torch does not check (its documentation asks the caller not
        # to), and its top-k then returns zero-probability categories after the others, as here. Their order among
        # themselves is left to torch's partial sort; here it is index order.
        picked = np.argsort(-race, axis=1, kind="stable")[:, :num_samples]
        result = picked.astype(np.int64)
    else:
        result = sampling.multinomial_with_replacement(engine, rows.astype(np.float64), num_samples)
    return Tensor(result.reshape(probs.shape[:-1] + (num_samples,)))


# values for the in-place samplers (`Tensor.normal_` etc.): arrays shaped like the receiver
def _fill(t, draw):
    shape = tuple(t.shape)
    if is_meta(t):  # (no draw: see the module's docstring)
        return _as_tensor(np.zeros(shape, dtype=np.float32), t.dtype)
    return _as_tensor(draw(math.prod(shape)).reshape(shape), t.dtype)


def normal_values(t, mean=0.0, std=1.0, generator=None):
    _floating_only(t.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(t, lambda n: sampling.normal(_engine(generator), n, _kind(t.dtype), mean, std))


def uniform_values(t, a=0.0, b=1.0, generator=None):
    if is_meta(t):  # (torch's meta uniform_ checks neither the dtype nor the range)
        return _fill(t, None)
    _floating_only(t.dtype, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    return _fill(t, lambda n: sampling.uniform(_engine(generator), n, _kind(t.dtype), a, b))


def random_values(t, *bounds, generator=None, **named):
    """Tensor.random_(), random_(to), random_(from, to): torch's three overloads."""
    if is_meta(t):  # (torch's meta random_ checks no bounds)
        return _fill(t, None)
    low = named.pop("from_", named.pop("from", None))
    high = named.pop("to", None)
    if len(bounds) == 1 and low is None:
        high = bounds[0] if high is None else high
        low = 0 if high is not None else None
    elif len(bounds) == 2:
        low, high = bounds
    engine = _engine(generator)
    if low is None and high is None:
        return _fill(t, lambda n: sampling.random_full(engine, n, _kind(t.dtype)))
    if high is None:
        raise NotImplementedError("Tensor.random_(from, None) is not supported by the shim's generator; "
                                  "give `to`")
    return _fill(t, lambda n: sampling.random_from_to(engine, n, low or 0, high))


def bernoulli_values(t, p=0.5, generator=None):
    if is_meta(t):  # (torch's meta bernoulli_ checks no probability)
        return _fill(t, None)
    engine = _engine(generator)
    if isinstance(p, Tensor):
        probs = np.broadcast_to(_probabilities(p), tuple(t.shape))
        return _as_tensor(sampling.bernoulli_tensor(engine, np.ascontiguousarray(probs)), t.dtype)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return _fill(t, lambda n: sampling.bernoulli_scalar(engine, n, p))


def exponential_values(t, lambd=1.0, generator=None):
    _floating_only(t.dtype, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill(t, lambda n: sampling.exponential(_engine(generator), n, _kind(t.dtype), lambd))


def cauchy_values(t, median=0.0, sigma=1.0, generator=None):
    if not (t.dtype in _dtype.FLOATING):
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {type_name(t.dtype)}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill(t, lambda n: sampling.cauchy(_engine(generator), n, _kind(t.dtype), median, sigma))


def log_normal_values(t, mean=1.0, std=2.0, generator=None):
    _floating_only(t.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill(t, lambda n: sampling.log_normal(_engine(generator), n, _kind(t.dtype), mean, std))


def geometric_values(t, p, generator=None):
    if t.dtype == mindspore.bool_:
        raise no_kernel("geometric_cpu", mindspore.bool_)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    kind = _kind(t.dtype)
    # (integer kinds take the float64 counts as they are: whole numbers)
    store = kind if kind in ("float32", "float16", "bfloat16") else "float64"
    return _fill(t, lambda n: sampling.as_kind(sampling.geometric(_engine(generator), n, p), store))


def poisson(input, generator=None):
    """Counts drawn per element with rate `input`, in row-major order of its shape (torch's order: it fills a
    contiguous result); the result takes a zero gradient, as torch's does."""
    if is_meta(input):  # (torch's meta poisson takes any dtype)
        return _meta_result(input.shape, input.dtype)
    _floating_only(input.dtype, "poisson_cpu")
    rates = np.asarray(input.detach().numpy(), dtype=np.float64)
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if np.isinf(rates).any():
        raise NotImplementedError("torch.poisson of an infinite rate is not supported by mindnlp-shim (torch's "
                                  "count for it is an overflowed integer)")
    result = _as_tensor(sampling.poisson(_engine(generator), np.ascontiguousarray(rates)), input.dtype)
    from ..autograd.grad_mode import is_grad_enabled

    if input.requires_grad and is_grad_enabled():
        result = result + input * 0  # (recorded: the gradient torch gives, zero)
    return result
