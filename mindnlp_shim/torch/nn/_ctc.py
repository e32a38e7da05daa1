"""Connectionist temporal classification loss (speech models fine-tuned with CTC heads: Wav2Vec2ForCTC).

MindSpore's CTCLossV2 (`ops.ctc_loss`) has torch's conventions (log-probabilities (T, N, C), a blank index,
per-sequence lengths, 'mean' dividing each loss by its target length) and a CPU kernel with a gradient; this
module adapts what torch accepts beyond it: targets concatenated in one 1-D tensor, lengths as Python sequences,
an unbatched (T, C) input.
"""
import numpy as np
import mindspore
from mindspore import ops

_REDUCTIONS = ("none", "mean", "sum")


def _lengths(lengths, batch, what):
    if isinstance(lengths, mindspore.Tensor):
        values = lengths.asnumpy().reshape(-1)
    else:
        values = np.asarray(lengths).reshape(-1)
    if values.shape[0] != batch:
        raise RuntimeError(f"ctc_loss: expected {what} to have {batch} values, got {values.shape[0]}")
    if (values < 0).any():
        raise RuntimeError(f"ctc_loss: {what} must be non-negative")
    return values.astype(np.int64)


def _padded_targets(targets, target_lengths):
    """(N, S) targets: as given when 2-D; split from the concatenation by the target lengths when 1-D."""
    if targets.ndim == 2:
        return targets.astype(mindspore.int64)
    flat = targets.asnumpy().astype(np.int64)
    if flat.shape[0] != int(target_lengths.sum()):
        raise RuntimeError(f"ctc_loss: 1-D targets hold {flat.shape[0]} labels but the target lengths sum to "
                           f"{int(target_lengths.sum())}")
    padded = np.zeros((len(target_lengths), max(1, int(target_lengths.max(initial=0)))), np.int64)
    start = 0
    for row, n in enumerate(target_lengths):
        padded[row, :n] = flat[start:start + n]
        start += n
    return mindspore.Tensor(padded)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """log_probs (T, N, C) or (T, C), log-softmax over C; targets (N, S) padded or 1-D concatenated."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.ndim == 1 else targets
    if log_probs.ndim != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs of 2 or 3 dims, got {log_probs.ndim}")
    if log_probs.dtype not in (mindspore.float32, mindspore.float64):
        raise NotImplementedError(f"torch.nn.functional.ctc_loss for {log_probs.dtype} is not supported by "
                                  "mindnlp-shim (float32 and float64 only)")
    batch = log_probs.shape[1]
    input_lengths = _lengths(input_lengths, batch, "input_lengths")
    target_lengths = _lengths(target_lengths, batch, "target_lengths")
    if (input_lengths > log_probs.shape[0]).any():
        raise RuntimeError(f"ctc_loss: input length {int(input_lengths.max())} exceeds the {log_probs.shape[0]} "
                           "time steps of log_probs")
    padded = _padded_targets(targets, target_lengths)
    # the kernel refuses a sequence shorter than its target (torch: an infinite loss, or 0 with zero_infinity):
    # such rows go in with an empty target and get their value afterwards (a constant: no gradient)
    impossible = input_lengths < target_lengths
    kernel_lengths = np.where(impossible, 0, target_lengths)
    loss, _ = ops.ctc_loss(log_probs, padded, mindspore.Tensor(input_lengths), mindspore.Tensor(kernel_lengths),
                           blank=blank, reduction="none", zero_infinity=zero_infinity)
    if impossible.any():
        fill = ops.full(loss.shape, 0.0 if zero_infinity else float("inf"), dtype=loss.dtype)
        loss = ops.where(mindspore.Tensor(impossible), fill, loss)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":  # each sequence's loss per target label, then the batch mean
        per_label = mindspore.Tensor(np.maximum(target_lengths, 1).astype(np.float64)).astype(loss.dtype)
        return (loss / per_label).mean()
    return loss.squeeze(0) if unbatched else loss
