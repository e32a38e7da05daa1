"""Tiny GPT-2, Llama (grouped-query attention, eager and sdpa) and T5 on the shim match real PyTorch from identical
weights: logits, loss and every parameter's gradient of one forward/backward; and checkpoints move both ways.

tests/scripts/family_step.py runs three times in subprocesses: real torch builds seeded models and saves them
(safetensors, pytorch_model.bin, sharded safetensors with an index), then steps them; the shim loads every
layout, steps, loads in float16/bfloat16 and saves with save_pretrained; real torch finally loads what the shim
saved. Each phase writes all its numbers to one .npz.
"""
import json
import os

import numpy as np
import pytest

from oracle import require_torch, run_torch
from shim_runner import run_shim_json, script

FAMILY_STEP = script("family_step.py")
CASES = ("gpt2", "llama_eager", "llama_sdpa", "t5")
FAMILIES = ("gpt2", "llama", "t5")
LOGITS_ATOL = 1e-4
LOSS_RTOL = 1e-5
GRAD_RTOL = 1e-3
# Low-precision logits: both sides round weights identically but accumulate differently (torch's CPU kernels
# accumulate half-precision matmuls in float32 or not, ours compute bf16 in float32), so compare by relative
# norm at the precision of the format: ~2^-11 for float16, ~2^-8 for bfloat16, times a few layers.
HALF_RTOL = {"float16": 5e-3, "bfloat16": 3e-2}


def _torch_phase(phase, workdir):
    run_torch(f"""
        import runpy, sys
        sys.argv = [{FAMILY_STEP!r}, "--phase", {phase!r}, "--workdir", {workdir!r}]
        runpy.run_path({FAMILY_STEP!r}, run_name="__main__")
    """, timeout=900)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_torch()
    workdir = str(tmp_path_factory.mktemp("families"))
    _torch_phase("build", workdir)
    run_shim_json([FAMILY_STEP, "--phase", "shim", "--workdir", workdir], timeout=900)
    _torch_phase("verify", workdir)
    out = {phase: dict(np.load(os.path.join(workdir, f"{phase}.npz"))) for phase in ("build", "shim", "verify")}
    out["workdir"] = workdir
    return out


def _rel(ours, theirs):
    return float(np.linalg.norm(ours.astype(np.float64) - theirs) / np.linalg.norm(theirs.astype(np.float64)))


def _keys(res, prefix):
    names = sorted(k for k in res["build"] if k.startswith(prefix))
    assert names == sorted(k for k in res["shim"] if k.startswith(prefix)), prefix
    return names


@pytest.mark.parametrize("case", CASES)
def test_logits_match(results, case):
    ours, theirs = results["shim"][f"{case}/logits"], results["build"][f"{case}/logits"]
    assert ours.shape == theirs.shape and ours.shape[0] == 2 and ours.shape[-1] == 96
    assert np.abs(theirs).max() > 0.05  # random weights still give non-trivial logits
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=LOGITS_ATOL)


def test_t5_decoder_input_ids_logits_match(results):
    ours, theirs = results["shim"]["t5/decoder_logits"], results["build"]["t5/decoder_logits"]
    assert ours.shape == theirs.shape == (2, 6, 96)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=LOGITS_ATOL)


@pytest.mark.parametrize("case", CASES)
def test_loss_matches(results, case):
    ours, theirs = float(results["shim"][f"{case}/loss"]), float(results["build"][f"{case}/loss"])
    assert 3.0 < theirs < 6.0  # near ln(96) ~ 4.56 for random weights
    assert abs(ours - theirs) <= LOSS_RTOL * theirs, (ours, theirs)


@pytest.mark.parametrize("case", CASES)
def test_every_gradient_matches(results, case):
    names = _keys(results, f"{case}/grad/")
    assert len(names) == {"gpt2": 28, "llama_eager": 21, "llama_sdpa": 21, "t5": 47}[case]  # all parameters
    errors = {}
    for name in names:
        ours, theirs = results["shim"][name], results["build"][name]
        assert ours.shape == theirs.shape, name
        assert np.linalg.norm(theirs) > 0, name  # every parameter takes part in this loss
        errors[name] = _rel(ours, theirs)
    worst = max(errors, key=errors.get)
    assert errors[worst] < GRAD_RTOL, (worst, errors[worst])


