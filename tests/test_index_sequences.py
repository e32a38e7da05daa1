"""Index items that are Python or NumPy sequences, as torch reads them: a `range`, a tuple inside the index tuple,
a list of NumPy integers or of 0-d tensors are index tensors made from their values (MindSpore refuses a range and
a list holding NumPy integers); a whole index that is a short list holding a sequence, tensor, slice or None is a
tuple of items. Generated indices mixing these with ints, slices, None, Ellipsis, NumPy arrays and tensors are
compared with real torch: the values read, their gradients, and writes."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

SHAPE = (3, 4, 5)


def _positions(size):
    return st.lists(st.integers(-size, size - 1), min_size=0, max_size=3)


def _sequence_item(size):
    """(kind, values): an advanced item of one dimension of `size`, built per framework by `_build`."""
    kinds = st.sampled_from(["range", "tuple", "list", "list_np", "list_0d", "np_int64", "np_int32", "tensor"])
    return st.tuples(kinds, _positions(size))


def _build(T, spec):
    kind, value = spec
    if kind == "int":
        return value
    if kind == "np_scalar":
        return np.int64(value)
    if kind == "zero_d":
        return T.tensor(value)
    if kind == "slice":
        return slice(*value)
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "range":
        start, stop, step = value
        return range(start, stop, step)
    if kind == "tuple":
        return tuple(value)
    if kind == "list":
        return list(value)
    if kind == "list_np":
        return [np.int64(v) for v in value]
    if kind == "list_0d":
        return [T.tensor(v) for v in value]
    if kind == "np_int64":
        return np.array(value, dtype=np.int64)
    if kind == "np_int32":
        return np.array(value, dtype=np.int32)
    return T.tensor(value, dtype=T.int64)


@st.composite
def _index(draw):
    """A tuple of items over SHAPE with at least one sequence item (a range among them half the time)."""
    items, dim = [], 0
    for size in SHAPE[:draw(st.integers(1, len(SHAPE)))]:
        choice = draw(st.sampled_from(["int", "np_scalar", "zero_d", "slice", "range", "sequence", "none"]))
        if choice == "none":
            items.append(("none", None))
        if choice in ("int", "np_scalar", "zero_d"):
            items.append((choice, draw(st.integers(-size, size - 1))))
        elif choice == "slice":
            items.append(("slice", (draw(st.integers(0, size)), None, draw(st.integers(1, 2)))))
        elif choice == "range":
            start = draw(st.integers(0, size))
            items.append(("range", (start, draw(st.integers(start, size)), draw(st.integers(1, 2)))))
        else:
            items.append(draw(_sequence_item(size)))
        dim += 1
    if not any(kind not in ("int", "np_scalar", "zero_d", "slice", "none") for kind, _ in items):
        items.append(("range", (0, SHAPE[dim] if dim < len(SHAPE) else 1, 1)))
    if draw(st.booleans()) and dim < len(SHAPE):
        items.insert(draw(st.integers(0, len(items))), ("ellipsis", None))
    whole = draw(st.sampled_from(["tuple", "list"] if len(items) > 1 else ["tuple", "single"]))
    return whole, items


def _whole(T, case):
    whole, items = case
    built = [_build(T, spec) for spec in items]
    return built[0] if whole == "single" else list(built) if whole == "list" else tuple(built)


def _outcome(T, case, action):
    x = T.arange(float(np.prod(SHAPE))).reshape(SHAPE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch's deprecation warning for a list read as a tuple)
            return "ok", action(T, x, _whole(T, case))
    except (IndexError, RuntimeError, ValueError, TypeError) as exc:
        return "error", type(exc).__name__


def _read(T, x, index):
    out = x[index]
    return tuple(out.shape), out.reshape(-1).tolist()


def _gradient(T, x, index):
    x.requires_grad_()
    out = x[index]
    (out * (T.arange(out.numel(), dtype=T.float32).reshape(out.shape) + 1)).sum().backward()
    return x.grad.reshape(-1).tolist()


def _write(T, x, index):
    x[index] = -1.0
    return x.reshape(-1).tolist()


@settings(max_examples=150, deadline=None, database=None)
@given(_index())
def test_reads_match_torch(case):
    assert _outcome(mt, case, _read) == _outcome(rt, case, _read)


@settings(max_examples=60, deadline=None, database=None)
@given(_index())
def test_gradients_match_torch(case):
    assert _outcome(mt, case, _gradient) == _outcome(rt, case, _gradient)


@settings(max_examples=150, deadline=None, database=None)
@given(_index())
def test_writes_match_torch(case):
    assert _outcome(mt, case, _write) == _outcome(rt, case, _write)


@pytest.mark.parametrize("index", [
    lambda T: (range(3), [2, 0, 1]),  # peft's IncrementalPCA: signs of u[max_abs_cols, range(n)]
    lambda T: [range(2), slice(None)],
    lambda T: range(0),
    lambda T: [0.5, 1],
])
def test_named_cases_match_torch(index):
    read = lambda T: _outcome(T, ("single", [("given", None)]), lambda T_, x, _: _read(T_, x, index(T_)))
    assert read(mt) == read(rt)


@pytest.mark.parametrize("index", [lambda T: [slice(1, None)], lambda T: [None], lambda T: [T.tensor([0, 2])]])
def test_one_item_list_read_as_a_tuple_matches_torch(index):
    outcomes = []
    for T in (mt, rt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x, y = T.arange(12.0).reshape(3, 4), T.arange(12.0).reshape(3, 4)
            read = x[index(T)]
            y[index(T)] = -1.0
        outcomes.append((tuple(read.shape), read.reshape(-1).tolist(), y.reshape(-1).tolist()))
    assert outcomes[0] == outcomes[1]
