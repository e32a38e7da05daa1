"""torch.distributed.tensor placements: plain descriptions of how a tensor would be laid out over a device mesh.

They are only data (transformers builds its tensor-parallel plan tables from them at import time); DTensor
itself, which would apply them, is not provided, so `distribute_tensor` raises."""


class Placement:
    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


class Shard(Placement):
    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return type(other) is type(self) and other.dim == self.dim

    def __hash__(self):
        return hash((type(self).__name__, self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"


class _StridedShard(Shard):
    def __init__(self, dim, split_factor):
        super().__init__(dim)
        self.split_factor = split_factor

    def __eq__(self, other):
        return super().__eq__(other) and other.split_factor == self.split_factor

    def __hash__(self):
        return hash((type(self).__name__, self.dim, self.split_factor))

    def __repr__(self):
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"


class Replicate(Placement):
    def is_replicate(self):
        return True

    def __eq__(self, other):
        return type(other) is Replicate

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"


class Partial(Placement):
    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other):
        return type(other) is Partial and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("Partial", self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"
