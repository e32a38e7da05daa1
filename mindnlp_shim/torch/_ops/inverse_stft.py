"""torch.istft (also Tensor.istft): the inverse short-time Fourier transform by weighted overlap-add.

Each frame is the inverse real DFT of its column of the spectrogram (fft.irfft over n_fft points; a two-sided
spectrogram contributes its first n_fft // 2 + 1 bins, as torch reads it), multiplied by the window; the frames
are summed at multiples of hop_length and divided by the summed squared windows (the envelope), then the centre
padding is cut away and `length` kept (zeros appended when the signal is shorter). Everything is composed from
recorded ops, so gradients reach the spectrogram and the window."""
import warnings

import numpy as np

from ._util import Tensor

__all__ = ["istft"]


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """(freqs, frames) or (batch, freqs, frames) complex -> (samples,) or (batch, samples) real."""
    torch = _torch()
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    call = f"istft(n_fft={n_fft}, hop_length={hop}, win_length={win_length})"
    if input.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim + 1, 1)}, "
                         f"{max(input.ndim, 0)}], but got -3)")
    if input.ndim > 3:
        raise RuntimeError(f"{call} : expected a tensor with 3 or 4 dimensions, but got {input.ndim + 1}")
    if return_complex:
        raise NotImplementedError("torch.istft(return_complex=True) is not supported by mindnlp-shim: only the "
                                  "real signal of a one-sided or real two-sided spectrogram")
    if window is not None and window.is_complex():
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{call} : expected 0 < win_length <= n_fft")
    if not 0 < hop <= win_length:
        raise RuntimeError(f"{call} : expected 0 < hop_length <= win_length")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{call} : Invalid window shape. window has to be 1D and length of `win_length`")
    batched = input.ndim == 3
    spectrum = input if batched else input.unsqueeze(0)
    freqs, n_frames = spectrum.shape[-2], spectrum.shape[-1]
    onesided = freqs != n_fft if onesided is None else onesided
    if onesided and freqs != n_fft // 2 + 1:
        raise RuntimeError(f"{call} : expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft / 2 + 1 when onesided=True, but got {freqs}")
    if not onesided and freqs != n_fft:
        raise RuntimeError(f"{call} : expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {freqs}")
    if not onesided:
        spectrum = spectrum[:, :n_fft // 2 + 1]
    frames = torch.fft.irfft(spectrum.transpose(1, 2), n=n_fft, dim=-1,
                             norm="ortho" if normalized else "backward")  # (batch, frames, n_fft)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please provide the same "
                      "window used by stft to make the inversion lossless.To suppress this warning and use a "
                      "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=2)
        window = torch.ones(win_length, dtype=frames.dtype)
    left = (n_fft - win_length) // 2
    window = torch.nn.functional.pad(window.to(frames.dtype), (left, n_fft - win_length - left))
    total = n_fft + hop * (n_frames - 1)
    positions = Tensor((np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None]).reshape(-1))
    signal = torch.zeros(frames.shape[0], total, dtype=frames.dtype).index_add(
        1, positions, (frames * window).reshape(frames.shape[0], -1))
    envelope = torch.zeros(total, dtype=frames.dtype).index_add(0, positions, (window * window).repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else total - n_fft // 2 if center else total
    signal, envelope = signal[:, start:min(end, total)], envelope[start:min(end, total)]
    lowest = envelope.abs().min() if envelope.numel() else None
    if lowest is not None and not bool(lowest > 1e-11):
        raise RuntimeError(f"{call} window overlap add min: {float(lowest):g}")
    signal = signal / envelope
    if end > total:
        warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with "
                      "zeros in the tail. Please check your center and hop_length settings.", UserWarning,
                      stacklevel=2)
        signal = torch.nn.functional.pad(signal, (0, end - total))
    return signal if batched else signal.squeeze(0)
