"""Fast checks of the upstream-suite runner (tests/upstream/run.py) without running the suite or the network:
every skip has a reason, skip matching, the junit parser's counts, and (when the installed release's sdist is
already cached) the temporary test tree it lays out."""
import os
import sys

import pytest

UPSTREAM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream")
sys.path.insert(0, UPSTREAM_DIR)

import results  # noqa: E402
import sdist  # noqa: E402
import skips  # noqa: E402

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="2" skipped="2" tests="8">
  <testcase classname="test_bert.BertModelTest" name="test_save_load" time="0.1"/>
  <testcase classname="test_bert.BertModelTest" name="test_config" time="0.1"/>
  <testcase classname="test_bert.BertModelTest" name="test_attention_outputs" time="0.1"/>
  <testcase classname="test_bert.BertModelTest" name="test_a" time="0.1">
    <failure message="AssertionError: Tensor-likes are not close!&#10;more">trace</failure></testcase>
  <testcase classname="test_bert.BertModelTest" name="test_b" time="0.1">
    <failure message="ValueError: bad">trace</failure></testcase>
  <testcase classname="test_bert.BertModelTest" name="test_c" time="0.1">
    <error message="collection failure">trace</error></testcase>
  <testcase classname="test_bert.BertModelTest" name="test_d" time="0.0">
    <skipped type="pytest.skip" message="test requires CUDA">skip</skipped></testcase>
  <testcase classname="test_bert.BertModelTest" name="test_e" time="0.0">
    <skipped type="pytest.skip" message="mindnlp-shim: no torch.compile">skip</skipped></testcase>
