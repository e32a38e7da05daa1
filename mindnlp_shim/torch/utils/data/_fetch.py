"""Turning the index (or batch of indices) a sampler yields into a collated batch, for map-style and
iterable datasets; the same fetchers run in the main process and in worker processes."""


class MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            samples = getitems(index) if getitems else [self.dataset[i] for i in index]
        else:
            samples = self.dataset[index]
        return self.collate_fn(samples)


class IterableFetcher:
    """Pulls samples from one iterator over the dataset; raises StopIteration once it is used up."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        samples = []
        for _ in index:
            try:
                samples.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if len(samples) == 0 or (self.drop_last and len(samples) < len(index)):
            raise StopIteration
        return self.collate_fn(samples)


def make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    cls = IterableFetcher if iterable else MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
