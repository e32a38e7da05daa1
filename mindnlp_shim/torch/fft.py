"""torch.fft: discrete Fourier transforms on MindSpore's FFT kernels (`ops.fft` and family, with gradients), the
sample frequencies and the zero-frequency shifts. The c2r n-dim transforms and the ihfft family are composed
of other transforms where MindSpore's own gradients are wrong or crash (see `_COMPOSED`).

torch computes a transform of an integer or bool tensor in the default float dtype (its complex counterpart for
the complex-valued results); half precision has no CPU FFT kernel in either framework."""
import mindspore
import numpy as np
from mindspore import Tensor, ops  # noqa: F401  (torch.fft re-exports torch.Tensor)

from . import _dtype
from ._ops import creation
from ._ops._util import write_out
from ._ops.shape import roll

_NORMS = (None, "backward", "ortho", "forward")


def _as_transformable(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"fft.{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    dt = input.dtype
    if dt in (mindspore.float16, mindspore.bfloat16):
        raise NotImplementedError(f"torch.fft.{name} of {dt} tensors is not supported on MindSpore's CPU FFT "
                                  f"kernels (real torch has no CPU half-precision FFT either)")
    if dt not in _dtype.FLOATING and dt not in _dtype.COMPLEX:
        return ops.cast(input, _dtype.get_default_dtype())
    return input


def _dims_and_sizes(input, s, dim, last_is_half):
    """torch's defaults for an n-dim transform: the last len(s) dims (all without s), and the sizes of the input
    (a Hermitian-half last dim of m gives a signal of 2 (m - 1))."""
    if dim is None:
        dim = tuple(range(input.ndim - len(s), input.ndim)) if s is not None else tuple(range(input.ndim))
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if s is None:
        s = [input.shape[d] for d in dim]
        if last_is_half and dim:
            s[-1] = 2 * (s[-1] - 1)
    return tuple(dim), tuple(s)


_DUAL = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _kernel(name):
    kernel = getattr(ops, name)
    return lambda input, n_or_s, dim, norm: kernel(input, n_or_s, dim, norm)


def _irfftn(input, s, dim, norm):
    """The real inverse of a Hermitian-half spectrum as complex inverses over all dims but the last, then the
    real inverse over the last (MindSpore's IRFFTN gradient crashes where `s` both pads and trims)."""
    dim, s = _dims_and_sizes(input, s, dim, last_is_half=True)
    if len(dim) > 1:
        input = ops.ifftn(input, s[:-1], dim[:-1], norm)
    return ops.irfft(input, s[-1], dim[-1], norm)


def _hfftn(input, s, dim, norm):
    """hfftn(x) = irfftn(conj(x)) with the dual normalization."""
    return _irfftn(ops.conj(input), s, dim, _DUAL[norm])


def _ihfftn(input, s, dim, norm):
    """ihfftn(x) = conj(rfftn(x)) with the dual normalization (MindSpore's IHFFT gradients come out permuted)."""
    dim, s = _dims_and_sizes(input, s, dim, last_is_half=False)
    return ops.conj(ops.rfftn(input, s, dim, _DUAL[norm]))


def _ihfft(input, n, dim, norm):
    return ops.conj(ops.rfft(input, n, dim, _DUAL[norm]))


_COMPOSED = {"irfft2": _irfftn, "irfftn": _irfftn, "hfft2": _hfftn, "hfftn": _hfftn, "ihfft2": _ihfftn,
             "ihfftn": _ihfftn, "ihfft": _ihfft}


def _transform(name):
    compute = _COMPOSED.get(name) or _kernel(name)
    sized = name.endswith(("2", "n"))

    def fn(input, n_or_s=None, dim=None, norm=None, *, out=None):
        if out is not None:
            return write_out(out, fn(input, n_or_s, dim, norm), f"fft_{name}", exact=True)
        if norm not in _NORMS:
            raise ValueError(f"Invalid normalization mode: {norm}")
        if sized and n_or_s is not None:
            n_or_s = tuple(n_or_s)
        if sized and dim is not None:
            dim = (dim,) if isinstance(dim, int) else tuple(dim)
        return compute(_as_transformable(input, name), n_or_s, dim, norm)

    return fn


def _one_dim(name):
    transform = _transform(name)

    def op(input, n=None, dim=-1, norm=None, *, out=None):
        return transform(input, n, dim, norm, out=out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.fft.{name}(input, n=None, dim=-1, norm=None, *, out=None)"
    return op


def _two_dim(name):
    transform = _transform(name)

    def op(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return transform(input, s, dim, norm, out=out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.fft.{name}(input, s=None, dim=(-2, -1), norm=None, *, out=None)"
    return op


def _n_dim(name):
    transform = _transform(name)

    def op(input, s=None, dim=None, norm=None, *, out=None):
        return transform(input, s, dim, norm, out=out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.fft.{name}(input, s=None, dim=None, norm=None, *, out=None)"
    return op


fft, ifft, rfft, irfft, hfft, ihfft = (_one_dim(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two_dim(n) for n in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2",
                                                                   "ihfft2"))
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (_n_dim(n) for n in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn",
                                                                 "ihfftn"))


def _frequencies(values, name, out, dtype, device, requires_grad):
    if out is not None:
        return write_out(out, creation.tensor(values, dtype=dtype or out.dtype), f"fft_{name}", exact=True,
                         differentiable=False)
    return creation.tensor(values, dtype=dtype or _dtype.get_default_dtype(), device=device,
                           requires_grad=requires_grad)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform: [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n)."""
    k = np.concatenate([np.arange(0, (n + 1) // 2), np.arange(-(n // 2), 0)]) if n > 0 else np.zeros(0)
    return _frequencies(k / (d * n) if n > 0 else k, "fftfreq", out, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's n-point result: [0, 1, ..., floor(n/2)] / (d n)."""
    k = np.arange(0, n // 2 + 1)
    return _frequencies(k / (d * n) if n > 0 else np.zeros(0), "rfftfreq", out, dtype, device, requires_grad)


def _shift(input, dim, sign):
    dims = tuple(range(input.ndim)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    # (torch rolls by floor(n/2); the inverse by -floor(n/2): they differ for odd n)
    shifts = tuple(sign * (input.shape[d] // 2) for d in dims)
    return roll(input, shifts, dims) if dims else input


def fftshift(input, dim=None):
    """Moves the zero-frequency term to the centre along `dim` (all dims by default)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, -1)

from . import _python_dtypes  # noqa: E402

_python_dtypes.install(globals())  # dtype=float and friends, as torch reads them
