"""torch.distributed's stores shared between processes (FileStore, TCPStore, PrefixStore) against real torch's,
and process groups formed on them by processes forked off a MindSpore process (accelerate's debug_launcher):
- generated sequences of store operations, alternating between two instances on one file / one server, give
  real torch's answers and errors; timeouts raise torch's error types with torch's messages;
- tests/scripts/distributed_store_run.py runs on the shim and on real torch (gloo): 3 forked ranks on
  file:// run every collective on every dtype, subgroups and object collectives; DDP trains on their shards; 2 ranks
  on an explicit TCPStore and on env://; a collective a rank never joins times out with a clear error."""
import datetime
import os
import pickle
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import distributed_jobs
import mindnlp_shim.torch.distributed as md
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from shim_runner import REPO_ROOT, run_shim_json, script, shim_env

sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "scripts"))
from distributed_inputs import STORE_DTYPES  # noqa: E402

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

SHORT = datetime.timedelta(milliseconds=20)


# ---------------------------------------------------------------- store semantics against real torch
instances = st.sampled_from([0, 1])
keys = st.sampled_from(["a", "b", "c"])
values = st.sampled_from(["", "1", "-4", "x", b"\x00\x07", "12"])
file_operations = st.one_of(
    st.tuples(instances, st.just("set"), keys, values), st.tuples(instances, st.just("add"), keys, st.integers(-3, 3)),
    st.tuples(instances, st.just("append"), keys, values),
    st.tuples(instances, st.just("compare_set"), keys, values, values),
    st.tuples(instances, st.just("get"), keys), st.tuples(instances, st.just("check"), st.lists(keys, max_size=2)),
    st.tuples(instances, st.just("delete_key"), keys), st.tuples(instances, st.just("num_keys")),
    st.tuples(instances, st.just("list_keys")), st.tuples(instances, st.just("multi_get"), st.lists(keys, max_size=2)),
    st.tuples(instances, st.just("wait"), st.lists(keys, min_size=1, max_size=2)))
# real torch's TCPStore server drops the connection on `add` to a value that is not a number: counters get keys
# of their own there
counters = st.sampled_from(["n", "m"])
tcp_operations = st.one_of(
    st.tuples(instances, st.just("set"), keys, values), st.tuples(instances, st.just("add"), counters,
                                                                  st.integers(-3, 3)),
    st.tuples(instances, st.just("append"), keys, values),
    st.tuples(instances, st.just("compare_set"), keys, values, values),
    st.tuples(instances, st.just("get"), st.one_of(keys, counters)),
    st.tuples(instances, st.just("check"), st.lists(st.one_of(keys, counters), max_size=2)),
    st.tuples(instances, st.just("delete_key"), st.one_of(keys, counters)), st.tuples(instances, st.just("num_keys")),
    st.tuples(instances, st.just("list_keys")), st.tuples(instances, st.just("multi_get"), st.lists(keys, max_size=2)),
    st.tuples(instances, st.just("multi_set"), st.lists(keys, max_size=2, unique=True), values))


_READS = {"get": lambda key: [key], "multi_get": lambda keys: keys, "wait": lambda keys: keys}


def _run(stores, sequence):
    """Each store's answers (or error type names). A read of a missing key is answered "missing" from `check`
    instead of timing out (real torch's FileStore takes a second to time out however short its timeout;
    test_timeouts_raise_torchs_errors covers the timeouts)."""
    for store in stores:
        store.set_timeout(SHORT)
    answers = []
    for index, name, *args in sequence:
        if name == "multi_set":
            args = [args[0], [args[1]] * len(args[0])]
        if name in _READS and not stores[index].check(_READS[name](*args)):
            answers.append("missing")
            continue
        try:
            answer = getattr(stores[index], name)(*args)
            answers.append(sorted(answer) if name == "list_keys" else answer)
        except Exception as exc:  # noqa: BLE001  (the error type is compared)
            answers.append(type(exc).__name__)
        # real torch's TCPStore client sends a `set` without waiting for the server: a request that is answered
        # makes sure the server has applied it before the other instance looks
        stores[index].check(["a"])
    return answers


def _file_stores(dist, path):
    return [dist.FileStore(path, 2), dist.FileStore(path, 2)]


def _tcp_stores(dist):
    master = dist.TCPStore("127.0.0.1", 0, None, True, datetime.timedelta(seconds=10))
    return [master, dist.TCPStore("127.0.0.1", master.port, None, False, datetime.timedelta(seconds=10))]


