"""Run a script with the shim installed, in a fresh interpreter.

The pytest process may hold real PyTorch (parity modules import it), and real torch cannot live beside the shim
under the same name, so anything that needs `import mindnlp` (transformers running on the shim) runs in a
child process. The child sees the source checkout on PYTHONPATH and runs from a scratch directory.

    out = run_shim([script, "--flag"])            # stdout
    data = run_shim_json([script, "--flag"])     # the last line printed, parsed as JSON
"""
import json
import os
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(REPO_ROOT, "tests", "scripts")


class ShimRunError(RuntimeError):
    pass


def shim_env(extra=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    env["PYTHONPATH"] = REPO_ROOT
    env["GLOG_v"] = "3"
    env["TOKENIZERS_PARALLELISM"] = "false"  # two cores, shared: keep child processes single-minded
    env["HF_HUB_OFFLINE"] = "1"
    env.update(extra or {})
    return env


def run_process(argv, *, timeout=600, env=None, cwd=None, check=True):
    """Run `python argv...` with the shim's environment; return the CompletedProcess."""
    proc = subprocess.run([sys.executable, *argv], cwd=cwd or tempfile.gettempdir(), env=shim_env(env),
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise ShimRunError(f"{argv[0]} failed (exit {proc.returncode}):\n"
                           f"--- stdout ---\n{proc.stdout[-3000:]}\n--- stderr ---\n{proc.stderr[-6000:]}")
    return proc


def run_shim(argv, **kwargs):
    return run_process(argv, **kwargs).stdout


def run_shim_json(argv, **kwargs):
    lines = [line for line in run_shim(argv, **kwargs).splitlines() if line.strip()]
    if not lines:
        raise ShimRunError(f"{argv[0]} printed nothing")
    return json.loads(lines[-1])


def script(name):
    return os.path.join(SCRIPTS, name)
