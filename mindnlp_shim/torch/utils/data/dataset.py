"""torch.utils.data datasets: the map-style and iterable protocols and the standard compositions."""
import bisect
import itertools
import math
import warnings

from ._random import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]


class Dataset:
    """A map-style dataset: `__getitem__(index)` (and usually `__len__`). `a + b` concatenates."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """An iterable-style dataset: `__iter__()` yields the samples. `a + b` chains."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


def _first_dim(tensor):
    return tensor.shape[0]


class TensorDataset(Dataset):
    """Samples are tuples of the tensors' rows: `TensorDataset(x, y)[i] == (x[i], y[i])`."""

    def __init__(self, *tensors):
        if not all(_first_dim(tensors[0]) == _first_dim(t) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return _first_dim(self.tensors[0])


class StackDataset(Dataset):
    """Samples are tuples (positional datasets) or dicts (keyword datasets) of the datasets' samples."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, "
                             "but both types are given.")
        datasets = args or tuple(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        self._length = len(datasets[0])
        if any(self._length != len(d) for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The datasets one after another; negative indices count from the end."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        offset = idx if which == 0 else idx - self.cumulative_sizes[which - 1]
        return self.datasets[which][offset]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self):
        total = 0
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(dataset)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        # batched fetch, used by the DataLoader when the wrapped dataset supports it (e.g. HF datasets)
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split `dataset` into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    `generator=None` uses the default generator, so `torch.manual_seed` makes the split reproducible.
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        total = len(dataset)
        subset_lengths = [int(math.floor(total * fraction)) for fraction in lengths]
        for fraction in lengths:
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {lengths.index(fraction)} is not between 0 and 1")
        remainder = total - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator)
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
