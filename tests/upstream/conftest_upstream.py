"""conftest.py of the temporary upstream test tree (copied there by package.py).

It installs the shim before pytest imports any test module, so transformers' own test files get
`mindnlp_shim.torch` when they `import torch` (unless MINDNLP_SHIM_UPSTREAM_SIDE=torch: the same tests under real
torch), and it marks the tests listed in skips.py as skipped."""
import os
import sys

os.environ.setdefault("GLOG_v", "3")  # before MindSpore is imported
sys.path.insert(0, os.environ["MINDNLP_SHIM_REPO"])

if os.environ.get("MINDNLP_SHIM_UPSTREAM_SIDE", "shim") == "shim":  # "torch": real torch's side of a comparison
    import mindnlp  # noqa: F401  (must precede transformers and torch)
import pytest  # noqa: E402
from skips import reason_for  # noqa: E402


def pytest_collection_modifyitems(config, items):
    for item in items:
        class_name = item.cls.__name__ if item.cls is not None else ""
        reason = reason_for(class_name, item.name)
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"mindnlp-shim: {reason}"))
