"""torch.nn.utils.rnn: batching variable-length sequences (padding and packing).

Sequences are tensors of shape (L_i, *). Padding builds one (B, L_max, *) tensor (or (L_max, B, *)) from
differentiable shim ops (cat and stack), so gradients reach every sequence. A PackedSequence holds the
time-major interleaving torch's recurrent layers consume; it is built and undone here with the same ops
(the shim itself provides no recurrent layers).
"""
from collections import namedtuple

import mindspore

from ..._ops import creation, indexing, shape

__all__ = ["PackedSequence", "pad_sequence", "unpad_sequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence"]


def _padded(sequence, length, padding_value, padding_side):
    missing = length - sequence.shape[0]
    if missing == 0:
        return sequence
    filler = creation.full((missing,) + tuple(sequence.shape[1:]), padding_value, dtype=sequence.dtype)
    parts = [sequence, filler] if padding_side == "right" else [filler, sequence]
    return shape.cat(parts, 0)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences (L_i, *) into (B, L_max, *) if `batch_first` else (L_max, B, *), filling with
    `padding_value` on `padding_side` ('right' or 'left')."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, mindspore.Tensor):
        sequences = list(shape.unbind(sequences, 0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    length = max(s.shape[0] for s in sequences)
    padded = shape.stack([_padded(s, length, padding_value, padding_side) for s in sequences], 0)
    return padded if batch_first else shape.transpose(padded, 0, 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of `pad_sequence` for right padding: a list of (L_i, *) tensors."""
    if not batch_first:
        padded_sequences = shape.transpose(padded_sequences, 0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(_as_list(lengths))]


def _as_list(lengths):
    if isinstance(lengths, mindspore.Tensor):
        return [int(n) for n in lengths.asnumpy().reshape(-1)]
    return [int(n) for n in lengths]


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Time-major packing: `data` holds step 0 of every sequence, then step 1 of those still running, ...;
    `batch_sizes[t]` is how many sequences run at step t (sequences ordered by decreasing length)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _inverse_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return type(self)(self.data.to(*args, **kwargs), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _inverse_permutation(permutation):
    order = [int(i) for i in permutation.asnumpy()]
    inverse = [0] * len(order)
    for position, index in enumerate(order):
        inverse[index] = position
    return creation.tensor(inverse, dtype=mindspore.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ((T, B, *) or (B, T, *)) of sequences with the given lengths."""
    lengths = _as_list(lengths)
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_sequence and/or pack_padded_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        order, sorted_indices = list(range(len(lengths))), None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = creation.tensor(order, dtype=mindspore.int64)
    batch_major = input if batch_first else shape.transpose(input, 0, 1)
    batch_major = indexing.index_select(batch_major, 0, creation.tensor(order, dtype=mindspore.int64))
    sorted_lengths = [lengths[i] for i in order]
    steps, batch_sizes = [], []
    for t in range(sorted_lengths[0]):
        running = sum(1 for n in sorted_lengths if n > t)
        steps.append(batch_major[:running, t])
        batch_sizes.append(running)
    data = shape.cat(steps, 0)
    return PackedSequence(data, creation.tensor(batch_sizes, dtype=mindspore.int64), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo `pack_padded_sequence`: (padded batch, lengths as an int64 tensor)."""
    data, batch_sizes = sequence.data, _as_list(sequence.batch_sizes)
    max_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_length}")
        max_length = total_length
    batch = batch_sizes[0]
    lengths = [sum(1 for size in batch_sizes if size > b) for b in range(batch)]
    # rows of data belonging to sequence b, in time order
    starts, offset = [], 0
    for size in batch_sizes:
        starts.append(offset)
        offset += size
    sequences = []
    for b in range(batch):
        rows = creation.tensor([starts[t] + b for t in range(lengths[b])], dtype=mindspore.int64)
        sequences.append(indexing.index_select(data, 0, rows))
    padded = shape.stack([_padded(s, max_length, padding_value, "right") for s in sequences], 0)
    length_tensor = creation.tensor(lengths, dtype=mindspore.int64)
    if sequence.unsorted_indices is not None:
        padded = indexing.index_select(padded, 0, sequence.unsorted_indices)
        length_tensor = indexing.index_select(length_tensor, 0, sequence.unsorted_indices)
    return (padded if batch_first else shape.transpose(padded, 0, 1)), length_tensor


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of (L_i, *) tensors."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of (L_i, *) tensors a PackedSequence holds, in the order they were packed."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
