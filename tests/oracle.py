"""Run code with REAL PyTorch in a subprocess: the oracle that shim tests compare against.

The shim is never installed in the child (it is only installed by `import mindnlp`), and the child runs from a
scratch directory so that the repository's packages cannot shadow anything. Set MINDNLP_SHIM_ORACLE_PYTHON to
use another interpreter than the one running the tests.

    out = run_torch("import torch; print(torch.ones(2).sum().item())")
    data = run_torch_json("import torch, json; print(json.dumps({'v': torch.__version__}))")
"""
import functools
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

ORACLE_PYTHON = os.environ.get("MINDNLP_SHIM_ORACLE_PYTHON", sys.executable)


class OracleError(RuntimeError):
    pass


def _child_env(extra_env):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env.setdefault("GLOG_v", "3")
    env.update(extra_env or {})
    return env


def run_torch(code, *, timeout=300, env=None, cwd=None):
    """Run `code` (dedented) in a fresh interpreter and return its stdout; raise OracleError on failure."""
    workdir = cwd or tempfile.gettempdir()
    proc = subprocess.run([ORACLE_PYTHON, "-c", textwrap.dedent(code)], cwd=workdir, env=_child_env(env),
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise OracleError(f"oracle process failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc.stdout


def run_torch_json(code, **kwargs):
    """Run `code` and parse the last line it prints as JSON."""
    lines = [line for line in run_torch(code, **kwargs).splitlines() if line.strip()]
    if not lines:
        raise OracleError("oracle process printed nothing")
    return json.loads(lines[-1])


def scenario_answers(scenario, cases, timeout=600):
    """Real torch's answers to `cases`: `scenario` (source defining `run(torch, case)`) run on each in one oracle
    process; the cases travel in a temporary JSON file (a long list does not fit a command line)."""
    require_torch()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(cases, fh)
    try:
        code = scenario + ("\nimport json, torch\ncases = json.load(open(%r))\n"
                           "print(json.dumps([run(torch, c) for c in cases]))" % fh.name)
        return run_torch_json(code, timeout=timeout)
    finally:
        os.unlink(fh.name)


def scenario_answer(scenario, module, case):
    """The shim's answer to `case`: `scenario`'s `run(module, case)`, through JSON as the oracle's answers come."""
    namespace = {}
    exec(scenario, namespace)
    return json.loads(json.dumps(namespace["run"](module, case)))


@functools.lru_cache(maxsize=None)
def torch_version():
    """The oracle's torch version, or None when real torch cannot be imported there."""
    try:
        return run_torch("import torch; print(torch.__version__)", timeout=120).strip()
    except (OracleError, subprocess.TimeoutExpired, OSError):
        return None


def require_torch():
    """Skip the calling test when no real PyTorch is available to the oracle."""
    version = torch_version()
    if version is None:
        pytest.skip("real PyTorch (the test oracle) is not importable")
    return version


def drawn_cases(strategy, count):
    """`count` values drawn by hypothesis from `strategy`, the same on every run (derandomized): cases computed once
    by a real-torch subprocess and compared case by case with the shim."""
    from hypothesis import HealthCheck, given, settings

    drawn = []

    @settings(max_examples=count, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value):
        drawn.append(value)

    collect()
    return drawn
