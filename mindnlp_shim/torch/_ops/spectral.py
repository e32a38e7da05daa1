"""Short-time Fourier transform and the Hann window (audio front ends: Whisper's log-mel features).

torch.stft of a real signal is computed as a real DFT: one gather takes the centre padding and the framing
together, then the windowed frames are multiplied by cosine and sine bases in float64 (more exact than torch's
float32 FFT, so both sides round to the same float32 magnitudes within a few ulps).
"""
import math

import numpy as np
import mindspore
from mindspore import ops

from .. import _dtype
from ..autograd.grad_mode import is_grad_enabled
from .creation import _finish, _from_numpy_copy, tensor

_PAD_MODES = ("reflect", "constant", "replicate", "circular")


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / N): N = window_length when periodic (the window of a DFT of that length), else
    window_length - 1 (symmetric)."""
    if window_length < 0:
        raise RuntimeError(f"hann_window requires non-negative window_length, got window_length={window_length}")
    from .composites import _check_window_dtype

    _check_window_dtype(dtype, "hann_window")
    dtype = dtype or _dtype.get_default_dtype()
    if window_length <= 1:
        arr = np.ones(window_length)
    else:
        # in the window's own precision, step by step, as torch rounds it (float32 windows differ from the
        # exact values by up to ~2e-7, and the features computed with them by as much)
        np_dtype = _dtype.to_numpy_dtype(dtype) if dtype in (mindspore.float32, mindspore.float64) else np.float32
        n = window_length if periodic else window_length - 1
        angle = np.arange(window_length, dtype=np_dtype) * np_dtype.type(2.0 * np.pi / n)
        arr = np.cos(angle) * np_dtype.type(-0.5) + np_dtype.type(0.5)
    return _finish(_from_numpy_copy(arr, dtype), device, requires_grad)


def _source_index(length, n_fft, hop, center, pad_mode):
    """(frames, n_fft) indices into the signal, the centre padding folded in; and a mask for zero padding."""
    pad = n_fft // 2 if center else 0
    padded = length + 2 * pad
    if padded < n_fft:
        raise RuntimeError(f"stft: the padded input length ({padded}) is shorter than n_fft ({n_fft})")
    frames = 1 + (padded - n_fft) // hop
    index = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :] - pad
    inside = (index >= 0) & (index < length)
    if pad_mode == "reflect":
        if pad >= length:
            raise RuntimeError(f"stft: reflect padding ({pad}) must be smaller than the input length ({length})")
        index = np.abs(index)
        index = np.where(index >= length, 2 * (length - 1) - index, index)
    elif pad_mode == "circular":
        index = index % length
    else:  # replicate, and constant (whose padded places the mask zeroes)
        index = np.clip(index, 0, length - 1)
    return index.astype(np.int64), (None if pad_mode != "constant" or inside.all() else inside)


def _dft_bases(n_fft, onesided):
    freqs = n_fft // 2 + 1 if onesided else n_fft
    angle = 2.0 * np.pi * np.outer(np.arange(n_fft), np.arange(freqs)) / n_fft
    return np.cos(angle), -np.sin(angle)


def _full_window(window, win_length, n_fft):
    """The window as float64 NumPy of length n_fft: ones by default, a shorter one centred with zeros."""
    if window is None:
        arr = np.ones(win_length)
    else:
        if tuple(window.shape) != (win_length,):
            raise RuntimeError(f"stft: expected a 1-D window of size win_length={win_length}, got "
                               f"{tuple(window.shape)}")
        arr = window.asnumpy().astype(np.float64)
    left = (n_fft - win_length) // 2
    return np.pad(arr, (left, n_fft - win_length - left))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """(L,) or (B, L) real signal -> (..., n_fft // 2 + 1, frames) complex (or (..., 2) real with
    return_complex=False)."""
    if input.dtype in _dtype.COMPLEX or (window is not None and window.dtype in _dtype.COMPLEX):
        raise NotImplementedError("torch.stft of a complex signal or with a complex window is not supported by "
                                  "mindnlp-shim (only real signals)")
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got {input.ndim}D")
    if pad_mode not in _PAD_MODES:
        raise NotImplementedError(f"torch.stft pad_mode={pad_mode!r} is not supported by mindnlp-shim")
    if align_to_window is not None:
        raise NotImplementedError("torch.stft align_to_window is not supported by mindnlp-shim")
    hop = hop_length if hop_length is not None else n_fft // 4
    win_length = win_length if win_length is not None else n_fft
    if not 0 < win_length <= n_fft or hop <= 0:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft and hop_length > 0, got win_length="
                           f"{win_length}, n_fft={n_fft}, hop_length={hop}")
    onesided = True if onesided is None else onesided
    if return_complex and input._requires_grad and is_grad_enabled():
        raise NotImplementedError("torch.stft with return_complex=True does not support gradients on mindnlp-shim "
                                  "(complex autograd); use return_complex=False")

    index, inside = _source_index(int(input.shape[-1]), n_fft, hop, center, pad_mode)
    frames = input.double()[..., tensor(index)]  # (..., frames, n_fft)
    weights = _full_window(window, win_length, n_fft)
    if inside is not None:
        frames = frames * tensor(inside.astype(np.float64))
    cos_basis, sin_basis = _dft_bases(n_fft, onesided)
    scale = 1.0 / math.sqrt(n_fft) if normalized else 1.0
    real = frames @ tensor(weights[:, None] * cos_basis * scale)  # (..., frames, freqs)
    imag = frames @ tensor(weights[:, None] * sin_basis * scale)
    real, imag = real.transpose(-1, -2), imag.transpose(-1, -2)
    if not return_complex:
        return ops.stack([real, imag], -1).to(input.dtype)
    wide = input.dtype == mindspore.float64
    return ops.Complex()(real, imag).to(mindspore.complex128 if wide else mindspore.complex64)

