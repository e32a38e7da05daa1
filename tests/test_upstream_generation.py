"""The upstream runner's generation tests (tests/upstream/generation_mixin.py, inherited by the model suites) for a
decoder-only and an encoder-decoder family, under real torch and under the shim, from transformers' own common
test files (its sdist, downloaded once into the runner's cache). Every test real torch passes, the shim passes.

All 24 families: `python tests/upstream/run.py -k test_generation [--side torch]` (about 5 minutes per side)."""
import os
import sys

import pytest

from oracle import require_torch

UPSTREAM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream")
sys.path.insert(0, UPSTREAM_DIR)

import package  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402
import sdist  # noqa: E402

FAMILIES = ("gpt2", "bart")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    require_torch()
    pytest.importorskip("parameterized", reason="transformers' common test files import parameterized")
    root = str(tmp_path_factory.mktemp("upstream"))
    tests = package.build(root, sdist.ensure_sdist(), FAMILIES)
    found = {}
    for family in FAMILIES:
        for side in ("torch", "shim"):
            junit = os.path.join(root, f"junit-{family}-{side}.xml")
            log = os.path.join(root, f"pytest-{family}-{side}.log")
            run.run_model(tests[family], junit, log, keyword="test_generation", timeout=900, side=side)
            assert os.path.exists(junit), open(log).read()[-3000:]
            counts = results.parse_junit(junit)
            failed = {test_id for test_id, _ in counts["failures"]}
            found[family, side] = (counts, failed)
    return found


@pytest.mark.parametrize("family", FAMILIES)
def test_real_torch_passes_the_generation_tests(outcomes, family):
    counts, failed = outcomes[family, "torch"]
    assert counts["passed"] >= 20 and not failed, (counts["passed"], sorted(failed))


@pytest.mark.parametrize("family", FAMILIES)
def test_shim_passes_what_real_torch_passes(outcomes, family):
    torch_counts, torch_failed = outcomes[family, "torch"]
    shim_counts, shim_failed = outcomes[family, "shim"]
    messages = dict(shim_counts["failures"])
    lost = {test_id: messages[test_id] for test_id in shim_failed - torch_failed}
    assert not lost, lost
    assert shim_counts["passed"] >= torch_counts["passed"], (shim_counts["passed"], torch_counts["passed"])