@settings(max_examples=80, deadline=None)
@given(st.lists(file_operations, max_size=10))
# (torch's FileStore leaves a value alone when it is appended to itself, from either instance)
@example([(0, "set", "a", b"\x00\x07"), (0, "append", "a", b"\x00\x07"), (0, "get", "a")])
@example([(0, "append", "a", b"q"), (1, "append", "a", b"q"), (0, "append", "a", b"r"), (1, "get", "a")])
@example([(0, "append", "a", ""), (0, "get", "a")])
def test_file_store_operations_match_torch(tmp_path_factory, sequence):
    folder = tmp_path_factory.mktemp("fs")
    ours = _run(_file_stores(md, str(folder / "shim")), sequence)
    assert ours == _run(_file_stores(rt.distributed, str(folder / "torch")), sequence)


@settings(max_examples=25, deadline=None)  # (real torch's TCPStore takes ~0.25 s to set up and tear down)
@given(st.lists(tcp_operations, max_size=10))
def test_tcp_store_operations_match_torch(sequence):
    assert _run(_tcp_stores(md), sequence) == _run(_tcp_stores(rt.distributed), sequence)


@settings(max_examples=40, deadline=None)
@given(st.lists(file_operations.filter(lambda op: op[1] not in ("num_keys", "wait")), max_size=8))
def test_prefix_store_operations_match_torch(sequence):
    def stores(dist):
        base = dist.HashStore()
        base.set("outside", "1")
        return [dist.PrefixStore("p", base), dist.PrefixStore("p", base)]

    assert _run(stores(md), sequence) == _run(stores(rt.distributed), sequence)


