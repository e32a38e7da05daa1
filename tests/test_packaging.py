"""Packaging: what setup.py declares, what the wheels contain, and the torch stand-in (metadata plus the one
module that installs the shim when `import torch` comes first).

Everything here runs offline: wheels are built with `pip wheel --no-deps --no-build-isolation` and no index.
"""
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAND_IN_DIR = os.path.join(REPO_ROOT, "packaging", "torch-stand-in")

# What the packages that pull torch declared when this was written; the installed metadata is checked too.
KNOWN_TORCH_REQUIREMENTS = {"accelerate": ">=2.0.0", "peft": ">=1.13.0", "sentence-transformers": ">=2.2"}
# The machines' pip configuration caps torch; the stand-in must fit under the cap as well.
MACHINE_TORCH_CAP = "<=2.14.1"


@pytest.fixture(scope="module")
def setup_distribution():
    """setup.py evaluated up to the point where its arguments are known (nothing is built)."""
    import setuptools  # noqa: F401  (provides distutils on Python >= 3.12 and patches it before)
    from distutils.core import run_setup

    cwd = os.getcwd()
    try:
        os.chdir(REPO_ROOT)
        return run_setup(os.path.join(REPO_ROOT, "setup.py"), stop_after="init")
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def stand_in_project():
    with open(os.path.join(STAND_IN_DIR, "pyproject.toml"), "rb") as handle:
        return tomllib.load(handle)["project"]


def _build_wheel(source_dir, out_dir):
    """Build one wheel of source_dir into out_dir without network or a build environment; return its path."""
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", out_dir, source_dir],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    wheels = [name for name in os.listdir(out_dir) if name.endswith(".whl")]
    assert len(wheels) == 1, wheels
    return os.path.join(out_dir, wheels[0])


def _copy_tree(source, target):
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))


def _wheel_metadata(wheel_path):
    with zipfile.ZipFile(wheel_path) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        text = archive.read(metadata_name).decode("utf-8")
    headers = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(": ")
        headers.setdefault(key, []).append(value)
    return names, headers


def _source_version():
    with open(os.path.join(REPO_ROOT, "mindnlp_shim", "__init__.py"), encoding="utf-8") as handle:
        match = re.search(r'^__version__\s*=\s*"([^"]+)"', handle.read(), re.MULTILINE)
    assert match, "mindnlp_shim/__init__.py defines no __version__"
    return match.group(1)


# --- the torch stand-in -------------------------------------------------------------------------------------


def test_stand_in_is_named_torch_and_satisfies_the_known_torch_requirements(stand_in_project):
    assert canonicalize_name(stand_in_project["name"]) == "torch"
    version = Version(stand_in_project["version"])
    assert version.local == "mindspore"
    for package, specifier in KNOWN_TORCH_REQUIREMENTS.items():
        assert SpecifierSet(specifier).contains(version), (package, specifier, version)
    assert SpecifierSet(MACHINE_TORCH_CAP).contains(version)
    assert not SpecifierSet(">=2.0").contains(Version("1.99")), "sanity: the specifier check can fail"


@pytest.mark.parametrize("package", sorted(KNOWN_TORCH_REQUIREMENTS))
def test_stand_in_satisfies_the_installed_packages_torch_requirement(stand_in_project, package):
    try:
        requirements = importlib.metadata.requires(package) or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{package} is not installed here")
    torch_requirements = [
        Requirement(text) for text in requirements
        if canonicalize_name(Requirement(text).name) == "torch" and Requirement(text).marker is None
    ]
    assert torch_requirements, f"{package} no longer declares torch; review the stand-in"
    for requirement in torch_requirements:
        assert requirement.specifier.contains(Version(stand_in_project["version"])), str(requirement)


def test_stand_in_declares_one_module_and_no_dependencies(stand_in_project):
    with open(os.path.join(STAND_IN_DIR, "pyproject.toml"), "rb") as handle:
        setuptools_config = tomllib.load(handle)["tool"]["setuptools"]
    assert setuptools_config["packages"] == ["torch"] and setuptools_config["py-modules"] == []
    assert stand_in_project["dependencies"] == []
    code = sorted(os.path.relpath(os.path.join(d, f), STAND_IN_DIR) for d, _, files in os.walk(STAND_IN_DIR)
                  for f in files if f.endswith(".py"))
    assert code == [os.path.join("torch", "__init__.py")]


def test_stand_in_wheel_holds_its_one_module_and_metadata(tmp_path, stand_in_project):
    source = tmp_path / "torch-stand-in"
    _copy_tree(STAND_IN_DIR, source)  # a copy, so building leaves no build/ or egg-info in the repository
    names, headers = _wheel_metadata(_build_wheel(str(source), str(tmp_path / "dist")))

    # importing it installs the shim (tests/test_import_order.py runs it in a venv built from this wheel)
    assert [name for name in names if not name.startswith("torch-2.13.0+mindspore.dist-info/")] == [
        "torch/__init__.py"]
    assert headers["Name"] == ["torch"]
    assert headers["Version"] == [stand_in_project["version"]]
    assert "Requires-Dist" not in headers


