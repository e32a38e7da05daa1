"""Run named Trainer scenarios (tests/scripts/trainer_*_run.py, built on tests/scripts/tiny_trainer.py) in one
child process and hand each test its scenario's result.

Starting a child costs ~20 s of imports on a loaded machine, so a test module runs all its scenarios in one
child (a module-scoped fixture) and each test reads its own entry; a scenario that raised fails only the tests
that read it, with the child's traceback.
"""
import pytest

from oracle import run_torch
from shim_runner import run_shim_json, script


def run_scenarios(script_name, names, output_dir, *, side="shim", timeout=900):
    argv = [script(script_name), "--output-dir", str(output_dir), "--scenarios", ",".join(names)]
    if side == "shim":
        return run_shim_json(argv, timeout=timeout)
    import json

    # real torch: run the same script with the oracle's environment (no shim on the path)
    out = run_torch(f"""
        import runpy, sys
        sys.path.insert(0, {script('')!r})
        sys.argv = {[script(script_name), *argv[1:], "--side", "torch"]!r}
        runpy.run_path(sys.argv[0], run_name="__main__")
    """, timeout=timeout)
    return json.loads([line for line in out.splitlines() if line.strip()][-1])


def result(reports, name):
    """The scenario's result, or a test failure carrying the child's traceback."""
    entry = reports[name]
    if isinstance(entry, dict) and "error" in entry:
        pytest.fail(f"scenario {name!r} raised in the child:\n{entry['error']}", pytrace=False)
    return entry
