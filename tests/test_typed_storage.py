"""`Tensor.storage()` (torch's deprecated TypedStorage) against real torch, over generated tensors and views of
them: element count, bytes, element size, dtype, the pointer it shares with untyped_storage(), the elements of
the whole storage, indexing; and its one deprecation warning."""
import warnings

import numpy as np
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

API_CENSUS = {"torch.Tensor.storage": "test_typed_storage_matches_torch",
              "torch.TypedStorage": "test_typed_storage_matches_torch"}

VIEWS = {
    "whole": lambda x: x,
    "row": lambda x: x[-1],
    "column": lambda x: x[:, 1:],
    "transposed": lambda x: x.t(),
}


def _answer(T, values, dtype, view):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = T.tensor(values, dtype=getattr(T, dtype))
        tensor = VIEWS[view](base)
        s = tensor.storage()
    return (type(s).__name__, isinstance(s, T.TypedStorage), s.size(), len(s), s.nbytes(), s.element_size(),
            str(s.dtype), s.data_ptr() == tensor.untyped_storage().data_ptr(), s.tolist(), s[s.size() - 1],
            s.is_shared())


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(2, 4), st.sampled_from(["float32", "int64", "int32", "float64", "bool"]),
       st.sampled_from(sorted(VIEWS)), st.integers(0, 2 ** 16))
def test_typed_storage_matches_torch(rows, columns, dtype, view, seed):
    values = np.random.default_rng(seed).integers(-5, 5, (rows, columns)).tolist()
    assert _answer(mt, values, dtype, view) == _answer(rt, values, dtype, view)


def test_storage_warns_that_typed_storage_is_deprecated():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import mindnlp_shim.torch._typed_storage as typed

        typed._warned = False
        mt.ones(2).storage()
    assert any("TypedStorage is deprecated" in str(w.message) for w in caught)