def test_sdpa_and_eager_agree(results):
    shim = results["shim"]
    np.testing.assert_allclose(shim["llama_sdpa/logits"], shim["llama_eager/logits"], rtol=0, atol=1e-5)


@pytest.mark.parametrize("family", FAMILIES)
def test_loaded_weights_are_torchs(results, family):
    names = _keys(results, f"{family}/state/")
    assert names
    for name in names:
        np.testing.assert_array_equal(results["shim"][name], results["build"][name], err_msg=name)


@pytest.mark.parametrize("layout", ("bin", "sharded"))
@pytest.mark.parametrize("family", FAMILIES)
def test_other_checkpoint_layouts_load(results, family, layout):
    """pytorch_model.bin written by torch.save, and safetensors shards listed in model.safetensors.index.json."""
    directory = os.path.join(results["workdir"], f"{family}_{layout}")
    if layout == "bin":
        assert "pytorch_model.bin" in os.listdir(directory)
    else:
        with open(os.path.join(directory, "model.safetensors.index.json")) as f:
            assert len(set(json.load(f)["weight_map"].values())) >= 3
    shim = results["shim"]
    for name in _keys(results, f"{family}/state/"):
        loaded = shim[f"{family}/state_{layout}/{name.split('/state/', 1)[1]}"]
        np.testing.assert_array_equal(loaded, results["build"][name], err_msg=name)
    np.testing.assert_array_equal(shim[f"{family}/logits_{layout}"], shim[f"{family}/logits_saved"])


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("family", FAMILIES)
def test_half_precision_loading(results, family, dtype):
    shim, build = results["shim"], results["build"]
    # the same parameter dtypes as torch (T5 keeps its `wo` layers in float32 under float16)
    assert list(shim[f"{family}/param_dtypes_{dtype}"]) == list(build[f"{family}/param_dtypes_{dtype}"])
    assert f"torch.{dtype}" in list(shim[f"{family}/param_dtypes_{dtype}"])
    # weights are the float32 checkpoint rounded to the format (round to nearest even on both sides)
    rounded = 0
    for name in _keys(results, f"{family}/state/"):
        ours = shim[f"{family}/state_{dtype}/{name.split('/state/', 1)[1]}"]
        full = build[name]
        assert np.abs(ours - full).max() <= np.abs(full).max() * 2 ** -7, name
        rounded += int((ours != full).any())
    assert rounded > 0
    ours, theirs = shim[f"{family}/logits_{dtype}"], build[f"{family}/logits_{dtype}"]
    assert _rel(ours, theirs) < HALF_RTOL[dtype], _rel(ours, theirs)
    assert _rel(ours, shim[f"{family}/logits_saved"]) < HALF_RTOL[dtype]


@pytest.mark.parametrize("family", FAMILIES)
def test_legacy_torch_dtype_keyword(results, family):
    assert list(results["shim"][f"{family}/param_dtypes_torch_dtype"]) == \
        list(results["build"][f"{family}/param_dtypes_float16"])


@pytest.mark.parametrize("layout", ("", "_bin"))
@pytest.mark.parametrize("family", FAMILIES)
def test_shim_save_pretrained_loads_in_torch(results, family, layout):
    directory = os.path.join(results["workdir"], f"shim_{family}{layout}")
    assert ("pytorch_model.bin" if layout else "model.safetensors") in os.listdir(directory)
    verify = results["verify"]
    # real torch gets bit-identical logits from what we saved and from its own original checkpoint
    np.testing.assert_array_equal(verify[f"{family}/logits_shim_saved{layout}"], verify[f"{family}/logits_original"])
    np.testing.assert_allclose(results["shim"][f"{family}/logits_saved"], verify[f"{family}/logits_original"],
                               rtol=0, atol=LOGITS_ATOL)
