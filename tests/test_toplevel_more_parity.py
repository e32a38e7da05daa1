"""torch.empty_permuted, torch.qr, torch.vmap and torch.Future / fork / wait against real PyTorch in-process:
strides and dtypes of the permuted factory, QR factors and their gradients, vmap's values and gradients, and a
script of Future operations whose observations are compared."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from test_tensor_method_parity import _run, _same  # (the comparison this module shares)

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(29)


def randn(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("size,layout", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((5,), (0,)),
                                         ((2, 1, 3), (1, 2, 0))])
def test_empty_permuted_layout_matches_torch(size, layout):
    ours, theirs = mt.empty_permuted(size, layout, dtype=mt.float64), rt.empty_permuted(size, layout,
                                                                                         dtype=rt.float64)
    assert (tuple(ours.shape), ours.stride(), str(ours.dtype)) == (tuple(theirs.shape), theirs.stride(),
                                                                   str(theirs.dtype))


@pytest.mark.parametrize("size,stride", [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3, 4), (12, 1, 3)),
                                         ((2, 3, 4, 5), (60, 1, 15, 3)), ((4,), (1,))])
def test_empty_strided_layout_matches_torch(size, stride):
    ours, theirs = mt.empty_strided(size, stride), rt.empty_strided(size, stride)
    assert (tuple(ours.shape), ours.stride(), str(ours.dtype)) == (tuple(theirs.shape), theirs.stride(),
                                                                   str(theirs.dtype))
    ours = mt.zeros(1, dtype=mt.float64).new_empty_strided(size, stride)
    theirs = rt.zeros(1, dtype=rt.float64).new_empty_strided(size, stride)
    assert (tuple(ours.shape), ours.stride(), str(ours.dtype)) == (tuple(theirs.shape), theirs.stride(),
                                                                   str(theirs.dtype))


def test_empty_strided_with_gaps_says_it_is_unsupported():
    with pytest.raises(NotImplementedError, match="empty_strided"):
        mt.empty_strided((2, 3), (6, 2))


CASES = {
    "qr": (lambda T, a: (T.qr(a), T.qr(a[:3], some=False)), [randn(4, 3).astype(np.float64)]),
    "vmap": (lambda T, a, b: T.vmap(lambda x, y: (x * y).sum(-1), in_dims=(0, None))(a, b), [randn(3, 2, 4),
                                                                                          randn(4)]),
    "vmap_out_dims": (lambda T, a, b: T.vmap(lambda x, y: (x.sin() + y, x * 2), in_dims=(1, 1), out_dims=(1, 0))(a, b),
                      [randn(2, 3, 4), randn(2, 3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_function_matches_torch(name):
    fn, arrays = CASES[name]
    (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert len(our_grads) == len(their_grads)
    for i, (a, b) in enumerate(zip(our_grads, their_grads)):
        _same(a, b, f"grad[{i}]")


def test_vmap_refuses_mismatched_sizes_like_torch():
    for T in (rt, mt):
        with pytest.raises(ValueError):
            T.vmap(lambda x, y: x + y)(T.ones(2, 3), T.ones(3, 3))


def _futures(T):
    seen = []
    forked = T.fork(lambda a, b: a + b, T.ones(2), T.ones(2))
    seen.append((forked.done(), T.wait(forked).tolist(), forked.value().tolist()))
    future = T.Future([]) if T is rt else T.Future()
    chained = future.then(lambda f: f.value() * 10)
    calls = []
    future.add_done_callback(lambda f: calls.append(f.value()))
    seen.append((future.done(), chained.done()))
    future.set_result(3)
    seen.append((future.done(), future.wait(), chained.wait(), calls))
    with pytest.raises(RuntimeError):
        future.set_result(4)
    with pytest.raises(ZeroDivisionError):
        T.fork(lambda: 1 / 0)
    late = []
    future.add_done_callback(lambda f: late.append(f.value()))
    seen.append(late)
    return seen


def test_futures_fork_and_wait_behave_like_torch():
    assert _futures(mt) == _futures(rt)




def _symbolic(T):
    seen = [T.sym_fresh_size(7), T.sym_constrain_range(3, min=0, max=5), T.sym_constrain_range_for_size(4)]
    for call in (lambda: T.sym_constrain_range(3, min=4, max=5), lambda: T.sym_constrain_range(3, max=2),
                 lambda: T.sym_constrain_range_for_size(-1), lambda: T.sym_constrain_range_for_size(3, min=4)):
        try:
            call()
            seen.append("no error")
        except RuntimeError as exc:
            seen.append(str(exc))
    return seen


def test_symbolic_size_checks_on_ints_match_torch():
    assert _symbolic(mt) == _symbolic(rt)


def test_warn_always_setting_matches_torch():
    try:
        for value in (True, False, True):
            mt.set_warn_always(value)
            rt.set_warn_always(value)
            assert mt.is_warn_always_enabled() == rt.is_warn_always_enabled() == value
    finally:
        mt.set_warn_always(False)
        rt.set_warn_always(False)


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    "torch.empty_permuted": "test_empty_permuted_layout_matches_torch",
    ("torch.empty_strided", "torch.Tensor.new_empty_strided"): "test_empty_strided_layout_matches_torch",
    ("torch.qr", "torch.vmap"): "test_function_matches_torch",
    ("torch.Future", "torch.fork", "torch.wait"): "test_futures_fork_and_wait_behave_like_torch",
    ("torch.sym_fresh_size", "torch.sym_constrain_range", "torch.sym_constrain_range_for_size"):
        "test_symbolic_size_checks_on_ints_match_torch",
    "torch.set_warn_always": "test_warn_always_setting_matches_torch",
}
