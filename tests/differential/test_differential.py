"""Generated differential tests: each op of the table (table.py) on hypothesis-drawn inputs, against real torch.

Fast slice (default run, marked `differential`): a few derandomized examples per op. Long run (also marked
`slow`): `-m slow`, or HYPOTHESIS_PROFILE=long for the fast slice with many examples."""
import os
import pickle
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, Phase, assume, find, given, settings

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

from . import known as known_mod, table as table_mod
from .harness import Disagreement, compare_case
from .runner import run_op as run_op_with

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_COMMON = dict(derandomize=True, deadline=None, database=None, print_blob=False,
               phases=(Phase.explicit, Phase.generate),
               suppress_health_check=list(HealthCheck))
settings.register_profile("differential-fast", max_examples=int(os.environ.get("DIFFERENTIAL_EXAMPLES", 6)),
                          **_COMMON)
settings.register_profile("long", max_examples=int(os.environ.get("DIFFERENTIAL_LONG_EXAMPLES", 40)), **_COMMON)
FAST = settings.get_profile("long" if os.environ.get("HYPOTHESIS_PROFILE") == "long" else "differential-fast")
LONG = settings.get_profile("long")
# (one disagreement is the proof wanted: two distinct ones found in a run would come as an ExceptionGroup)
KNOWN_CHECK = settings(FAST, max_examples=40, report_multiple_bugs=False)

TABLE = table_mod.table(mt)
pytestmark = pytest.mark.differential


def run_op(op, profile):
    run_op_with(op, profile, rt, mt, lambda case, exc: known_mod.known_for(op.id, case, exc.kind) is not None)


@pytest.mark.parametrize("op", TABLE, ids=str)
def test_op(op):
    run_op(op, FAST)


@pytest.mark.slow
@pytest.mark.parametrize("op", TABLE, ids=str)
def test_op_long(op):
    if op.id in known_mod.LONG_RUN_CRASHES:
        pytest.skip(known_mod.LONG_RUN_CRASHES[op.id])
    run_op(op, LONG)


def _known_params():
    out = []
    for i, entry in enumerate(known_mod.KNOWN):
        for op in TABLE:
            if entry.covers_op(op.id):
                out.append(pytest.param(entry, op, id=f"{i}-{op.id}", marks=pytest.mark.xfail(
                    strict=True, raises=Disagreement,
                    reason=f"known: {entry.what}. An XPASS means the shim now agrees: remove the entry")))
    return out


@pytest.mark.parametrize("entry,op", _known_params())
def test_known_disagreement_still_differs(entry, op):
    """Strict: the entry's disagreement must still show, on the fast slice's or the long run's cases of the op
    (where entries were found) or on cases drawn to meet its condition."""
    for profile in (FAST, LONG):
        run_op_with(op, profile, rt, mt, lambda case, exc: not entry.matches(op.id, case, exc.kind))

    @settings(KNOWN_CHECK)
    @given(case=op.gen)
    def check(case):
        assume(entry.when(case))
        try:
            compare_case(op, case, rt, mt)
        except Disagreement as exc:
            if exc.kind in entry.kinds:
                raise

    check()


def test_every_bound_op_is_generated_or_listed():
    missing = table_mod.unlisted(mt)
    assert not missing, f"bound ops with no generator in tests/differential/table.py and not in NOT_GENERATED: " \
                        f"{missing}"


def test_not_generated_list_is_current():
    bound = set(table_mod.bound_names(mt))
    have = {op.id for op in TABLE}
    stale = [n for n in table_mod.NOT_GENERATED if n not in bound or n in have]
    assert not stale, f"NOT_GENERATED entries that are no longer bound or now have a generator: {stale}"


def test_known_entries_name_table_ops():
    ids = [op.id for op in TABLE]
    for entry in known_mod.KNOWN:
        assert any(entry.covers_op(i) for i in ids), f"known entry covers no op of the table: {entry}"


def _hang_params():
    out = []
    for i, entry in enumerate(known_mod.HANGS):
        covered = [op for op in TABLE if entry.covers_op(op.id)]
        for j, op in enumerate(covered):
            out.append(pytest.param(entry, op, id=f"{i}-{op.id}", marks=[pytest.mark.slow] if j else []))
    return out


HANG_SECONDS = 20


@pytest.mark.parametrize("entry,op", _hang_params())
def test_known_hang_still_hangs(entry, op, tmp_path):
    """Strict: a case that meets a HANGS entry's condition must still not return within HANG_SECONDS (run in a
    subprocess, which is then killed). When it returns, remove the entry."""
    case = find(op.gen, entry.when, settings=settings(FAST, max_examples=200))
    path = tmp_path / "case.pickle"
    path.write_bytes(pickle.dumps((op.id, case)))
    tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.Popen([sys.executable, "-m", "differential.hang_check", str(path)], cwd=tests_dir,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "GLOG_v": "3"})
    try:
        assert proc.stdout.readline().strip() == "READY", "the hang check did not start"
        deadline = time.time() + HANG_SECONDS
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, f"{op.id} now returns on {case!r}: remove the HANGS entry {entry!r}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
