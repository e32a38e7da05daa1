"""The zoo's encoders, vision and audio models on the shim match real PyTorch from identical weights.

tests/scripts/zoo_encoders.py runs three times (real torch builds and measures, the shim loads and measures and
saves, real torch loads what the shim saved); tests/scripts/zoo_common.py holds the measurements and the checks:
inputs (processor output included), eval and train outputs, loss, every gradient, one AdamW step, generate
(Whisper), and save_pretrained output loading in real torch. docs/models.md has the table.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))

from oracle import require_torch  # noqa: E402
from shim_runner import script  # noqa: E402
from zoo_common import applicable_checks, load_results, run_check, run_phases  # noqa: E402
from zoo_encoders import FAMILIES  # noqa: E402

ZOO_ENCODERS = script("zoo_encoders.py")
# (family, check) -> the measured reason it fails today; strict: the test fails once it passes.
KNOWN_FAILURES = {}


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
    run_phases(ZOO_ENCODERS, workdir)
    return load_results(workdir)


@pytest.mark.parametrize("family,check", list(_cases()))
def test_family_matches_torch(results, family, check):
    run_check(results, family, check)
