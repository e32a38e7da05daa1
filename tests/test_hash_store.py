"""torch.distributed.HashStore against real torch: generated sequences of set/add/append/compare_set/get/check/
delete_key/num_keys/multi_get give the same answers and errors; waits time out with DistStoreError; threads wake
a waiting get; a one-process group forms on it (peft's tests do)."""
import datetime
import threading

import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch.distributed as md
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from shim_runner import run_shim_json

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


keys = st.sampled_from(["a", "b", "c"])
values = st.sampled_from(["", "1", "-4", "x", b"\x00\x07", "12"])
operations = st.one_of(
    st.tuples(st.just("set"), keys, values), st.tuples(st.just("add"), keys, st.integers(-3, 3)),
    st.tuples(st.just("append"), keys, values), st.tuples(st.just("compare_set"), keys, values, values),
    st.tuples(st.just("get"), keys), st.tuples(st.just("check"), st.lists(keys, max_size=2)),
    st.tuples(st.just("delete_key"), keys), st.tuples(st.just("num_keys")),
    st.tuples(st.just("multi_get"), st.lists(keys, max_size=2)))


def _run(store, sequence):
    store.set_timeout(datetime.timedelta(milliseconds=20))
    answers = []
    for name, *args in sequence:
        try:
            answers.append(getattr(store, name)(*args))
        except Exception as exc:  # noqa: BLE001  (the error type is compared)
            answers.append(type(exc).__name__)
    return answers


@settings(max_examples=150, deadline=None)
@given(st.lists(operations, max_size=12))
def test_operations_match_torch(sequence):
    assert _run(md.HashStore(), sequence) == _run(rt.distributed.HashStore(), sequence)


def test_timeouts_and_types_match_torch():
    for dist in (md, rt.distributed):
        store = dist.HashStore()
        assert store.timeout == datetime.timedelta(minutes=5) and isinstance(store, dist.Store)
        with pytest.raises(dist.DistStoreError, match="Wait timeout"):
            store.wait(["missing"], datetime.timedelta(milliseconds=10))
        assert issubclass(dist.DistStoreError, RuntimeError)


def test_a_waiting_get_wakes_when_another_thread_sets_the_key():
    store = md.HashStore()
    threading.Timer(0.05, store.set, ("late", "here")).start()
    assert store.get("late") == b"here"


def test_one_process_group_on_a_hash_store_under_the_shim():
    out = run_shim_json(["-c", """
import json
import mindnlp, torch
import torch.distributed as dist
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
t = torch.tensor([1.0, 2.0])
dist.all_reduce(t)
print(json.dumps([dist.get_world_size(), dist.get_rank(), t.tolist()]))
dist.destroy_process_group()
"""])
    assert out == [1, 0, [1.0, 2.0]]
