"""The zoo's encoders, vision and audio models on the shim match real PyTorch from identical weights.

tests/scripts/zoo_encoders.py runs three times (real torch builds and measures, the shim loads and measures and
saves, real torch loads what the shim saved); tests/scripts/zoo_common.py holds the measurements and the checks:
inputs (processor output included), eval and train outputs, loss, every gradient, one AdamW step, generate
(Whisper), and save_pretrained output loading in real torch. docs/models.md has the table.

One transformers.Trainer step (tests/scripts/zoo_trainer_step.py) runs for a text classifier, a vision model,
CLIP (a flag among the inputs) and Whisper (processor features, encoder-decoder) in the default run, and for the
other families under `-m slow` (build and shim phases of their own, the Trainer step only).
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))

from oracle import require_torch  # noqa: E402
from shim_runner import script  # noqa: E402
from zoo_common import applicable_checks, load_results, run_check, run_phases  # noqa: E402
from zoo_encoders import FAMILIES  # noqa: E402
from zoo_trainer_step import check_trainer  # noqa: E402

ZOO_ENCODERS = script("zoo_encoders.py")
# (family, check) -> the measured reason it fails today; strict: the test fails once it passes.
KNOWN_FAILURES = {}
TRAINER_DEFAULT_FAMILIES = ("roberta_cls", "vit", "clip", "whisper")
TRAINER_SLOW_FAMILIES = tuple(f.name for f in FAMILIES if f.name not in TRAINER_DEFAULT_FAMILIES)


def _cases():
    for family in FAMILIES:
        for check in applicable_checks(family):
            marks = ()
            if (family.name, check) in KNOWN_FAILURES:
                marks = pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[family.name, check])
            yield pytest.param(family, check, marks=marks, id=f"{family.name}-{check}")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_torch()
    workdir = str(tmp_path_factory.mktemp("zoo_encoders"))
    run_phases(ZOO_ENCODERS, workdir, args=["--trainer", *TRAINER_DEFAULT_FAMILIES])
    return load_results(workdir)


@pytest.fixture(scope="module")
def slow_trainer_results(tmp_path_factory):
    require_torch()
    workdir = str(tmp_path_factory.mktemp("zoo_encoders_trainer"))
    phases = ("build", "shim")
    run_phases(ZOO_ENCODERS, workdir, phases=phases,
               args=["--trainer-only", "--only", *TRAINER_SLOW_FAMILIES, "--trainer", *TRAINER_SLOW_FAMILIES])
    return load_results(workdir, phases)


@pytest.mark.parametrize("family,check", list(_cases()))
def test_family_matches_torch(results, family, check):
    run_check(results, family, check)


@pytest.mark.parametrize("family", [pytest.param(f, id=f.name, marks=() if f.name in TRAINER_DEFAULT_FAMILIES
                                                   else pytest.mark.slow) for f in FAMILIES])
def test_trainer_step_matches_torch(request, family):
    """One transformers.Trainer step (max_steps=1, batch 2, lr 1e-3) moves the weights as torch's Trainer does."""
    fixture = "results" if family.name in TRAINER_DEFAULT_FAMILIES else "slow_trainer_results"
    check_trainer(request.getfixturevalue(fixture), family)
