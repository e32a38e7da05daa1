"""Random sampling ops, all drawn from the shim's Generator (see `torch/random.py`)."""
import numpy as np
import mindspore

from .. import _dtype
from ..random import _numpy_rng
from ._util import Tensor, out_dtype, shape_arg, type_name, write_out
from .creation import _factory_out, _finish


def _as_tensor(arr, dtype):
    dtype = dtype or _dtype.get_default_dtype()
    if dtype == mindspore.bfloat16:
        return Tensor(arr.astype(np.float32)).astype(dtype)
    # (np.ascontiguousarray would make a 0-d array 1-d)
    return Tensor.from_numpy(np.asarray(arr, dtype=_dtype.to_numpy_dtype(dtype), order="C"))


def _floating_only(dtype, kernel):
    # torch's samplers of real values have no integer kernels
    if dtype is not None and not (dtype in _dtype.FLOATING or dtype in _dtype.COMPLEX):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(dtype)}'")


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    if out is not None:
        return _factory_out(out, rand(*size, generator=generator, dtype=dtype or out_dtype(out, "rand")), "rand")
    _floating_only(dtype, "check_uniform_bounds")
    arr = _numpy_rng(generator).random(shape_arg(size), dtype=np.float32)
    return _finish(_as_tensor(arr, dtype), device, requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    if out is not None:
        return _factory_out(out, randn(*size, generator=generator, dtype=dtype or out_dtype(out, "randn")), "randn")
    _floating_only(dtype, "normal_kernel_cpu")
    arr = _numpy_rng(generator).standard_normal(shape_arg(size), dtype=np.float32)
    return _finish(_as_tensor(arr, dtype), device, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False):
    if out is not None:
        return _factory_out(out, randint(low, high, size, generator=generator,
                                         dtype=dtype or out_dtype(out, "randint")), "randint")
    if dtype == mindspore.bool_:
        raise RuntimeError("randint(): to - 1 is out of bounds for bool")
    if size is None and isinstance(high, (tuple, list)):  # torch's other overload: randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    arr = _numpy_rng(generator).integers(low, high, size=tuple(size), dtype=np.int64)
    return _finish(_as_tensor(arr, dtype or mindspore.int64), device, requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    if out is not None:
        return _factory_out(out, randperm(n, generator=generator, dtype=dtype or out_dtype(out, "randperm")),
                            "randperm")
    if dtype == mindspore.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    arr = _numpy_rng(generator).permutation(int(n))
    return _finish(_as_tensor(arr, dtype or mindspore.int64), device, requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    if out is not None:
        return _sample_out(out, normal(mean, std, size, generator=generator, dtype=dtype or out_dtype(out, "normal")),
                           "normal", (mean, std), keep_shape=True)
    _floating_only(dtype, "normal_kernel_cpu")
    rng = _numpy_rng(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean.asnumpy() if isinstance(mean, Tensor) else mean
        s = std.asnumpy() if isinstance(std, Tensor) else std
        ref = mean if isinstance(mean, Tensor) else std
        arr = rng.normal(m, s, size=np.broadcast_shapes(np.shape(m), np.shape(s)))
        return _as_tensor(np.asarray(arr), dtype or ref.dtype)
    arr = rng.normal(mean, std, size=tuple(size))
    return _finish(_as_tensor(np.asarray(arr), dtype), device, requires_grad)


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


def bernoulli(input, p=None, *, generator=None, out=None):
    if out is not None:  # (in out's dtype; torch resizes out to the input's shape)
        return _sample_out(out, bernoulli(input, p, generator=generator).astype(out_dtype(out, "bernoulli")),
                           "bernoulli", (input,))
    probs = input.asnumpy().astype(np.float64) if p is None else np.full(tuple(input.shape), p)
    arr = (_numpy_rng(generator).random(probs.shape) < probs)
    return _as_tensor(arr, input.dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    if out is not None:  # (indices: out must be int64)
        if isinstance(out, Tensor) and out.dtype != mindspore.int64:
            raise RuntimeError(f"multinomial expects Long tensor out, got: {type_name(out.dtype)}")
        return _factory_out(out, multinomial(input, num_samples, replacement, generator=generator), "multinomial")
    rng = _numpy_rng(generator)
    probs = input.asnumpy().astype(np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        if row.sum() <= 0 or np.any(row < 0) or not np.all(np.isfinite(row)):
            raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or element < 0, "
                               "or sums to zero")
        if not replacement and num_samples > np.count_nonzero(row):
            raise RuntimeError("multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        out[i] = rng.choice(row.size, size=num_samples, replace=replacement, p=row / row.sum())
    return Tensor(out.reshape(probs.shape[:-1] + (num_samples,)))


# values for the in-place samplers (`Tensor.normal_` etc.): arrays shaped like the receiver
def normal_values(t, mean=0.0, std=1.0, generator=None):
    return _as_tensor(_numpy_rng(generator).normal(mean, std, size=tuple(t.shape)), t.dtype)


def uniform_values(t, a=0.0, b=1.0, generator=None):
    return _as_tensor(_numpy_rng(generator).uniform(a, b, size=tuple(t.shape)), t.dtype)


def random_values(t, from_=0, to=None, generator=None):
    if to is None:
        to = 2 ** 24 if t.is_floating_point() else np.iinfo(_dtype.to_numpy_dtype(t.dtype)).max
    return _as_tensor(_numpy_rng(generator).integers(from_, to, size=tuple(t.shape)), t.dtype)


def bernoulli_values(t, p=0.5, generator=None):
    p = p.asnumpy() if isinstance(p, Tensor) else p
    return _as_tensor(_numpy_rng(generator).random(tuple(t.shape)) < p, t.dtype)


def exponential_values(t, lambd=1.0, generator=None):
    return _as_tensor(_numpy_rng(generator).exponential(1.0 / lambd, size=tuple(t.shape)), t.dtype)
