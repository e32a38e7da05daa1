"""docs/trainer-features.md stays true: every TrainingArguments field of the pinned transformers has a row, and
every test a row cites exists."""
import ast
import dataclasses
import os
import re

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(os.path.dirname(HERE), "docs", "trainer-features.md")


def _rows():
    with open(DOC) as fh:
        return [line for line in fh.read().splitlines() if line.startswith("| ") and line.count("|") >= 4]


def _test_functions(filename):
    with open(os.path.join(HERE, filename)) as fh:
        tree = ast.parse(fh.read())
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_training_arguments_field_has_a_row():
    transformers = pytest.importorskip("transformers")
    first_cells = " ".join(row.split("|")[1] for row in _rows())
    fields = [f.name for f in dataclasses.fields(transformers.TrainingArguments)]
    missing = [name for name in fields if not re.search(rf"`{re.escape(name)}[`= ]", first_cells)]
    assert not missing, f"TrainingArguments fields without a row in docs/trainer-features.md: {missing}"


def test_every_cited_test_exists():
    cited = set(re.findall(r"`(test_\w+\.py)::(test_\w+)", "\n".join(_rows())))
    assert len(cited) > 50
    functions = {}
    for filename, name in sorted(cited):
        if filename not in functions:
            assert os.path.exists(os.path.join(HERE, filename)), f"docs cite a missing test file {filename}"
            functions[filename] = _test_functions(filename)
        assert name in functions[filename], f"docs cite {filename}::{name}, which does not exist"


def test_no_row_claims_support_without_a_test():
    for row in _rows():
        cells = [c.strip() for c in row.split("|")[1:-1]]
        if len(cells) == 3 and cells[1].startswith("Supported"):
            assert "test_" in cells[2] or cells[2].startswith("same") or cells[2].startswith("see "), row
