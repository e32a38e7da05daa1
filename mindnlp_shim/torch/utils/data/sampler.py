"""torch.utils.data samplers: which indices a DataLoader fetches, in which order, in which batches."""
import numbers

import numpy as np
import mindspore

from ._random import draw_seed, randint, randperm, seeded_generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


class Sampler:
    """Base class: `__iter__` yields indices (or batches of indices); `__len__` is optional."""

    def __init__(self, data_source=None):
        if data_source is not None:
            import warnings

            warnings.warn("`data_source` argument is not used and will be removed in 2.2.0."
                          "You may still have custom implementation that utilizes it.", stacklevel=2)

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (or `num_samples` draws with replacement).

    Without a `generator`, each iteration draws one seed from the default generator and permutes with a fresh
    generator seeded by it, as torch does: `torch.manual_seed` fixes the order and each epoch differs.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else seeded_generator(draw_seed())
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(n, 32, generator)
            yield from randint(n, self.num_samples % 32, generator)
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator)
            yield from randperm(n, generator)[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (drawn from `generator`, or the default generator)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        values = np.asarray(weights.asnumpy() if isinstance(weights, mindspore.Tensor) else weights,
                            dtype=np.float64)
        if values.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(values.shape)}")
        self.weights = mindspore.Tensor.from_numpy(values)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from ..._ops.random import multinomial

        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless `drop_last`)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class _InfiniteConstantSampler(Sampler):
    """The DataLoader's index source for iterable datasets: None forever (the dataset decides what comes)."""

    def __iter__(self):
        while True:
            yield None
