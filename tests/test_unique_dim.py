"""torch.unique(dim=...) against real torch: the distinct slices along a dimension, sorted lexicographically, with
their inverse indices and counts (it raised NotImplementedError)."""
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

CALLS = {
    "rows": lambda T: (T.tensor([[1, 2], [1, 2], [3, 4]]).unique(dim=0),),
    "rows counts and inverse": lambda T: T.tensor([[3, 4], [1, 2], [3, 4]]).unique(
        dim=0, return_inverse=True, return_counts=True),
    "columns, negative dim": lambda T: T.tensor([[2, 1, 2], [4, 3, 4]]).unique(
        dim=-1, return_inverse=True, return_counts=True),
    "floats": lambda T: (T.unique(T.tensor([[3.0, 1.0], [3.0, 1.0], [0.0, 5.0]]), dim=0),),
    "bools": lambda T: (T.tensor([[True, False], [True, False]]).unique(dim=0),),
    "1-d": lambda T: T.tensor([3, 1, 3]).unique(dim=0, return_inverse=True),
    "empty": lambda T: (T.zeros(0, 2).unique(dim=0),),
    "dim out of range": lambda T: (T.tensor([[1, 2]]).unique(dim=2),),
}


def _outcome(T, name):
    try:
        values = CALLS[name](T)
    except Exception:  # noqa: BLE001  (raising is what is compared)
        return ("error",)
    return tuple((str(v.dtype).replace("torch.", ""), tuple(v.shape), v.tolist()) for v in values)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_unique_along_a_dim_matches_torch(name):
    assert _outcome(mt, name) == _outcome(rt, name)
