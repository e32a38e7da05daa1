"""Shared test setup: the source checkout is importable, MindSpore logs stay quiet, and parity modules can use
real PyTorch in-process when nothing in this process installed the import hook."""
import os
import subprocess
import sys

import pytest

os.environ.setdefault("GLOG_v", "3")  # before anything imports MindSpore

from hypothesis import settings  # noqa: E402

# Tests compare drawn cases with real torch: the same cases on every run, so that a run cannot pass or fail by the
# luck of the draw and a failure reproduces (HYPOTHESIS_PROFILE=explore draws new cases, to look for more)
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derandomized"))

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)

# Modules that compare against real torch in-process set this flag; when the hook is installed in this
# process they fall back to running themselves in a fresh interpreter (see `subprocess_fallback`).
SUBPROCESS_FLAG = "_PARITY_RUNS_IN_SUBPROCESS"
SUBPROCESS_TEST = "test_whole_module_in_subprocess"
_FORCE_SUBPROCESS = "MINDNLP_SHIM_PARITY_SUBPROCESS"  # set to 1 to exercise the fallback


def real_torch():
    """Real PyTorch for in-process comparison, or None when `import torch` here would give the shim.

    The shim is only installed by `import mindnlp`; a test that does that in-process makes `torch` the shim,
    and real torch cannot be loaded beside it under the same name."""
    if os.environ.get(_FORCE_SUBPROCESS) == "1":
        return None
    current = sys.modules.get("torch")
    if current is not None and current.__name__.startswith("mindnlp_shim"):
        return None
    try:
        from mindnlp_shim import is_installed
    except ImportError:
        is_installed = lambda: False  # noqa: E731
    if is_installed():
        return None
    import torch

    if not torch.__name__ == "torch" or not hasattr(torch, "_C"):
        return None
    return torch


@pytest.fixture(autouse=True, scope="module")
def _real_torch_distribution_checks_restored():
    """Real torch's first torch.compile turns off argument validation of every torch.distributions class for the
    whole process (torch/_dynamo/eval_frame.py); modules that compare those checks with the shim's come later."""
    yield
    torch = sys.modules.get("torch")
    distributions = sys.modules.get("torch.distributions")
    if torch is not None and torch.__name__ == "torch" and hasattr(torch, "_C") and distributions is not None:
        distributions.Distribution.set_default_validate_args(__debug__)


def saved_tensors_of(node):
    """The tensors an autograd node saved for its backward; the test is skipped where the MindSpore release's
    nodes do not show them (2.7.x: its custom-function nodes have no `saved_tensors`)."""
    if not hasattr(node, "saved_tensors"):
        import mindspore

        pytest.skip(f"MindSpore {mindspore.__version__}'s autograd nodes do not show the tensors they saved")
    return node.saved_tensors


def subprocess_fallback(module_file):
    """A test that runs `module_file` with pytest in a fresh interpreter (where real torch is importable)."""

    def test_whole_module_in_subprocess():
        env = {k: v for k, v in os.environ.items() if k != _FORCE_SUBPROCESS}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module_file],
                              cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]

    return test_whole_module_in_subprocess


def pytest_collection_modifyitems(config, items):
    import pytest

    skip = pytest.mark.skip(reason="real torch is not importable in this process (import hook installed); "
                                   "the whole module runs in a subprocess instead")
    for item in items:
        module = getattr(item, "module", None)
        if getattr(module, SUBPROCESS_FLAG, False) and item.name != SUBPROCESS_TEST:
            item.add_marker(skip)


def outcome(call, T):
    """What `call(T)` gives, comparable between real torch and the shim: ("error",) when it raises (torch's
    exception types differ by call; raising is what is compared), else the value's kind, and for a tensor its
    dtype, shape and values (as repr: NaN equals NaN, and signed zeros differ); tuples and lists element by
    element."""
    try:
        value = call(T)
    except Exception:  # noqa: BLE001
        return ("error",)
    return _described(value, T)


def _described(value, T):
    if isinstance(value, T.Tensor):
        return ("tensor", str(value.dtype).replace("torch.", ""), tuple(value.shape), repr(value.tolist()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_described(v, T) for v in value)
    return (type(value).__name__, repr(value))
