"""torch.sym_constrain_range, sym_constrain_range_for_size and sym_fresh_size on plain Python ints (eager
torch): the range checks raise torch's error for a value outside it, and a fresh size is the value itself."""

__all__ = ["sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size"]


_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def sym_constrain_range(size, min=None, max=None):
    low, high = _INT64_MIN if min is None else min, _INT64_MAX if max is None else max
    if isinstance(size, int) and not low <= size <= high:
        raise RuntimeError(f"Invalid value range for {size} between [{low}, {high}].")


def sym_constrain_range_for_size(size, min=None, max=None):
    sym_constrain_range(size, min=0 if min is None else min, max=max)


def sym_fresh_size(expr):
    return expr
