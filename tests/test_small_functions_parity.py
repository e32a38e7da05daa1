"""torch.conv_tbc, embedding_renorm_, histogramdd, from_file, cudnn_is_acceptable and the DLPack exchange
(mindnlp_shim/torch/_ops/small_functions.py) against real PyTorch in-process."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from test_tensor_method_parity import _run, _same, const  # (the comparison this module shares)

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(31)


def randn(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def distinct_rows(n, m):
    """No ties inside a segment (max/min and their gradients are then one element)."""
    return (_rng.permutation(n * m).reshape(n, m) / (n * m) * 4 - 2).astype(np.float32)


def _renormed(T, w):
    weight = w.detach().clone()
    out = T.embedding_renorm_(weight, T.tensor([[0, 2], [2, 4]]), 1.0, 2.0)
    return out, weight


CASES = {
    "conv_tbc": (lambda T, x, w, b: (T.conv_tbc(x, w, b), T.conv_tbc(x, w, b, 1)), [randn(7, 2, 3), randn(3, 3, 4),
                                                                                    randn(4)]),
    "embedding_renorm_": (_renormed, [randn(6, 3) * 3]),
    "histogramdd": (lambda T, x, w: (T.histogramdd(x, bins=[3, 4], range=[-2.0, 2.0, -1.0, 1.0], weight=w),
                                     T.histogramdd(x, 3, density=True)),
                    [const(randn(40, 2)), const(np.abs(randn(40)))]),
    "segment_reduce": (lambda T, d: tuple(T.segment_reduce(d, r, lengths=T.tensor([2, 0, 3, 1]))
                                          for r in ("sum", "mean", "max", "min", "prod"))
                       + (T.segment_reduce(d, "max", offsets=T.tensor([0, 2, 2, 6]), initial=0.5),
                          T.segment_reduce(d, "sum", lengths=T.tensor([4, 2]), initial=2.0)),
                       [distinct_rows(6, 3)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_function_matches_torch(name):
    fn, arrays = CASES[name]
    (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert (our_grads is None) == (their_grads is None)
    for i, (a, b) in enumerate(zip(our_grads or [], their_grads or [])):
        _same(a, b, f"grad[{i}]")


def test_from_file_reads_like_torch(tmp_path):
    path = tmp_path / "values.bin"
    randn(10).tofile(path)
    for dtype in ("float32", "int16"):
        ours = mt.from_file(str(path), size=6, dtype=getattr(mt, dtype))
        theirs = rt.from_file(str(path), size=6, dtype=getattr(rt, dtype))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(RuntimeError):
        mt.from_file(str(path), size=100)
    with pytest.raises(RuntimeError):
        rt.from_file(str(path), size=100)


def test_segment_reduce_refuses_like_torch():
    for T in (rt, mt):
        with pytest.raises(RuntimeError):
            T.segment_reduce(T.ones(4, 2), "sum", lengths=T.tensor([1, 2]))
        with pytest.raises(RuntimeError):
            T.segment_reduce(T.ones(4, 2), "sum", lengths=T.tensor([2, 2]), axis=1)


def test_cudnn_is_acceptable_answers_like_torch_on_cpu():
    assert mt.cudnn_is_acceptable(mt.ones(2)) == rt.cudnn_is_acceptable(rt.ones(2)) is False


def test_dlpack_exchange_with_real_torch():
    x = randn(3, 4)
    from_torch = mt.from_dlpack(rt.tensor(x))
    from_capsule = mt.from_dlpack(rt.utils.dlpack.to_dlpack(rt.tensor(x)))
    to_torch = rt.from_dlpack(mt.to_dlpack(mt.tensor(x)))
    for t in (from_torch, from_capsule):
        assert str(t.dtype) == "torch.float32"
        np.testing.assert_array_equal(t.numpy(), x)
    np.testing.assert_array_equal(to_torch.numpy(), x)
    # DLPack shares memory: a write to the source shows in the result, as in torch
    source = rt.tensor(x)
    shared = mt.from_dlpack(source)
    source[0, 0] = 100.0
    assert float(shared.numpy()[0, 0]) == 100.0


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.conv_tbc", "torch.embedding_renorm_", "torch.histogramdd", "torch.segment_reduce"):
        "test_function_matches_torch",
    "torch.from_file": "test_from_file_reads_like_torch",
    "torch.cudnn_is_acceptable": "test_cudnn_is_acceptable_answers_like_torch_on_cpu",
    ("torch.from_dlpack", "torch.to_dlpack"): "test_dlpack_exchange_with_real_torch",
}
