"""The API census (tests/api_census.py) against real torch, and docs/api-coverage.md kept in step with it."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_census  # noqa: E402
from oracle import require_torch  # noqa: E402


@pytest.fixture(scope="module")
def census():
    require_torch()
    return api_census.census()


def test_committed_coverage_doc_is_current(census):
    result, version = census
    with open(api_census.DOC_PATH, encoding="utf-8") as fh:
        committed = fh.read()
    fresh = api_census.render(result, version)
    assert committed == fresh, f"docs/api-coverage.md is stale; regenerate it with: {api_census.REGENERATE}"


def test_census_classifies_known_names(census):
    """Anchors that hold whatever else changes: a name torch has and the shim lacks on purpose is missing, a
    dtype is compared, a placeholder that cannot be constructed is raising."""
    result, _ = census
    assert result["torch"]["float32"] == ("matching", "dtype compared")
    assert result["torch"]["FileCheck"][0] == "missing"  # TorchScript's test utility: no TorchScript here
    assert result["torch.nn"]["BatchNorm1d"][0] in ("raising", "matching", "unverified")
    assert all(status in api_census.STATUSES for rows in result.values() for status, _ in rows.values())


def test_public_names_exclude_submodules_and_typing():
    require_torch()
    report = api_census.run_oracle()
    torch_names = report["namespaces"]["torch"]
    assert "nn" not in torch_names and "TYPE_CHECKING" not in torch_names and "float32" in torch_names
    assert "Optional" not in report["namespaces"]["torch.nn.functional"]
    assert "common_notes" not in report["namespaces"]["torch.linalg"]


def test_probe_detects_a_wrong_answer():
    """A probe compares values: a shim function answering exp for torch's sin is caught."""
    import mindnlp_shim.torch as mt

    probe = {"arity": 1, "dtype": "torch.float32", "shape": [2, 3], "grads": None,
             "values": [[__import__("math").sin(v) for v in row] for row in api_census.PROBE_X]}
    assert api_census._shim_probe(mt, "torch", "sin", mt.sin, probe) == ""
    assert api_census._shim_probe(mt, "torch", "sin", mt.exp, probe) == "values"


def test_raising_detection():
    from mindnlp_shim.torch import _stand_ins

    def refuses(x):
        """doc"""
        raise NotImplementedError("torch.x is not supported")

    def partial(x):
        if x:
            raise NotImplementedError("torch.x for x")
        return x

    assert api_census.is_raising_stand_in(refuses)
    assert api_census.is_raising_stand_in(_stand_ins.unsupported("fft.fft", "no"))
    assert api_census.is_raising_stand_in(_stand_ins.placeholder_type("torch.X"))
    assert not api_census.is_raising_stand_in(partial)


def test_declared_evidence_names_existing_tests():
    evidence, errors = api_census.declared_evidence()
    assert errors == []
