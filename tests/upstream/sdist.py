"""Fetch the sdist of the installed transformers release (or of another library: ecosystem.py) (at run time, into a cache; it is never committed) and
extract the common test files transformers ships in it."""
import os
import subprocess
import sys
import tarfile
from importlib import metadata


def installed_transformers_version():
    """The version of the transformers the tests run against, read from its metadata: importing transformers
    here would import torch before the shim is installed."""
    return metadata.version("transformers")


# The common tests must come from the same release as the library they test: test_modeling_common.py of one
# release calls that release's model API (e.g. 5.24 renamed the models' `past_key_values` argument to `cache`).
TRANSFORMERS_VERSION = installed_transformers_version()
CACHE_DIR = os.environ.get("MINDNLP_SHIM_UPSTREAM_CACHE",
                           os.path.join(os.path.expanduser("~"), ".cache", "mindnlp-shim-upstream"))
# The files the common mixins live in; everything they import from the tests package besides these is
# provided by `package.py`, because the sdist does not ship it.
COMMON_FILES = ("test_modeling_common.py", "test_configuration_common.py", "test_training_mixin.py")


def sdist_path(version=TRANSFORMERS_VERSION, cache_dir=CACHE_DIR, distribution="transformers"):
    return os.path.join(cache_dir, f"{distribution}-{version}.tar.gz")


def ensure_sdist(version=TRANSFORMERS_VERSION, cache_dir=CACHE_DIR, distribution="transformers"):
    """The cached sdist of `distribution`, downloaded with pip (source only, no dependencies) when missing."""
    path = sdist_path(version, cache_dir, distribution)
    if os.path.exists(path):
        return path
    os.makedirs(cache_dir, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                    f"{distribution}=={version}", "-d", cache_dir], check=True)
    if not os.path.exists(path):
        raise FileNotFoundError(f"pip did not leave {path}")
    return path


def extract_common_tests(archive, dest_dir, version=TRANSFORMERS_VERSION):
    """Copy the sdist's tests/<COMMON_FILES> into dest_dir; returns the written paths."""
    written = []
    with tarfile.open(archive) as tar:
        for name in COMMON_FILES:
            member = tar.getmember(f"transformers-{version}/tests/{name}")
            data = tar.extractfile(member).read()
            out = os.path.join(dest_dir, name)
            with open(out, "wb") as fh:
                fh.write(data)
            written.append(out)
    return written