# --- the mindnlp-shim distribution ----------------------------------------------------------------------------


def test_setup_installs_top_level_patches_as_mindnlp_shim_patches(setup_distribution):
    assert "mindnlp_shim.patches" in setup_distribution.packages
    assert setup_distribution.package_dir["mindnlp_shim.patches"] == "patches"
    assert {"mindnlp", "mindnlp_shim"} <= set(setup_distribution.packages)
    assert "patches" not in setup_distribution.packages  # only under its installed name


def test_setup_lists_every_subpackage_of_the_shim(setup_distribution):
    on_disk = set()
    for directory, _, files in os.walk(os.path.join(REPO_ROOT, "mindnlp_shim")):
        if "__init__.py" in files:
            on_disk.add(os.path.relpath(directory, REPO_ROOT).replace(os.sep, "."))
    assert on_disk <= set(setup_distribution.packages)


def test_project_wheel_contains_patches_inside_the_package(tmp_path):
    source = tmp_path / "project"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        if os.path.exists(os.path.join(REPO_ROOT, name)):
            shutil.copy(os.path.join(REPO_ROOT, name), source / name)
    for name in ("mindnlp", "mindnlp_shim", "patches"):
        _copy_tree(os.path.join(REPO_ROOT, name), source / name)
    names, headers = _wheel_metadata(_build_wheel(str(source), str(tmp_path / "dist")))

    patch_modules = sorted(name for name in os.listdir(os.path.join(REPO_ROOT, "patches")) if name.endswith(".py"))
    assert "__init__.py" in patch_modules
    for module in patch_modules:
        assert f"mindnlp_shim/patches/{module}" in names
    assert "mindnlp/__init__.py" in names and "mindnlp_shim/__init__.py" in names
    assert not [name for name in names if name.split("/")[0] in ("patches", "tests", "examples", "benchmarks")]
    assert headers["Name"] == ["mindnlp-shim"]


def test_install_requires_never_admit_a_torch(setup_distribution):
    # accelerate/peft need *a* torch distribution; the stand-in or the test oracle provides it, never these lists.
    for text in setup_distribution.install_requires + setup_distribution.extras_require["examples"]:
        assert canonicalize_name(Requirement(text).name) != "torch", text


def test_test_extra_pins_the_cpu_oracle_release_exactly(setup_distribution):
    torch_pins = [Requirement(t) for t in setup_distribution.extras_require["test"] if Requirement(t).name == "torch"]
    assert [str(pin.specifier) for pin in torch_pins] == ["==2.13.0"]


def test_versions_agree(setup_distribution):
    assert setup_distribution.get_version() == _source_version()


def test_python_requirement_admits_the_running_interpreter(setup_distribution):
    running = Version(".".join(map(str, sys.version_info[:3])))
    assert SpecifierSet(setup_distribution.python_requires).contains(running)


def test_pinned_ranges_include_the_installed_versions(setup_distribution):
    """The ranges are meant to describe what the tests ran against: every installed dependency must fit them."""
    checked = 0
    for text in setup_distribution.install_requires + setup_distribution.extras_require["test"]:
        requirement = Requirement(text)
        try:
            installed = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            continue
        assert requirement.specifier.contains(Version(installed), prereleases=True), (text, installed)
        checked += 1
    assert checked >= 8, "most dependencies should be installed where the tests run"


def test_installed_distribution_metadata_matches_setup(setup_distribution):
    try:
        installed = importlib.metadata.distribution("mindnlp-shim")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("mindnlp-shim is not installed in this environment (.ci/run installs it)")
    assert installed.version == setup_distribution.get_version()
    declared = {str(Requirement(text)) for text in installed.requires or [] if "extra ==" not in text}
    assert declared == {str(Requirement(text)) for text in setup_distribution.install_requires}


def test_every_examples_package_that_requires_torch_is_covered_by_the_stand_in(setup_distribution):
    """trl and sentence-transformers joined the examples extra: whatever they (or any other example package)
    require of torch must be a requirement the stand-in is checked against, or the user install pulls PyTorch."""
    checked = 0
    for text in setup_distribution.extras_require["examples"]:
        name = Requirement(text).name
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        checked += 1
        wants_torch = any(canonicalize_name(Requirement(r).name) == "torch" and Requirement(r).marker is None
                          for r in requirements)
        assert not wants_torch or canonicalize_name(name) in map(canonicalize_name, KNOWN_TORCH_REQUIREMENTS), name
    assert checked >= 3
