"""torch's autocast state functions (mindnlp_shim/torch/_autocast_settings.py) against real PyTorch in-process:
one script of set/query calls, direct and inside `with torch.autocast(...)` blocks, runs on both sides and every
answer is compared (dtypes by name). This compares the state torch reports; which ops change precision under
that state is the autocast policy's business (tests/test_amp.py)."""
import warnings

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _script(T):
    answers = []

    def note(*values):
        answers.append([str(v) for v in values])

    note(T.is_autocast_cache_enabled(), T.get_autocast_cpu_dtype(), T.get_autocast_ipu_dtype(),
         T.get_autocast_xla_dtype(), T.is_autocast_cpu_enabled(), T.is_autocast_ipu_enabled(),
         T.is_autocast_xla_enabled())
    note(T.autocast_increment_nesting(), T.autocast_increment_nesting(), T.autocast_decrement_nesting(),
         T.autocast_decrement_nesting())
    T.set_autocast_enabled("cpu", True)
    note(T.is_autocast_cpu_enabled(), T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu"))
    T.set_autocast_dtype("cpu", T.float16)
    note(T.get_autocast_cpu_dtype(), T.get_autocast_dtype("cpu"))
    with T.autocast("cpu", dtype=T.bfloat16, enabled=False):
        note(T.is_autocast_cpu_enabled(), T.get_autocast_cpu_dtype())
    note(T.is_autocast_cpu_enabled(), T.get_autocast_cpu_dtype())
    T.set_autocast_cpu_enabled(False)
    T.set_autocast_cpu_dtype(T.bfloat16)
    note(T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu"))
    T.set_autocast_gpu_dtype(T.bfloat16)
    note(T.get_autocast_gpu_dtype(), T.get_autocast_dtype("cuda"), T.is_autocast_enabled())
    T.set_autocast_ipu_enabled(True)
    T.set_autocast_ipu_dtype(T.bfloat16)
    T.set_autocast_xla_enabled(True)
    T.set_autocast_xla_dtype(T.float16)
    note(T.is_autocast_ipu_enabled(), T.get_autocast_ipu_dtype(), T.is_autocast_xla_enabled(),
         T.get_autocast_xla_dtype())
    T.set_autocast_ipu_enabled(False)
    T.set_autocast_xla_enabled(False)
    T.set_autocast_ipu_dtype(T.float16)
    T.set_autocast_xla_dtype(T.bfloat16)
    T.set_autocast_cache_enabled(False)
    note(T.is_autocast_cache_enabled())
    T.set_autocast_cache_enabled(True)
    T.clear_autocast_cache()
    note(T.is_autocast_cache_enabled(), T.is_autocast_enabled("cpu"))
    T.set_autocast_gpu_dtype(T.float16)
    return answers


def test_autocast_state_functions_answer_like_torch():
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = _script(mt)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = _script(rt)
    assert ours == theirs
    # the older spellings warn with torch's words (torch's text adds where in its sources it was triggered)
    ours_said = {str(w.message) for w in ours_warned if issubclass(w.category, DeprecationWarning)}
    theirs_said = {str(w.message).split(" (Triggered internally")[0] for w in theirs_warned
                   if issubclass(w.category, DeprecationWarning)}
    assert len(ours_said) == 13 and ours_said <= theirs_said  # (each older spelling once)


def test_state_set_outside_a_region_is_the_regions_state():
    mt.set_autocast_enabled("cpu", True)
    try:
        with mt.autocast("cpu", dtype=mt.bfloat16):
            assert mt.get_autocast_dtype("cpu") == mt.bfloat16
        assert mt.is_autocast_enabled("cpu") and mt.get_autocast_dtype("cpu") == mt.bfloat16
    finally:
        mt.set_autocast_enabled("cpu", False)
    assert not mt.is_autocast_enabled("cpu")


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.set_autocast_enabled", "torch.set_autocast_dtype", "torch.is_autocast_cpu_enabled",
     "torch.is_autocast_ipu_enabled", "torch.is_autocast_xla_enabled", "torch.set_autocast_cpu_enabled",
     "torch.set_autocast_ipu_enabled", "torch.set_autocast_xla_enabled", "torch.get_autocast_cpu_dtype",
     "torch.get_autocast_ipu_dtype", "torch.get_autocast_xla_dtype", "torch.set_autocast_cpu_dtype",
     "torch.set_autocast_gpu_dtype", "torch.set_autocast_ipu_dtype", "torch.set_autocast_xla_dtype",
     "torch.is_autocast_cache_enabled", "torch.set_autocast_cache_enabled", "torch.clear_autocast_cache",
     "torch.autocast_increment_nesting", "torch.autocast_decrement_nesting"):
        "test_autocast_state_functions_answer_like_torch",
}