</testsuite></testsuites>
"""


def test_every_skip_has_a_reason():
    assert skips.SKIPS
    for name, reason in skips.SKIPS.items():
        assert name.rpartition("::")[2].startswith("test_"), name
        assert isinstance(reason, str) and len(reason.strip()) > 10, name


def test_skip_matching_covers_parameterized_names_only():
    name = next(iter(skips.SKIPS))
    reason = skips.SKIPS[name]
    assert skips.reason_for("AnyModelTest", name) == reason
    assert skips.reason_for("AnyModelTest", name + "_0") == reason
    assert skips.reason_for("AnyModelTest", name + "_3_fp16_pad_left") == reason
    assert skips.reason_for("AnyModelTest", name + "_and_more") is None
    assert skips.reason_for("AnyModelTest", "test_not_listed_anywhere") is None


def test_junit_parser_counts(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT)
    counts = results.parse_junit(str(path))
    assert (counts["passed"], counts["failed"], counts["skipped"]) == (3, 3, 2)
    assert counts["failures"][0] == ("test_bert.BertModelTest::test_a", "AssertionError: Tensor-likes are not close!")
    assert [f[0].rpartition("::")[2] for f in counts["failures"]] == ["test_a", "test_b", "test_c"]
    assert counts["skips"][1][1] == "mindnlp-shim: no torch.compile"
    assert results.pass_rate(counts) == 0.5
    assert results.pass_rate({"passed": 0, "failed": 0}) is None


def test_tree_from_cached_sdist(tmp_path):
    archive = sdist.sdist_path()
    if not os.path.exists(archive):
        pytest.skip(f"transformers sdist not cached at {archive} (run tests/upstream/run.py once)")
    import package

    tests = package.build(str(tmp_path), archive, models=("bert",))
    assert set(tests) == {"bert"} and os.path.exists(tests["bert"])
    for name in sdist.COMMON_FILES:
        text = (tmp_path / "hf_tests" / name).read_text()
        assert "Copyright" in text and len(text) > 1000
    assert "class ModelTesterMixin" in (tmp_path / "hf_tests" / "test_modeling_common.py").read_text()
    assert "import mindnlp" in (tmp_path / "conftest.py").read_text()
    assert (tmp_path / "hf_tests" / "utils" / "test_configuration_utils.py").exists()


def test_assert_close_which_the_upstream_suite_calls():
    from mindnlp_shim.torch import float32, float64, ones, testing

    a = ones(3, dtype=float32)
    testing.assert_close(a, a + 1e-7)
    testing.assert_close({"x": [a, 1.0]}, {"x": [a, 1.0]})
    testing.assert_close(a, a + 0.01, rtol=0.0, atol=0.02)
    with pytest.raises(AssertionError, match="not close"):
        testing.assert_close(a, a + 1e-3)
    with pytest.raises(AssertionError, match="dtype"):
        testing.assert_close(a, ones(3, dtype=float64))
    with pytest.raises(AssertionError, match="shape"):
        testing.assert_close(a, ones(4, dtype=float32))
    with pytest.raises(ValueError):
        testing.assert_close(a, a, rtol=1e-3)


def test_every_model_has_a_suite_and_shared_testers_are_laid_out(tmp_path):
    """Each model the runner offers has its suite file; suites that share testers find tiny_testers.py beside
    them in the temporary tree."""
    import package

    for model in package.MODELS:
        assert os.path.exists(os.path.join(UPSTREAM_DIR, f"suite_{model}.py")), model
    archive = sdist.sdist_path()
    if not os.path.exists(archive):
        pytest.skip(f"transformers sdist not cached at {archive} (run tests/upstream/run.py once)")
    tests = package.build(str(tmp_path), archive, models=("mistral", "bart"))
    for model in ("mistral", "bart"):
        assert "from tiny_testers import" in open(tests[model]).read()
    assert "class CausalLMTester" in (tmp_path / "tiny_testers.py").read_text()


def test_ecosystem_runner_extracts_a_tests_package_with_the_sampler(tmp_path):
    import io
    import tarfile

    import ecosystem

    archive = tmp_path / "lib-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = b"def test_one():\n    assert True\n"
        info = tarfile.TarInfo("lib-1.0/tests/test_a.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    root = ecosystem.extract(str(archive), str(tmp_path / "src"))
    assert sorted(os.listdir(os.path.join(root, "tests"))) == ["__init__.py", "test_a.py"]
    namespace = {}
    exec(open(os.path.join(root, "ecosystem_sampler.py")).read(), namespace)

    class Config:
        class hook:
            deselected = []

            @staticmethod
            def pytest_deselected(items):
                Config.hook.deselected.extend(items)

    items = list(range(10))
    os.environ["ECOSYSTEM_EVERY"] = "4"
    try:
        namespace["pytest_collection_modifyitems"](Config, items)
    finally:
        del os.environ["ECOSYSTEM_EVERY"]
    assert items == [3, 7] and len(Config.hook.deselected) == 8


def test_ecosystem_outcomes_and_causes(tmp_path):
    import ecosystem

    path = tmp_path / "junit.xml"
    path.write_text(JUNIT)
    state, messages = ecosystem.outcomes(str(path))
    assert state["test_bert.BertModelTest::test_a"] == "failed"
    assert state["test_bert.BertModelTest::test_d"] == "skipped"
    assert state["test_bert.BertModelTest::test_save_load"] == "passed"
    assert ecosystem.cause(messages["test_bert.BertModelTest::test_a"]) == "AssertionError: Tensor-likes are not close!"
    assert ecosystem.cause("shape (2, 3) vs 12") == "shape (N, N) vs N"


def test_generation_mixin_file_is_the_projects_unless_named(tmp_path, monkeypatch):
    """MINDNLP_SHIM_GENERATION_MIXIN names the file installed as hf_tests/generation/test_utils.py (a local copy of
    transformers' own mixin, to measure against it); unset, the project's generation_mixin.py; a missing file is an
    error rather than a silent fallback."""
    import package

    monkeypatch.delenv("MINDNLP_SHIM_GENERATION_MIXIN", raising=False)
    assert package.generation_mixin_path() == os.path.join(UPSTREAM_DIR, "generation_mixin.py")
    mine = tmp_path / "test_utils.py"
    mine.write_text("class GenerationTesterMixin:\n    pass\n")
    monkeypatch.setenv("MINDNLP_SHIM_GENERATION_MIXIN", str(mine))
    assert package.generation_mixin_path() == str(mine)
    monkeypatch.setenv("MINDNLP_SHIM_GENERATION_MIXIN", str(tmp_path / "absent.py"))
    with pytest.raises(FileNotFoundError, match="MINDNLP_SHIM_GENERATION_MIXIN"):
        package.generation_mixin_path()
    monkeypatch.delenv("MINDNLP_SHIM_GENERATION_MIXIN")
    archive = sdist.sdist_path()
    if not os.path.exists(archive):
        pytest.skip(f"transformers sdist not cached at {archive} (run tests/upstream/run.py once)")
    monkeypatch.setenv("MINDNLP_SHIM_GENERATION_MIXIN", str(mine))
    root = tmp_path / "tree"
    root.mkdir()
    package.build(str(root), archive, models=("gpt2",))
    assert (root / "hf_tests" / "generation" / "test_utils.py").read_text() == mine.read_text()
    assert "class ExportGenerateTesterMixin" in (root / "hf_tests" / "exporters" / "test_export.py").read_text()
