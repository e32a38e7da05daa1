"""Lay out a temporary directory in which pytest runs transformers' common test mixins under the shim.

    <root>/conftest.py           conftest_upstream.py: installs the shim first, applies skips.py
    <root>/skips.py
    <root>/tiny_testers.py       model testers shared by the suites of several models
    <root>/hf_tests/             the sdist's common test files as a package, plus the modules they import
                                 from transformers' tests package that the sdist does not ship
                                 (generation/test_utils.py: generation_mixin.py, or the file named by
                                 MINDNLP_SHIM_GENERATION_MIXIN)
    <root>/test_<model>.py       suite_<model>.py: the model testers
"""
import os
import shutil

from sdist import extract_common_tests

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ("bert", "gpt2", "llama", "t5", "mistral", "qwen2", "opt", "bart", "mixtral", "gpt_neox", "qwen3", "gemma2",
          "gemma3", "phi3", "falcon", "marian", "mt5", "roberta", "xlm_roberta", "distilbert", "albert", "electra",
          "deberta_v2", "modernbert")

# Modules test_modeling_common.py / test_configuration_common.py import relatively that are not in the sdist.
# The export mixin is left empty: torch.export has no MindSpore meaning. The generation mixin is the project's
# own (generation_mixin.py), written from generate's documented behaviour.
_MISSING_MODULES = {
    "exporters/__init__.py": "",
    "exporters/test_export.py": (
        '"""Stand-in: the sdist does not ship tests/exporters; torch.export has no MindSpore meaning."""\n\n\n'
        "class ExportTesterMixin:\n    pass\n\n\n"
        "class ExportGenerateTesterMixin:\n    pass\n"),
    "generation/__init__.py": "",
    "utils/__init__.py": "",
    "utils/test_configuration_utils.py": (
        '"""Stand-in for the dict the sdist does not ship: base-config keyword arguments set to non-default\n'
        'values, which every config class must store as given (ConfigTester.check_config_arguments_init)."""\n\n'
        "config_common_kwargs = {\n"
        '    "return_dict": False,\n'
        '    "output_hidden_states": True,\n'
        '    "dtype": "float16",\n'
        '    "chunk_size_feed_forward": 5,\n'
        '    "architectures": ["BertModel"],\n'
        '    "problem_type": "regression",\n'
        "}\n"),
}


def generation_mixin_path():
    """The file installed as hf_tests/generation/test_utils.py: the project's generation_mixin.py, or the file named
    by MINDNLP_SHIM_GENERATION_MIXIN (e.g. a local copy of transformers' own tests/generation/test_utils.py, kept
    outside the repository, to measure the shim against upstream's GenerationTesterMixin)."""
    path = os.environ.get("MINDNLP_SHIM_GENERATION_MIXIN")
    if not path:
        return os.path.join(HERE, "generation_mixin.py")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"MINDNLP_SHIM_GENERATION_MIXIN={path} is not a file")
    return path


def build(root, archive, models=MODELS):
    """Create the tree under `root` (an existing empty directory); returns the test file path per model."""
    pkg = os.path.join(root, "hf_tests")
    os.makedirs(pkg)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    extract_common_tests(archive, pkg)
    for rel, text in _MISSING_MODULES.items():
        path = os.path.join(pkg, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    shutil.copy(generation_mixin_path(), os.path.join(pkg, "generation", "test_utils.py"))
    shutil.copy(os.path.join(HERE, "conftest_upstream.py"), os.path.join(root, "conftest.py"))
    shutil.copy(os.path.join(HERE, "skips.py"), os.path.join(root, "skips.py"))
    shutil.copy(os.path.join(HERE, "tiny_testers.py"), os.path.join(root, "tiny_testers.py"))
    with open(os.path.join(root, "pytest.ini"), "w") as fh:
        fh.write("[pytest]\naddopts = -p no:warnings\n")  # <root> is the rootdir, not the project
    tests = {}
    for model in models:
        tests[model] = os.path.join(root, f"test_{model}.py")
        shutil.copy(os.path.join(HERE, f"suite_{model}.py"), tests[model])
    return tests
