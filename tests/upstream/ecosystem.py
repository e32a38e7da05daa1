"""Run an ecosystem library's own test suite (peft, accelerate: the tests their sdists ship) under real torch
and under the shim on the same machine, and report the tests that pass under real torch and fail under the shim.

    python tests/upstream/ecosystem.py peft [--files tests/test_custom_models.py] [--every 50] [--keep]
    python tests/upstream/ecosystem.py accelerate
    python tests/upstream/ecosystem.py peft --every 5 --torch-only --keep     # real torch's side alone, then
    python tests/upstream/ecosystem.py peft --every 5 --torch-junit <kept junit-torch.xml>   # the shim's

The installed release's sdist is downloaded at run time into ~/.cache/mindnlp-shim-upstream (never committed)
and extracted into a temporary folder. Each side runs in its own pytest process with junit output; `--every N`
runs every N-th collected test of the chosen files (peft's test_custom_models.py alone has ~19,500), the same
tests on both sides. Needs `parameterized` and, for peft, `diffusers` (peft's testing_common imports it).
Only tests real torch passes measure the shim; the exit code is 1 when any of them fails under the shim."""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from importlib import metadata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))

import results  # noqa: E402
import sdist  # noqa: E402

# what runs by default per library: test files (relative to the sdist's root) and the sampling step
SUITES = {
    "peft": {"files": ["tests/test_custom_models.py"], "every": 50},
    "accelerate": {"files": ["tests"], "every": 1},
}

# tests left out on both sides, each with its reason (they would take the machine down, not fail)
DESELECTED = {}

# a pytest plugin (written next to the tests) that keeps every N-th collected test, and makes a hub request fail
# at once: some tests go online on purpose (peft's `hub_online_once`), and with no hub reachable each request
# waited ~25 s of retries; they fail on both sides either way, so they never measure the shim
_SAMPLER = '''
import os

try:
    import time as _time
    import types as _types

    import huggingface_hub.utils._http as _hub_http
    # (that module's own name `time` only: its retry pauses go, every other sleep stays)
    _hub_http.time = _types.SimpleNamespace(**{n: getattr(_time, n) for n in dir(_time) if not n.startswith("_")})
    _hub_http.time.sleep = lambda seconds: None
except Exception:
    pass

def pytest_collection_modifyitems(config, items):
    every = int(os.environ.get("ECOSYSTEM_EVERY", "1"))
    if every > 1:
        keep = items[every - 1::every]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
'''

# the shim's side: install it first, then run pytest in the same interpreter
_UNDER_SHIM = "import sys, mindnlp, pytest; sys.exit(pytest.main(sys.argv[1:]))"


def extract(archive, dest):
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    (top,) = os.listdir(dest)
    root = os.path.join(dest, top)
    tests = os.path.join(root, "tests")
    if not os.path.exists(os.path.join(tests, "__init__.py")):  # (peft's tests import each other relatively)
        open(os.path.join(tests, "__init__.py"), "w").close()
    with open(os.path.join(root, "ecosystem_sampler.py"), "w") as fh:
        fh.write(_SAMPLER)
    return root


def run_side(root, files, every, junit, log, under_shim, timeout, deselected=()):
    args = ["-q", "-p", "no:cacheprovider", "-p", "ecosystem_sampler", "-o", "addopts=", "--tb=short",
            "--continue-on-collection-errors", f"--junitxml={junit}", *files]
    for test_id in deselected:
        args += ["--deselect", test_id]
    cmd = [sys.executable, "-c", _UNDER_SHIM, *args] if under_shim else [sys.executable, "-m", "pytest", *args]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env.update(GLOG_v="3", HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9", ECOSYSTEM_EVERY=str(every), TOKENIZERS_PARALLELISM="false",
               PYTHONPATH=os.pathsep.join([root] + ([REPO_ROOT] if under_shim else [])))
    with open(log, "w") as out:
        subprocess.run(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=timeout)


def outcomes(junit):
    """{test id: "passed" | "failed" | "skipped"} and {test id: first message line of a failure}."""
    counts = results.parse_junit(junit)
    state, messages = {}, dict(counts["failures"])
    import xml.etree.ElementTree as ET

    for case in ET.parse(junit).getroot().iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        state[test_id] = ("failed" if case.find("failure") is not None or case.find("error") is not None
                          else "skipped" if case.find("skipped") is not None else "passed")
    return state, messages


def cause(message):
    return re.sub(r"\d+", "N", message)[:110]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("library", choices=sorted(SUITES))
    parser.add_argument("--files", nargs="+", help="test files or folders, relative to the sdist's root")
    parser.add_argument("--every", type=int, help="run every N-th collected test")
    parser.add_argument("--timeout", type=int, default=7200, help="seconds per side")
    parser.add_argument("--keep", action="store_true", help="keep the extracted tree, logs and junit files")
    parser.add_argument("--torch-junit", help="real torch's junit file from an earlier run of the same tests (kept "
                                              "with --keep): its side is not run again")
    parser.add_argument("--torch-only", action="store_true", help="run real torch's side only (with --keep, for a "
                                                                  "later --torch-junit)")
    args = parser.parse_args(argv)

    suite = SUITES[args.library]
    files, every = args.files or suite["files"], args.every or suite["every"]
    version = metadata.version(args.library)
    archive = sdist.ensure_sdist(version, distribution=args.library)
    work = tempfile.mkdtemp(prefix=f"mindnlp-shim-{args.library}-")
    try:
        root = extract(archive, os.path.join(work, "src"))
        sides = {}
        if args.torch_junit:
            sides["torch"] = outcomes(args.torch_junit)
        for side, under_shim in (("torch", False), ("shim", True)):
            if side in sides or (args.torch_only and under_shim):
                continue
            junit, log = os.path.join(work, f"junit-{side}.xml"), os.path.join(work, f"pytest-{side}.log")
            print(f"running {args.library} {version} under {'the shim' if under_shim else 'real torch'} "
                  f"(output in {log})", flush=True)
            run_side(root, files, every, junit, log, under_shim, args.timeout, DESELECTED.get(args.library, {}))
            if not os.path.exists(junit):
                print(f"{side}: pytest produced no results; see {log}")
                return 2
            sides[side] = outcomes(junit)
        if args.torch_only:
            torch_state = sides["torch"][0]
            print(f"real torch: {len(torch_state)} tests ran, {sum(v == 'passed' for v in torch_state.values())} "
                  f"passed; junit in {os.path.join(work, 'junit-torch.xml')}")
            return 0
        (torch_state, _), (shim_state, shim_messages) = sides["torch"], sides["shim"]
        measured = [t for t, s in torch_state.items() if s == "passed"]
        lost = [t for t in measured if shim_state.get(t) != "passed"]
        print(f"\n{args.library} {version}: {len(torch_state)} tests ran; real torch passes {len(measured)}; "
              f"of those the shim passes {len(measured) - len(lost)} and fails {len(lost)}")
        by_cause = collections.Counter(cause(shim_messages.get(t, shim_state.get(t, "missing"))) for t in lost)
        for text, count in by_cause.most_common():
            print(f"{count:6d}  {text}")
        if args.keep:
            print(f"kept in {work}")
        return 1 if lost else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
