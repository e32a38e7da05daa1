"""torch.linspace value for value against real torch, in every dtype: torch's own rounding (the first half from
start, the second from end, fused multiply-adds; float16 and bfloat16 rounding each operation; integers from the
truncated ends). np.linspace differed by an ulp in about half the float32 cases (linspace(-1, 1, 4) gave
-0.33333334 for torch's -0.33333331)."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_ENDS = st.floats(-1e4, 1e4, allow_nan=False).map(lambda v: round(v, 3)) | st.integers(-300, 300)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=_ENDS, end=_ENDS, steps=st.integers(0, 70),
       dtype=st.sampled_from(["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16"]))
def test_linspace_matches_torch(start, end, steps, dtype):
    want = rt.linspace(start, end, steps, dtype=getattr(rt, dtype))
    got = mt.linspace(start, end, steps, dtype=getattr(mt, dtype))
    assert str(got.dtype) == str(want.dtype)
    assert got.tolist() == want.tolist()


def test_linspace_default_dtype_and_errors():
    assert mt.linspace(-1, 1, 4).tolist() == rt.linspace(-1, 1, 4).tolist()
    for T in (mt, rt):
        try:
            T.linspace(0, 1, -1)
        except RuntimeError:
            continue
        raise AssertionError("a negative number of steps must raise")