def _error(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__, str(exc).splitlines()[0]
    return None


def test_timeouts_raise_torchs_errors(tmp_path):
    for dist, tag in ((md, "shim"), (rt.distributed, "torch")):
        store = dist.FileStore(str(tmp_path / tag), 1)
        store.set_timeout(SHORT)
        assert store.timeout == SHORT and dist.FileStore(str(tmp_path / "t"), 1).timeout == datetime.timedelta(
            minutes=5)
        assert _error(lambda: store.get("x")) == ("RuntimeError", "Timeout waiting for key: x after 20 ms")
        assert _error(lambda: store.wait(["x"], datetime.timedelta(milliseconds=5))) == ("RuntimeError",
                                                                                          "Wait timeout")
        tcp = dist.TCPStore("127.0.0.1", 0, None, True, datetime.timedelta(seconds=5))
        tcp.set_timeout(SHORT)
        assert _error(lambda: tcp.get("x")) == ("DistStoreError", "wait timeout after 20ms, keys: /x")
        assert _error(lambda: tcp.wait(["x", "y"], datetime.timedelta(milliseconds=5))) == (
            "DistStoreError", "wait timeout after 5ms, keys: /x, /y")
        assert isinstance(tcp, dist.Store) and issubclass(dist.DistNetworkError, dist.DistError)
        taken = _error(lambda: dist.TCPStore("127.0.0.1", tcp.port, None, True, datetime.timedelta(seconds=1)))
        assert taken[0] == "DistNetworkError" and "failed to listen" in taken[1] and "EADDRINUSE" in taken[1]
        started = time.monotonic()
        assert _error(lambda: dist.TCPStore("127.0.0.1", 0, 2, True, datetime.timedelta(milliseconds=300))) == (
            "DistStoreError", "Timed out after 1 seconds waiting for clients. 1/2 clients joined.")
        assert time.monotonic() - started < 5


def test_a_client_that_finds_no_server_fails_with_dist_network_error():
    port = md.TCPStore("127.0.0.1", 0, None, True).port  # (released when that store is dropped)
    import gc

    gc.collect()
    error = _error(lambda: md.TCPStore("127.0.0.1", port, None, False, datetime.timedelta(milliseconds=300)))
    assert error == ("DistNetworkError", f"The client socket has timed out after 300ms while trying to connect to "
                                         f"(127.0.0.1, {port}).")


def test_a_waiting_get_wakes_when_another_instance_sets_the_key(tmp_path):
    file_a, file_b = md.FileStore(str(tmp_path / "f"), 2), md.FileStore(str(tmp_path / "f"), 2)
    tcp_a = md.TCPStore("127.0.0.1", 0, None, True)
    tcp_b = md.TCPStore("127.0.0.1", tcp_a.port, None, False)
    for waiter, setter in ((file_a, file_b), (tcp_a, tcp_b)):
        threading.Timer(0.05, setter.set, ("late", b"here")).start()
        assert waiter.get("late") == b"here"


def test_file_store_removes_its_file_once_world_size_instances_are_released(tmp_path):
    for dist, tag in ((md, "shim"), (rt.distributed, "torch")):
        path = str(tmp_path / tag)
        first, second = dist.FileStore(path, 2), dist.FileStore(path, 2)
        first.set("k", "v")
        del first
        assert os.path.exists(path) and second.num_keys() == 3  # /k, refcount/ and cleanup/
        del second
        assert not os.path.exists(path)


def test_file_store_keeps_its_file_small_under_a_stream_of_collective_like_keys(tmp_path):
    path = str(tmp_path / "f")
    writer, reader = md.FileStore(path, 2), md.FileStore(path, 2)
    payload = bytes(range(256)) * 64  # 16 KB per key
    for step in range(400):  # 6.4 MB written in all
        writer.set(f"{step}/0", payload + str(step).encode())
        assert reader.get(f"{step}/0").endswith(str(step).encode())
        reader.delete_key(f"{step}/0")
    assert os.path.getsize(path) < 2 << 20
    assert reader.num_keys() == writer.num_keys() == 1 and writer.check(["0/0"]) is False


# ---------------------------------------------------------------- init_process_group's arguments
def test_init_process_group_checks_store_arguments_as_torch_does():
    out = run_shim_json(["-c", """
import json
import mindnlp, torch
import torch.distributed as dist
errors = []
for kwargs in (dict(store=dist.HashStore(), world_size=2), dict(store=dist.HashStore(), rank=0),
               dict(init_method="file:///tmp/never-made", rank=0), dict(init_method="nccl://x")):
    try:
        dist.init_process_group("gloo", **kwargs)
        errors.append(None)
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
print(json.dumps(errors))
"""])
    assert out[0] == "ValueError: rank must be non-negative if using store"
    assert out[1] == "ValueError: world_size must be positive if using store"
    assert out[2] == ("ValueError: Error initializing torch.distributed using file:// rendezvous: world size "
                      "parameter missing")
    assert out[3].startswith("NotImplementedError: torch.distributed.init_process_group(init_method='nccl://x')")


# ---------------------------------------------------------------- groups of forked processes
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("store_groups")
    argv = [sys.executable, script("distributed_store_run.py"), str(out)]
    distributed_jobs.run_shim_and_oracle(argv + ["shim"], argv + ["torch"], shim_env=shim_env({"SHIM": "1"}), cwd=out,
                                         timeout=240)

    def load(tag, scenario, world):
        return [pickle.load(open(out / f"{tag}_{scenario}_rank{r}.pkl", "rb")) for r in range(world)]

    worlds = {"file3": 3, "tcp2": 2, "env2": 2, "timeout": 2}
    runs = {tag: {sc: load(tag, sc, n) for sc, n in worlds.items()} for tag in ("shim", "torch")}
    runs["single"] = pickle.load(open(out / "shim_single.pkl", "rb"))
    return runs


def _same(ours, theirs, name):
    assert not isinstance(ours, str), f"{name}: {ours}"
    assert not isinstance(theirs, str), f"{name} (real torch): {theirs}"
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (name, ours, theirs)
    if ours.dtype.kind in "US":
        assert ours == theirs, name
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_every_collective_on_every_dtype_equals_real_torch_gloo(runs):
    for rank, (ours, theirs) in enumerate(zip(runs["shim"]["file3"], runs["torch"]["file3"])):
        names = [n for n in theirs if not n.startswith("ddp_") and n != "reduce_to_0"]
        assert len([n for n in names if n.startswith("all_reduce_")]) == 54  # (4 float dtypes x 5 ops, 4 integer x 7, bool x 6)
        for name in names:
            _same(ours[name], theirs[name], f"rank {rank} {name}")
        if rank == 0:  # (gloo leaves partial sums on the other ranks: only the destination's is defined)
            _same(ours["reduce_to_0"], theirs["reduce_to_0"], "reduce_to_0")
        assert ours["rank_world"].tolist() == [rank, 3]


def test_all_reduce_equals_numpy_reductions_of_the_inputs(runs):
    from distributed_inputs import store_values

    for dtype in STORE_DTYPES:
        stacked = np.array([store_values(r, dtype) for r in range(3)], np.float64 if dtype != "bool" else bool)
        want = {"SUM": stacked.any(0) if dtype == "bool" else stacked.sum(0), "MAX": stacked.max(0),
                "MIN": stacked.min(0)}  # (a sum of bools is their OR, in torch as in NumPy's bool arithmetic)
        for op, value in want.items():
            got = runs["shim"]["file3"][1][f"all_reduce_{op}_{dtype}"]
            np.testing.assert_array_equal(got.astype(np.float64), value.astype(np.float64), err_msg=f"{op} {dtype}")


def test_subgroups_run_every_collective_on_the_store(runs):
    shim = runs["shim"]["file3"]
    assert shim[1]["subgroup"].size == 0 and shim[0]["subgroup"][-1] == 0 and shim[2]["subgroup"][-1] == 1


def test_ddp_over_forked_ranks_equals_one_process_on_the_whole_batch_and_real_torch(runs):
    names = sorted(runs["single"])
    for rank in range(3):
        for name in names:
            ours = runs["shim"]["file3"][rank][f"ddp_{name}"]
            np.testing.assert_allclose(ours, runs["single"][name], rtol=1e-5, atol=1e-6, err_msg=name)
            np.testing.assert_allclose(ours, runs["torch"]["file3"][rank][f"ddp_{name}"], rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(ours, runs["shim"]["file3"][0][f"ddp_{name}"])


@pytest.mark.parametrize("scenario", ["tcp2", "env2"])
def test_groups_on_a_tcp_store_and_on_env_in_forked_processes(runs, scenario):
    for ours, theirs in zip(runs["shim"][scenario], runs["torch"][scenario]):
        for name in theirs:
            _same(ours[name], theirs[name], f"{scenario} {name}")


def test_a_collective_a_rank_never_joins_times_out_with_a_clear_error(runs):
    ours, theirs = runs["shim"]["timeout"][0], runs["torch"]["timeout"][0]
    assert theirs["late_all_reduce"].startswith("ERROR RuntimeError")  # (real torch fails it too)
    assert ours["late_all_reduce"].startswith("ERROR DistBackendError: torch.distributed collective (collective #1")
    assert "timed out after 3 s waiting for ranks 1 through FileStore" in ours["late_all_reduce"]
    assert 2.5 < float(ours["waited"]) < 30


# ---------------------------------------------------------------- the store transport, ranks as threads
def _threads(world, body):
    """Run body(rank) in `world` threads; their results, or the first error raised."""
    results, errors = [None] * world, []

    def run(rank):
        try:
            results[rank] = body(rank)
        except Exception as exc:  # noqa: BLE001  (re-raised below)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(r,)) for r in range(world)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]
    return results


def test_store_transport_primitives_and_their_keys_are_cleaned_up():
    from mindnlp_shim.torch.distributed._store_transport import StoreTransport

    store = md.HashStore()
    timeout = datetime.timedelta(seconds=30)

    def body(rank):
        transport = StoreTransport(store, rank, 3, "g/", timeout)
        transport.join(timeout)
        value = np.arange(4, dtype=np.int8).reshape(2, 2) * (rank + 1)
        gathered = transport.all_gather(value)
        sent = transport.broadcast(np.float64(rank) if rank == 2 else np.float64(-1), 2)  # (a 0-d array)
        summed = transport.all_reduce_sum(np.array([rank + 0.5], np.float32))
        return gathered, sent, summed

    for gathered, sent, summed in _threads(3, body):
        assert gathered.dtype == np.int8 and gathered.tolist() == [
            (np.arange(4).reshape(2, 2) * (r + 1)).tolist() for r in range(3)]
        assert sent.shape == () and sent == 2.0
        assert summed.dtype == np.float32 and summed.tolist() == [4.5]
    assert sorted(store.list_keys()) == ["g/join/0", "g/join/1", "g/join/2"]  # every collective's keys are gone


def test_store_transport_refuses_a_rank_given_twice_and_mismatched_tensors():
    from mindnlp_shim.torch.distributed._store_transport import StoreTransport

    store, timeout = md.HashStore(), datetime.timedelta(seconds=30)
    StoreTransport(store, 0, 2, "g/", timeout).store.add("g/join/0", 1)
    with pytest.raises(RuntimeError, match="rank 0 joined the store twice"):
        StoreTransport(store, 0, 2, "g/", timeout).join(timeout)

    shared = md.HashStore()

    def body(rank):
        return StoreTransport(shared, rank, 2, "h/", timeout).all_gather(np.zeros(2 + rank, np.float32))

    with pytest.raises(RuntimeError, match="rank . sent a tensor of shape"):
        _threads(2, body)


def test_queue_operations_raise_not_implemented():
    for store in (md.HashStore(), md.TCPStore("127.0.0.1", 0, None, True)):
        with pytest.raises(NotImplementedError, match="queue_push is not supported"):
            store.queue_push("q", "x")
