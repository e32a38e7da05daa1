"""torch.distributed collectives on MindSpore's CPU communication, 2 and 3 processes on loopback, started by the
launcher (`python -m mindnlp.run`); every result is checked against the collective's definition, computed here
from the inputs each rank contributed (tests/scripts/distributed_collectives_run.py)."""
import functools
import json
import operator
import os
import sys

import numpy as np
import pytest

import distributed_jobs
from shim_runner import REPO_ROOT, script, shim_env

sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "scripts"))
from distributed_inputs import inputs  # noqa: E402


def _launch(nproc, out_dir):
    proc = distributed_jobs.run([sys.executable, "-m", "mindnlp.run", "--nproc_per_node", str(nproc), "--standalone",
                                 script("distributed_collectives_run.py"), str(out_dir)],
                                env=shim_env(), cwd=out_dir, timeout=400)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    return [json.load(open(out_dir / f"rank{r}.json")) for r in range(nproc)]


@pytest.fixture(scope="module", params=[
    pytest.param(2, id="2-ranks"),
    # a third rank (~25 s more): behind `slow`; two ranks take every collective in the default run
    pytest.param(3, id="3-ranks", marks=pytest.mark.slow)])
def ranks(request, tmp_path_factory):
    return _launch(request.param, tmp_path_factory.mktemp(f"collectives{request.param}"))


def _all(key, world, dtype):
    return np.array([inputs(r)[key] for r in range(world)], dtype)


def test_process_group_reports_the_launchers_ranks(ranks):
    world = len(ranks)
    for r, res in enumerate(ranks):
        assert (res["rank"], res["world"], res["env_rank"], res["env_world"]) == (r, world, r, world)
        assert res["backend"] == "gloo" and res["initialized"] and res["available"] and res["elastic"]


def test_all_reduce_every_op_and_dtype(ranks):
    world = len(ranks)
    f32, i64, f64, bits = (_all("f32", world, np.float32), _all("i64", world, np.int64),
                           _all("f64", world, np.float64), _all("bits", world, np.uint8))
    flags = _all("flags", world, bool)
    expected = {
        "sum_f32": f32.sum(0), "sum_f16": f32.sum(0), "sum_bf16": f32.sum(0), "avg_f32": f32.sum(0) / world,
        "sum_i64": i64.sum(0), "product_i64": i64.prod(0), "min_i64": i64.min(0), "max_i64": i64.max(0),
        "sum_f64": f64.sum(0), "product_f64": f64.prod(0), "min_f64": f64.min(0), "max_f64": f64.max(0),
        "band_u8": functools.reduce(operator.and_, bits), "bor_u8": functools.reduce(operator.or_, bits),
        "bxor_u8": functools.reduce(operator.xor, bits), "max_bool": flags.any(0), "min_bool": flags.all(0),
    }
    for res in ranks:
        for key, want in expected.items():
            np.testing.assert_allclose(np.array(res[key], dtype=np.float64), want.astype(np.float64), rtol=1e-6,
                                       err_msg=key)


def test_results_are_written_into_the_given_tensor_and_its_views(ranks):
    world = len(ranks)
    for res in ranks:
        assert res["view_base"][0] == [0.0] * 4
        np.testing.assert_allclose(res["view_base"][1], _all("f32", world, np.float32).sum(0))


def test_broadcast_gather_and_scatter(ranks):
    world = len(ranks)
    for r, res in enumerate(ranks):
        assert res["broadcast_last"] == inputs(world - 1)["i64"]
        assert res["broadcast_param"] == inputs(0)["f32"]
        assert res["all_gather"] == [inputs(k)["i64"] for k in range(world)]
        assert res["all_gather_into_tensor"] == sum((inputs(k)["f32"] for k in range(world)), [])
        assert res["all_gather_into_tensor_2d"] == [inputs(k)["f32"] for k in range(world)]
        assert res["gather_to_0"] == ([inputs(k)["f64"] for k in range(world)] if r == 0 else None)
        assert res["scatter_from_last"] == [100 * r, r]
        # reduce: only the destination holds the sum; the others keep their input
        want = _all("f32", world, np.float32).sum(0).tolist() if r == world - 1 else inputs(r)["f32"]
        assert res["reduce_to_last"] == want


def test_reduce_scatter_and_all_to_all(ranks):
    world = len(ranks)
    chunk = np.array([[[10.0 * k + j, k - j] for j in range(world)] for k in range(world)])  # [rank k][chunk j]
    for r, res in enumerate(ranks):
        assert res["reduce_scatter_sum"] == chunk[:, r].sum(0).tolist()
        assert res["reduce_scatter_tensor_max"] == chunk[:, r].max(0).tolist()
        assert res["all_to_all_single"] == sum(([float(k), float(r)] for k in range(world)), [])


def test_object_collectives_and_barrier(ranks):
    world = len(ranks)
    for res in ranks:
        assert res["all_gather_object"] == [{"rank": k, "text": "x" * (k * 5 + 1)} for k in range(world)]
        assert res["broadcast_object_list"] == [{"from": 1}, 11, None]


def test_subgroups(ranks):
    world = len(ranks)
    members = [0, world - 1]
    want = (_all("f32", world, np.float32)[members]).sum(0).tolist()
    for r, res in enumerate(ranks):
        if r not in members:
            assert "subgroup_sum" not in res
            continue
        assert res["subgroup_sum"] == want and res["subgroup_rank"] == members.index(r)
        if world == 2:  # the "subgroup" of all ranks is the world group
            assert res["subgroup_gather_error"] is None
        else:
            assert "subgroup is not supported" in res["subgroup_gather_error"]


def test_unsupported_calls_raise_clear_errors(ranks):
    errors = ranks[0]["errors"]
    assert errors["premul_sum"].startswith("NotImplementedError: torch.distributed ReduceOp.PREMUL_SUM")
    assert errors["send"].startswith("NotImplementedError: torch.distributed.send")
    assert errors["monitored_barrier"].startswith("NotImplementedError: torch.distributed.monitored_barrier")
    assert errors["twice"] == "ValueError: trying to initialize the default process group twice!"


def test_destroy_then_init_again(ranks):
    world = len(ranks)
    for res in ranks:
        assert res["initialized_after_destroy"] is False
        assert res["sum_after_reinit"] == [world * (world + 1) / 2]
