"""torch.utils.data.distributed.DistributedSampler: each of `num_replicas` processes gets its own share."""
import math

from ._random import seeded_generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _process_group_size_and_rank():
    from ... import distributed as dist

    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size(), dist.get_rank()


class DistributedSampler(Sampler):
    """Indices `rank, rank + num_replicas, ...` of a (shuffled with `seed + epoch`) index list, padded (or cut,
    with `drop_last`) to a multiple of `num_replicas`. `num_replicas`/`rank` default to the process group's."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            world_size, group_rank = _process_group_size_and_rank()
            num_replicas = world_size if num_replicas is None else num_replicas
            rank = group_rank if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            # every replica draws the same permutation: torch's randperm from a generator seeded only by seed and
            # epoch, so the order is torch's own
            from ..._ops.random import randperm

            indices = randperm(len(self.dataset), generator=seeded_generator(self.seed + self.epoch)).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"expected {self.total_size} indices, got {len(indices)}")
        indices = indices[self.rank: self.total_size: self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"expected {self.num_samples} indices, got {len(indices)}")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch: with `shuffle=True` it changes the order (call it at the start of every epoch)."""
        self.epoch = epoch
