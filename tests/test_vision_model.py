"""A vision model on the shim: a tiny random ViTForImageClassification (patch embedding by Conv2d with
stride = kernel = patch size) and ViTImageProcessor constructed offline match real PyTorch from identical weights.

tests/scripts/vision_step.py runs twice in subprocesses: real torch builds the seeded model and saves it, then
processes synthetic PIL/NumPy images, steps once (logits, loss, every gradient) and trains 12 Trainer steps; the
shim loads the checkpoint and does the same.
"""
import os

import numpy as np
import pytest

from oracle import require_torch, run_torch
from shim_runner import run_shim_json, script
from test_model_families import GRAD_RTOL, LOGITS_ATOL, LOSS_RTOL, _keys, _rel

VISION_STEP = script("vision_step.py")
TRAINER_LOSS_RTOL = 1e-4  # 12 AdamW steps from the same weights: float32 rounding differences only


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_torch()
    workdir = str(tmp_path_factory.mktemp("vision"))
    out = run_torch(f"""
        import runpy, sys
        sys.argv = [{VISION_STEP!r}, "--phase", "build", "--workdir", {workdir!r}]
        runpy.run_path({VISION_STEP!r}, run_name="__main__")
    """, timeout=600)
    import json

    summary = {"build": json.loads([line for line in out.splitlines() if line.strip()][-1]),
               "shim": run_shim_json([VISION_STEP, "--phase", "shim", "--workdir", workdir], timeout=600)}
    res = {phase: dict(np.load(os.path.join(workdir, f"{phase}.npz"))) for phase in ("build", "shim")}
    res["summary"] = summary
    return res


def test_image_processor_gives_torch_tensors_with_torchs_values(results):
    ours, theirs = results["summary"]["shim"], results["summary"]["build"]
    assert ours["processor_class"] == theirs["processor_class"]  # the PIL/NumPy processor (no torchvision here)
    assert ours["pixel_values_is_torch_tensor"] and ours["pixel_values_dtype"] == "torch.float32"
    pixels = results["shim"]["pixel_values"]
    assert pixels.shape == (4, 3, 16, 16)  # three PIL images and one NumPy array of other sizes, resized
    assert -1.0 <= pixels.min() < -0.9 and 0.9 < pixels.max() <= 1.0  # rescaled to [0, 1], normalised by 0.5/0.5
    np.testing.assert_array_equal(pixels, results["build"]["pixel_values"])
    np.testing.assert_array_equal(pixels, results["shim"]["pixel_values_numpy"])  # return_tensors="pt" vs "np"


def test_loaded_weights_are_torchs(results):
    names = _keys(results, "state/")
    assert any("patch_embeddings.projection.weight" in n for n in names)
    for name in names:
        np.testing.assert_array_equal(results["shim"][name], results["build"][name], err_msg=name)


@pytest.mark.parametrize("key", ("logits", "eval_logits"))
def test_logits_match(results, key):
    ours, theirs = results["shim"][key], results["build"][key]
    assert ours.shape == theirs.shape == (4, 3)
    assert np.abs(theirs).max() > 0.05
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=LOGITS_ATOL)


def test_loss_matches(results):
    ours, theirs = float(results["shim"]["loss"]), float(results["build"]["loss"])
    assert 0.5 < theirs < 2.0  # near ln(3) for random weights
    assert abs(ours - theirs) <= LOSS_RTOL * theirs, (ours, theirs)


def test_every_gradient_matches(results):
    names = _keys(results, "grad/")
    assert len(names) == 40  # every parameter: patch conv, cls token, positions, 2 layers of 16, norm, head
    errors = {}
    for name in names:
        ours, theirs = results["shim"][name], results["build"][name]
        assert ours.shape == theirs.shape, name
        if name.endswith("attention.k_proj.bias"):
            # zero in exact arithmetic (softmax ignores a shift shared by all keys): both sides hold only
            # rounding noise (~1e-10), so bound its size instead of comparing noise with noise
            assert np.linalg.norm(ours) < 1e-6 and np.linalg.norm(theirs) < 1e-6, name
            continue
        assert np.linalg.norm(theirs) > 1e-4, name
        errors[name] = _rel(ours, theirs)
    assert len(errors) == 38
    worst = max(errors, key=errors.get)
    assert errors[worst] < GRAD_RTOL, (worst, errors[worst])
    assert errors["grad/vit.embeddings.patch_embeddings.projection.weight"] < GRAD_RTOL


def test_trainer_run_learns_and_matches_real_torch(results):
    ours, theirs = results["summary"]["shim"], results["summary"]["build"]
    assert len(ours["losses"]) == 12
    assert np.mean(ours["losses"][-3:]) < 0.8 * np.mean(ours["losses"][:3])  # it learns the stripe position
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=TRAINER_LOSS_RTOL)
    np.testing.assert_allclose(ours["grad_norms"], theirs["grad_norms"], rtol=TRAINER_LOSS_RTOL)
    assert ours["eval_loss"] == pytest.approx(theirs["eval_loss"], rel=TRAINER_LOSS_RTOL)
    assert ours["eval_accuracy"] == theirs["eval_accuracy"] == ours["predict_accuracy"]
    assert ours["predictions_shape"] == [24, 3]
