"""The zoo's decoder-only and encoder-decoder models on the shim match real PyTorch from identical weights.

tests/scripts/zoo_decoders.py runs three times (real torch builds and measures, the shim loads, measures and
saves, real torch loads what the shim saved); tests/scripts/zoo_common.py holds the measurements and the checks:
eval and train logits (Mixtral: the router's load-balancing loss too), loss, every gradient, one AdamW step,
greedy and beam-search generate, and save_pretrained output loading in real torch. docs/models.md has the table.

The default run covers four families that together take every mechanism the others use (OPT: learned positions
from the mask; Mixtral: experts through grouped matrix products, grouped-query attention, sliding window;
Gemma 2: soft-capped eager attention over left padding; BART: encoder-decoder); the other nine, three phases of
their own, are marked slow.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))

from oracle import require_torch  # noqa: E402
from shim_runner import script  # noqa: E402
from zoo_common import CHECK_FUNCTIONS, applicable_checks, load_results, run_phases  # noqa: E402
from zoo_decoders import FAMILIES, causal_inputs  # noqa: E402
from zoo_trainer_step import check_trainer  # noqa: E402

ZOO_DECODERS = script("zoo_decoders.py")
DEFAULT_FAMILIES = ("opt", "mixtral", "gemma2", "bart")
# (family, check) -> the measured reason it fails today; strict: the test fails once it passes.
KNOWN_FAILURES = {}


def _results(tmp_path_factory, names):
    """Every check's measurements, and one Trainer step, for the families in `names`."""
    require_torch()
    workdir = str(tmp_path_factory.mktemp("zoo_decoders"))
    run_phases(ZOO_DECODERS, workdir, args=["--only", *names, "--trainer", *names])
    return load_results(workdir)


@pytest.fixture(scope="module")
def default_results(tmp_path_factory):
    return _results(tmp_path_factory, DEFAULT_FAMILIES)


@pytest.fixture(scope="module")
def slow_results(tmp_path_factory):
    return _results(tmp_path_factory, [f.name for f in FAMILIES if f.name not in DEFAULT_FAMILIES])


def _cases():
    for family in FAMILIES:
        for check in applicable_checks(family):
            marks = [] if family.name in DEFAULT_FAMILIES else [pytest.mark.slow]
            if (family.name, check) in KNOWN_FAILURES:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[family.name, check]))
            yield pytest.param(family, check, marks=marks, id=f"{family.name}-{check}")


@pytest.mark.parametrize("family,check", list(_cases()))
def test_family_matches_torch(request, family, check):
    fixture = "default_results" if family.name in DEFAULT_FAMILIES else "slow_results"
    CHECK_FUNCTIONS[check](request.getfixturevalue(fixture), family)


@pytest.mark.parametrize("family", [pytest.param(f, id=f.name, marks=() if f.name in DEFAULT_FAMILIES
                                                   else pytest.mark.slow) for f in FAMILIES])
def test_trainer_step_matches_torch(request, family):
    """One transformers.Trainer step (max_steps=1, batch 2, lr 1e-3) moves the weights as torch's Trainer does."""
    fixture = "default_results" if family.name in DEFAULT_FAMILIES else "slow_results"
    check_trainer(request.getfixturevalue(fixture), family)


def test_trainer_check_fails_without_the_step(default_results):
    """The Trainer check can fail: weights left where they started, or moved twice as far, are caught."""
    family = next(f for f in FAMILIES if f.name == DEFAULT_FAMILIES[0])
    for scale in (0.0, 2.0):
        res = {phase: dict(values) for phase, values in default_results.items()}
        for key in [k for k in res["shim"] if k.startswith(f"{family.name}/trainer/")]:
            start = res["build"][key.replace("/trainer/", "/state/")]
            res["shim"][key] = start + scale * (res["shim"][key] - start)
        with pytest.raises(AssertionError):
            check_trainer(res, family)


def test_trainer_steps_with_dropout_drew_masks(default_results):
    """Where a family's Trainer step runs with dropout on, its loss differs from the dropout-free loss of the
    same batch: the masks took part, so the equal losses and steps above compare the seeded masks too."""
    with_dropout = [f for f in FAMILIES if f.name in DEFAULT_FAMILIES and f.trainer_dropout]
    assert with_dropout
    for family in with_dropout:
        build = default_results["build"]
        plain, dropped = float(build[f"{family.name}/loss"]), float(build[f"{family.name}/trainer_loss"])
        assert abs(plain - dropped) > 1e-4 * plain, (family.name, plain, dropped)


def test_default_families_are_listed():
    assert set(DEFAULT_FAMILIES) <= {f.name for f in FAMILIES}


def test_mixtral_router_loss_is_part_of_the_loss(default_results):
    """The load-balancing loss is non-trivial (about num_experts_per_tok for a uniform router) and matches."""
    ours, theirs = (float(default_results[p]["mixtral/train/aux_loss"]) for p in ("shim", "build"))
    assert 1.0 < theirs < 4.0, theirs
    assert abs(ours - theirs) <= 1e-5 * theirs, (ours, theirs)


def _generated(res, names):
    """Every family generated 8 new tokens per row (after the 10 prompt ids, or after the decoder start token),
    not one token over and over (the comparison would then have little to catch); returns how many families'
    beam search chose other tokens than greedy search."""
    differ = 0
    for family in (f for f in FAMILIES if f.name in names):
        greedy, beam = res["build"][f"{family.name}/generate/greedy"], res["build"][f"{family.name}/generate/beam"]
        length = (10 if family.inputs is causal_inputs else 1) + 8
        assert greedy.shape == beam.shape == (2, length), (family.name, greedy.shape, beam.shape)
        for tokens in (greedy, beam):
            assert np.unique(tokens[:, -8:]).size > 2, (family.name, tokens)
        differ += int(not (greedy == beam).all())
    return differ


def test_generation_produced_new_tokens(default_results):
    assert _generated(default_results, DEFAULT_FAMILIES) > 0  # beam search is not greedy under another name


@pytest.mark.slow
def test_generation_produced_new_tokens_all_families(slow_results):
    _generated(slow_results, [f.name for f in FAMILIES if f.name not in DEFAULT_FAMILIES])
