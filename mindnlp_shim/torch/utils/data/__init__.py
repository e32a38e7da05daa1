"""torch.utils.data: datasets, samplers, collation and the DataLoader."""
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,  # noqa: F401
                      Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler, BatchSampler)
from .distributed import DistributedSampler  # noqa: F401
from ._collate import default_collate, default_convert  # noqa: F401
from ._worker import get_worker_info, WorkerInfo  # noqa: F401
from .dataloader import DataLoader, _DatasetKind  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedSampler", "DataLoader", "default_collate",
           "default_convert", "get_worker_info"]
