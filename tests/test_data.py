"""torch.utils.data: collation rules, datasets, samplers and their reproducibility under torch.manual_seed and
RNG-state restore, DataLoader batching and argument errors, iterable datasets, and worker processes."""
import collections
import multiprocessing
import os
import random

os.environ.setdefault("GLOG_v", "3")

import mindspore  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,  # noqa: E402
                                           DistributedSampler, IterableDataset, RandomSampler, SequentialSampler,
                                           StackDataset, Subset, SubsetRandomSampler, TensorDataset,
                                           WeightedRandomSampler, default_collate, default_convert, get_worker_info,
                                           random_split)

Point = collections.namedtuple("Point", ["x", "y"])


# --- module-level datasets and functions: worker processes receive them pickled -----------------------------
class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return {"x": np.float32(i), "y": torch.tensor([i, i * i]), "name": f"item{i}"}


class FailsAt(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise KeyError(f"no sample {i}")
        return i


class ShardedRange(IterableDataset):
    """Yields range(n); in workers each worker yields its own share (the documented get_worker_info pattern)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class WorkerReport(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return [info.id, info.seed, random.randint(0, 10 ** 9), INIT_MARK.get("value", -1)]


INIT_MARK = {}


def mark_init(worker_id):
    INIT_MARK["value"] = 100 + worker_id


def sum_collate(batch):
    return sum(batch)


def _values(batch):
    return batch.asnumpy().tolist()


# ---------------------------------------------------------------------------------- collation
def test_default_collate_rules():
    batch = default_collate([{"t": torch.tensor([1.0, 2.0]), "a": np.array([1, 2], np.int32), "f": 0.5, "i": 3,
                              "b": True, "s": "x", "n": np.float32(2.5), "p": Point(1, 2.0), "tup": (1, "a"),
                              "l": [1, 2]}] * 2)
    assert tuple(batch["t"].shape) == (2, 2) and batch["t"].dtype == torch.float32
    assert batch["a"].dtype == torch.int32 and tuple(batch["a"].shape) == (2, 2)
    assert batch["f"].dtype == torch.float64 and _values(batch["f"]) == [0.5, 0.5]
    assert batch["i"].dtype == torch.int64 and batch["b"].dtype == torch.bool
    assert batch["s"] == ["x", "x"]
    assert batch["n"].dtype == torch.float32 and tuple(batch["n"].shape) == (2,)
    assert isinstance(batch["p"], Point) and batch["p"].y.dtype == torch.float64
    assert isinstance(batch["tup"], list) and batch["tup"][1] == ["a", "a"]  # tuples become lists, like torch
    assert isinstance(batch["l"], list) and _values(batch["l"][1]) == [2, 2]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([torch.zeros(2), torch.zeros(3)])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object(), object()])


def test_default_convert():
    converted = default_convert({"a": np.arange(3), "b": (np.float64(1.5), "s"), "c": [1, 2]})
    assert isinstance(converted["a"], mindspore.Tensor) and converted["a"].dtype == torch.int64
    assert isinstance(converted["b"], list) and float(converted["b"][0]) == 1.5 and converted["b"][1] == "s"
    assert converted["c"] == [1, 2]
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings


# ---------------------------------------------------------------------------------- datasets
def test_tensor_concat_subset_stack_chain_datasets():
    x, y = torch.arange(6).reshape(3, 2), torch.tensor([0, 1, 2])
    tds = TensorDataset(x, y)
    assert len(tds) == 3 and _values(tds[1][0]) == [2, 3] and int(tds[1][1]) == 1
    with pytest.raises(AssertionError, match="Size mismatch"):
        TensorDataset(x, torch.zeros(2))
    concat = Squares(3) + Squares(2)
    assert isinstance(concat, ConcatDataset) and len(concat) == 5 and concat.cumulative_sizes == [3, 5]
    assert concat[3]["name"] == "item0" and concat[-1]["name"] == "item1"
    with pytest.raises(ValueError, match="absolute value"):
        concat[-6]
    subset = Subset(Squares(), [7, 2])
    assert len(subset) == 2 and subset[0]["name"] == "item7"
    assert [s["name"] for s in subset.__getitems__([1, 0])] == ["item2", "item7"]
    stacked = StackDataset(a=Squares(2), b=Squares(2))
    assert stacked[1]["b"]["name"] == "item1"
    chained = ShardedRange(2) + ShardedRange(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5


def test_random_split_lengths_fractions_and_seed():
    torch.manual_seed(3)
    a, b = random_split(range(10), [7, 3])
    torch.manual_seed(3)
    c, d = random_split(range(10), [0.7, 0.3])
    assert list(a) == list(c) and list(b) == list(d)
    assert sorted(list(a) + list(b)) == list(range(10))
    parts = random_split(range(10), [0.34, 0.33, 0.33])
    assert [len(p) for p in parts] == [4, 3, 3]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(10), [5, 6])
    g = torch.Generator().manual_seed(1)
    first = list(random_split(range(10), [5, 5], generator=g)[0])
    g.manual_seed(1)
    assert list(random_split(range(10), [5, 5], generator=g)[0]) == first


# ---------------------------------------------------------------------------------- samplers
def test_random_sampler_follows_the_global_seed_and_rng_state():
    data = range(20)
    torch.manual_seed(0)
    first, second = list(RandomSampler(data)), list(RandomSampler(data))
    assert sorted(first) == list(range(20)) and first != second
    torch.manual_seed(0)
    assert list(RandomSampler(data)) == first
    state = torch.get_rng_state()
    after_state = list(RandomSampler(data))
    torch.set_rng_state(state)
    assert list(RandomSampler(data)) == after_state


def test_random_sampler_with_generator_matches_randperm_and_replacement():
    g = torch.Generator().manual_seed(7)
    assert list(RandomSampler(range(10), generator=g)) == \
        torch.randperm(10, generator=torch.Generator().manual_seed(7)).tolist()
    sampler = RandomSampler(range(5), replacement=True, num_samples=70, generator=g)
    drawn = list(sampler)
    assert len(drawn) == len(sampler) == 70 and set(drawn) <= set(range(5))
    assert len(list(RandomSampler(range(4), num_samples=10))) == 10  # more than one permutation
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(3), num_samples=0)


def test_subset_weighted_and_batch_samplers():
    torch.manual_seed(0)
    assert sorted(SubsetRandomSampler([3, 5, 9])) == [3, 5, 9]
    weighted = list(WeightedRandomSampler([0.0, 1.0, 0.0, 1.0], 50))
    assert len(weighted) == 50 and set(weighted) == {1, 3}
    assert sorted(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False)) == [0, 1, 2]
    with pytest.raises(ValueError, match="1d sequence"):
        WeightedRandomSampler([[1.0]], 1)
    batches = BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)
    assert list(batches) == [[0, 1, 2], [3, 4, 5], [6]] and len(batches) == 3
    dropped = BatchSampler(SequentialSampler(range(7)), 3, drop_last=True)
    assert list(dropped) == [[0, 1, 2], [3, 4, 5]] and len(dropped) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean"):
        BatchSampler(range(3), 2, None)


def test_distributed_sampler_with_explicit_replicas():
    shares = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert shares == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded to a multiple of 3
    cut = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False, drop_last=True))
           for r in range(3)]
    assert sorted(sum(cut, [])) == list(range(9))
    shuffled = [DistributedSampler(range(10), num_replicas=2, rank=r, seed=5) for r in range(2)]
    epoch0 = [list(s) for s in shuffled]
    assert sorted(epoch0[0] + epoch0[1]) == list(range(10))
    assert list(shuffled[0]) == epoch0[0]  # same epoch, same order
    for s in shuffled:
        s.set_epoch(1)
    assert [list(s) for s in shuffled] != epoch0
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))  # replicas and rank come from a process group, and there is none


# ---------------------------------------------------------------------------------- DataLoader (main process)
def test_batches_len_and_drop_last():
    loader = DataLoader(Squares(10), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert _values(batches[2]["x"]) == [8.0, 9.0] and batches[0]["name"] == ["item0", "item1", "item2", "item3"]
    assert _values(batches[1]["y"])[0] == [4, 16]
    loader = DataLoader(Squares(10), batch_size=4, drop_last=True)
    assert len(loader) == 2 and len(list(loader)) == 2


def test_shuffle_is_reproducible_and_differs_between_epochs():
    def order(loader):
        return [int(v) for batch in loader for v in _values(batch["x"])]

    torch.manual_seed(42)
    loader = DataLoader(Squares(12), batch_size=5, shuffle=True)
    epoch1, epoch2 = order(loader), order(loader)
    assert sorted(epoch1) == list(range(12)) and epoch1 != epoch2
    torch.manual_seed(42)
    assert order(DataLoader(Squares(12), batch_size=5, shuffle=True)) == epoch1
    g = torch.Generator().manual_seed(9)
    with_generator = order(DataLoader(Squares(12), batch_size=5, shuffle=True, generator=g))
    g.manual_seed(9)
    assert order(DataLoader(Squares(12), batch_size=5, shuffle=True, generator=g)) == with_generator


def test_batch_sampler_sampler_and_no_auto_batching():
    loader = DataLoader(Squares(6), batch_sampler=[[5, 0], [2]])
    assert [_values(b["x"]) for b in loader] == [[5.0, 0.0], [2.0]] and len(loader) == 2
    loader = DataLoader(Squares(6), sampler=[3, 1], batch_size=2)
    assert _values(next(iter(loader))["x"]) == [3.0, 1.0]
    loader = DataLoader(Squares(3), batch_size=None)
    first = next(iter(loader))
    assert first["name"] == "item0" and isinstance(first["x"], mindspore.Tensor) and first["x"].shape == ()
    loader = DataLoader(list(range(7)), batch_size=3, collate_fn=sum_collate)
    assert list(loader) == [3, 12, 6]


def test_dataset_getitems_is_used_for_batches():
    class Batched(Squares):
        calls = []

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [self[i] for i in indices]

    dataset = Batched(5)
    list(DataLoader(dataset, batch_size=2))
    assert dataset.calls == [[0, 1], [2, 3], [4]]


def test_iterable_dataset_in_main_process():
    loader = DataLoader(ShardedRange(7), batch_size=3)
    assert [_values(b) for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    loader = DataLoader(ShardedRange(7), batch_size=3, drop_last=True)
    assert [_values(b) for b in loader] == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2
    assert [int(v) for v in DataLoader(ShardedRange(3), batch_size=None)] == [0, 1, 2]
    assert get_worker_info() is None


def test_argument_errors():
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(Squares(), sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(Squares(), batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader(Squares(), batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(Squares(), num_workers=-1)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified"):
        DataLoader(Squares(), prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(Squares(), persistent_workers=True)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        DataLoader(Squares(), timeout=-1)
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(ShardedRange(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(ShardedRange(3), sampler=[0])
    with pytest.raises(ValueError, match="multiprocessing_context can only be used"):
        DataLoader(Squares(), multiprocessing_context="spawn")
    with pytest.raises(ValueError, match="valid start method"):
        DataLoader(Squares(), num_workers=1, multiprocessing_context="nonsense")
    assert DataLoader(Squares(), num_workers=1, multiprocessing_context="fork").multiprocessing_context \
        .get_start_method() == "fork"  # torch's Linux default; MindSpore's fork handlers make it safe
    loader = DataLoader(Squares())
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 3
    loader.generator = torch.Generator()  # allowed, as in torch (accelerate sets it)
    assert not hasattr(loader, "shuffle")  # accelerate rebuilds loaders from the attributes torch has


# ---------------------------------------------------------------------------------- worker processes
def test_workers_give_the_same_batches_as_the_main_process():
    expected = [(b["name"], _values(b["y"])) for b in DataLoader(Squares(11), batch_size=3)]
    loader = DataLoader(Squares(11), batch_size=3, num_workers=2)
    got = [(b["name"], _values(b["y"])) for b in loader]
    assert got == expected
    unordered = DataLoader(Squares(11), batch_size=3, num_workers=2, in_order=False, prefetch_factor=1)
    assert sorted(b["name"][0] for b in unordered) == sorted(e[0][0] for e in expected)


def test_worker_info_seeds_init_fn_and_persistent_workers():
    torch.manual_seed(0)
    loader = DataLoader(WorkerReport(), batch_size=1, num_workers=2, worker_init_fn=mark_init,
                        persistent_workers=True, collate_fn=lambda_free_collate)
    first = list(loader)
    ids = [row[0] for row in first]
    assert ids == [0, 1, 0, 1]  # round robin, in order
    seeds = {row[0]: row[1] for row in first}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker id
    assert {row[3] for row in first} == {100, 101}  # worker_init_fn ran in each worker
    assert first[0][2] != first[1][2]  # Python's random is seeded per worker
    iterator = loader._iterator
    second = list(loader)
    assert loader._iterator is iterator and [row[0] for row in second] == [0, 1, 0, 1]
    assert [row[1] for row in second] == [row[1] for row in first]  # same processes, same seeds
    iterator._shutdown_workers()


def lambda_free_collate(batch):
    return batch[0]


def test_iterable_dataset_with_workers_and_errors():
    loader = DataLoader(ShardedRange(10), batch_size=2, num_workers=2)
    values = sorted(v for batch in loader for v in _values(batch))
    assert values == list(range(10))
    iterator = iter(DataLoader(FailsAt(), batch_size=2, num_workers=2))
    assert _values(next(iterator)) == [0, 1] and _values(next(iterator)) == [2, 3]
    with pytest.raises(KeyError, match="no sample 4") as info:
        next(iterator)
    assert "in DataLoader worker process 0" in str(info.value)


def test_unpicklable_dataset_gives_a_clear_error():
    class Local(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return i

    with pytest.raises(RuntimeError, match="must be picklable"):
        iter(DataLoader(Local(), num_workers=1, multiprocessing_context="spawn"))
    if multiprocessing.get_start_method() == "fork":  # forked workers inherit it, as in torch on Linux
        assert [int(v) for v in DataLoader(Local(), batch_size=None, num_workers=1)] == [0, 1]
