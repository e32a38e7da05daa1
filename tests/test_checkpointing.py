"""Activation checkpointing on the shim: torch.utils.checkpoint recomputes the region in backward and gives the
gradients the region gives without it (dropout included: the masks are replayed), for every way arguments and
outputs are passed; a tiny BERT with gradient_checkpointing_enable() has exactly its plain gradients; the
unmodified Trainer with gradient_checkpointing=True trains exactly as without it.

The same script (tests/scripts/checkpoint_semantics.py) runs on real torch; errors, warnings and gradient
values are compared with it. Within the shim, checkpointed and plain gradients must be identical.
"""
import json

import numpy as np
import pytest

from oracle import require_torch, run_torch
from shim_runner import run_shim_json, script

SEMANTICS = script("checkpoint_semantics.py")
PRECISION_RUN = script("precision_memory_run.py")
VARIANTS = ("reentrant", "non_reentrant")
CASES = ("positional", "keyword_tensors", "partial_tensors", "closure_parameter", "nested_outputs",
         "unused_output", "under_autocast", "checkpoint_sequential")


@pytest.fixture(scope="module")
def shim_report():
    return run_shim_json([SEMANTICS, "--side", "shim"], timeout=600)


@pytest.fixture(scope="module")
def torch_report():
    require_torch()
    out = run_torch(f"""
        import runpy, sys
        sys.argv = [{SEMANTICS!r}, "--side", "torch"]
        runpy.run_path({SEMANTICS!r}, run_name="__main__")
    """, timeout=300)
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def trainer_runs():
    return run_shim_json([PRECISION_RUN, "trainer", "fp32", "gradient_checkpointing",
                          "activation_checkpointing_options"], timeout=900)


@pytest.mark.parametrize("case", CASES)
def test_checkpointed_gradients_equal_plain(shim_report, case):
    runs = shim_report["gradients"][case]
    expected = runs["plain"]
    assert expected and not (isinstance(expected, list) and expected[0] == "RuntimeError")
    assert runs["non_reentrant"] == expected
    if case == "closure_parameter":
        # as in torch: the reentrant variant gives no gradients when no input requires grad
        assert runs["reentrant"] == ["no grad", False]
    elif case == "keyword_tensors":
        # as in torch: keyword arguments need use_reentrant=False
        assert runs["reentrant"] == ["ValueError", "Unexpected keyword arguments: scale,extra"]
    else:
        assert runs["reentrant"] == expected


def _assert_close(ours, theirs, path="", rtol=1e-4, atol=2e-5):
    if isinstance(theirs, dict):
        assert set(ours) == set(theirs), path
        for key in theirs:
            _assert_close(ours[key], theirs[key], f"{path}.{key}", rtol, atol)
    elif isinstance(theirs, list) and theirs and all(isinstance(v, float) for v in theirs):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(theirs, list) and isinstance(ours, list) and len(ours) == len(theirs):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_close(a, b, f"{path}[{i}]", rtol, atol)
    else:
        assert ours == theirs, path


@pytest.mark.parametrize("case", CASES)
def test_checkpointed_gradients_match_torch(shim_report, torch_report, case):
    ours, theirs = shim_report["gradients"][case], torch_report["gradients"][case]
    for variant in ("plain",) + VARIANTS:
        if case == "nested_outputs" and variant == "reentrant":
            # torch's reentrant variant does not track tensors inside a dict output; ours does
            assert theirs[variant][0] == "RuntimeError"
            continue
        # float16 results may round differently between the two implementations
        tolerance = {"rtol": 1e-2, "atol": 1e-2} if case == "under_autocast" else {}
        _assert_close(ours[variant], theirs[variant], f"{case}.{variant}", **tolerance)


def test_nested_outputs_keep_their_structure(shim_report):
    extras = shim_report["gradients"]["nested_outputs"]["non_reentrant"]["extras"]
    assert extras == ["tag", None, 3, [1, 2], False]


def test_forward_is_unrecorded_and_recomputed_once_in_backward(shim_report):
    seen = shim_report["behaviour"]
    assert seen["after_forward"] == [[False, False]]  # grad off: no activations kept
    assert seen["after_backward"] == [[False, False], [True, True]]
    assert seen["under_no_grad"] is False
    assert seen["context_fn_all"] == [["forward", False], ["recompute", True]]


@pytest.mark.parametrize("key", ["missing_use_reentrant", "reentrant_without_grad_inputs", "kwargs_with_reentrant",
                                 "context_fn_with_reentrant"] + [
    f"input_written_after_forward_{variant}_{write}" for variant in VARIANTS
    for write in ("inplace_op", "index_assignment")] + [f"input_written_before_forward_{v}" for v in VARIANTS])
def test_arguments_errors_and_warnings_match_torch(shim_report, torch_report, key):
    assert shim_report["behaviour"][key] == torch_report["behaviour"][key]


def test_context_fn_contexts_match_torch(shim_report, torch_report):
    names = lambda entries: [name for name, _ in entries]  # noqa: E731
    assert names(shim_report["behaviour"]["context_fn_all"]) == names(torch_report["behaviour"]["context_fn_all"])


def test_dropout_masks_are_replayed(shim_report):
    runs = shim_report["dropout_replay"]
    assert runs["plain"]["zeros"] > 0  # dropout really dropped something
    for variant in VARIANTS:
        assert runs[variant] == runs["plain"]  # same gradients, and the RNG continues where the plain run's does


def test_tiny_bert_gradients_with_checkpointing_equal_plain(shim_report):
    bert = shim_report["tiny_bert"]
    assert bert["other_seed_loss"] != bert["loss"]  # dropout is on: the seed matters
    assert bert["calls_plain"] == [True]
    for variant in ("default", "reentrant"):
        run = bert[variant]
        assert run["enabled"] and run["same_params"] and bert["params_with_grad"] == 41
        assert run["loss"] == bert["loss"]
        assert run["max_abs_diff"] == 0.0
        assert run["calls"] == [False, True]  # the layer ran unrecorded, then again in backward


def test_trainer_with_gradient_checkpointing_trains_exactly_as_without(trainer_runs):
    plain, checkpointed = trainer_runs["fp32"], trainer_runs["gradient_checkpointing"]
    assert checkpointed["gradient_checkpointing"] and not plain["gradient_checkpointing"]
    assert checkpointed["global_step"] == plain["global_step"] == 16
    assert checkpointed["losses"] == plain["losses"]  # dropout on, same seed: identical
    assert plain["losses"][-1] < plain["losses"][0]
    assert checkpointed["forward_calls"] == 2 * plain["forward_calls"] == 32
    states = {json.loads(s)["grad_enabled"] for s in checkpointed["forward_states"]}
    assert states == {False, True}


def test_trainer_activation_checkpointing_options(trainer_runs):
    """activation_checkpointing=True with {"use_reentrant": True, "every_n_layers": 2, "offload": True}:
    only layer 0 of 2 is recomputed, and the steps are still the plain run's."""
    plain, run = trainer_runs["fp32"], trainer_runs["activation_checkpointing_options"]
    assert run["gradient_checkpointing"]
    assert run["losses"] == plain["losses"]
    assert plain["forward_calls_by_layer"] == [16, 16]
    assert run["forward_calls_by_layer"] == [32, 16]


def test_recomputation_under_autocast_computes_in_the_forward_precision(shim_report):
    runs = shim_report["gradients"]["under_autocast"]
    assert runs["plain"]["dtype"] == "torch.float16"
    assert runs["non_reentrant"] == runs["reentrant"] == runs["plain"]
