"""torch.utils.benchmark against real torch: Measurement statistics and reprs from hypothesis-drawn raw times,
TaskSpec titles, select_unit/trim_sigfig, Compare's tables (threads, envs, missing cells, trimmed figures,
highlighted warnings, colours), and Timer's call counts and thread settings (not its timings)."""
import json
import os

os.environ.setdefault("GLOG_v", "3")

import pytest  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch.utils import benchmark  # noqa: E402

from oracle import drawn_cases, require_torch, run_torch_json  # noqa: E402

# Runs unchanged with either torch's benchmark module or the shim's.
SCENARIO = r'''
def measure(benchmark, case):
    spec = benchmark.TaskSpec(**case["spec"])
    m = benchmark.Measurement(case["number"], case["raw"], spec)
    return {"times": m.times, "mean": m.mean, "median": m.median, "iqr": m.iqr,
            "sig": m.significant_figures, "warn": m.has_warnings, "conf": [m.meets_confidence(t) for t in (0.05, 0.1, 0.3)],
            "title": m.title, "row": m.as_row_name, "summary": spec.summarize(),
            "repr": repr(m).split("\n", 1)[1], "first": repr(m).split(" object at ")[0],
            "unit": benchmark.select_unit(m.median), "trim": [benchmark.trim_sigfig(m.median, n) for n in (1, 2, 3, 4)]}

def tables(benchmark, group):
    ms = [benchmark.Measurement(c["number"], c["raw"], benchmark.TaskSpec(**c["spec"])) for c in group]
    out = []
    for trim, warn, colour in ((0, 0, None), (1, 0, None), (0, 1, None), (1, 1, "col"), (0, 0, "row")):
        c = benchmark.Compare(ms)
        if trim: c.trim_significant_figures()
        if warn: c.highlight_warnings()
        if colour: c.colorize(rowwise=colour == "row")
        try:
            out.append(str(c))
        except Exception as e:  # (torch fails on a column without description)
            out.append(type(e).__name__)
    return out
'''

_text = st.sampled_from(["a", "add", "matmul (4x4)", "x + 1", "f(x)\ng(y)"])


def _case(draw):
    scale = draw(st.sampled_from([1e-9, 1e-7, 1e-6, 1e-4, 1e-3, 1e-1, 1.0, 30.0]))
    raw = draw(st.lists(st.floats(0.5, 3.0).map(lambda v: v * scale), min_size=1, max_size=12))
    spec = {"stmt": draw(_text), "setup": draw(st.sampled_from(["", "pass", "x = 1", "import a\nb = 2"])),
            "label": draw(st.sampled_from([None, "L", "M"])), "sub_label": draw(st.sampled_from([None, "s", "t"])),
            "description": draw(st.sampled_from(["d1", "d2", "d1", "d2", "d1", None])), "env": draw(st.sampled_from([None, "e1"])),
            "num_threads": draw(st.sampled_from([1, 1, 2, 4]))}
    return {"number": draw(st.sampled_from([1, 3, 10, 100, 1000])), "raw": raw, "spec": spec}


CASES = drawn_cases(st.composite(_case)(), 150)
GROUPS = drawn_cases(st.lists(st.composite(_case)(), min_size=1, max_size=6), 40)


@pytest.fixture(scope="module")
def torch_answers():
    require_torch()
    code = SCENARIO + ("\nimport json, torch.utils.benchmark as b\ncases, groups = json.loads(%r)\n"
                       "print(json.dumps([[measure(b, c) for c in cases], [tables(b, g) for g in groups]]))"
                       % json.dumps([CASES, GROUPS]))
    return run_torch_json(code, timeout=600)


def _ours():
    namespace = {}
    exec(SCENARIO, namespace)
    return namespace


@pytest.mark.parametrize("index", range(len(CASES)))
def test_measurement_statistics_and_repr_match_torch(torch_answers, index):
    ours = json.loads(json.dumps(_ours()["measure"](benchmark, CASES[index])))
    theirs = torch_answers[0][index]
    for key in ("mean", "median", "iqr"):
        assert ours[key] == pytest.approx(theirs[key], rel=1e-12, abs=1e-300), key
    assert ours["times"] == pytest.approx(theirs["times"], rel=1e-15)
    for key in ("sig", "warn", "conf", "title", "row", "summary", "repr", "first", "unit", "trim"):
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("index", range(len(GROUPS)))
def test_compare_tables_match_torch(torch_answers, index):
    assert _ours()["tables"](benchmark, GROUPS[index]) == torch_answers[1][index]


def test_timeit_runs_a_warm_up_then_the_counted_runs_with_the_threads_asked():
    calls, threads_seen = [], []
    before = torch.get_num_threads()
    t = benchmark.Timer("calls.append(torch.get_num_threads())", setup="calls.clear()", globals={"calls": calls},
                        label="L", sub_label="s", description="d", num_threads=1)
    m = t.timeit(250)
    threads_seen = set(calls)
    assert len(calls) == 250  # setup runs before each timed loop: the warm-up's 2 calls were cleared
    assert m.number_per_run == 250 and len(m.raw_times) == 1 and m.raw_times[0] >= 1e-9
    assert threads_seen == {1} and torch.get_num_threads() == before
    assert (m.label, m.sub_label, m.description, m.num_threads, m.stmt) == ("L", "s", "d", 1, t._task_spec.stmt)
    counted = []
    benchmark.Timer("counted.append(1)", globals={"counted": counted}).timeit(250)
    assert len(counted) == 2 + 250  # warm-up of max(250 // 100, 2), then the measurement


def test_timer_cleans_its_statements_and_refuses_what_torch_refuses():
    t = benchmark.Timer("\n    x = 1\n    y = x\n  ", setup="\n  import math\n")
    assert t._task_spec.stmt == "x = 1\ny = x" and t._task_spec.setup == "import math"
    with pytest.raises(ValueError, match="only a `str` stmt"):
        benchmark.Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        benchmark.Timer("pass", global_setup="int x;")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer("pass").autorange()


def test_blocked_and_adaptive_autorange_blocks():
    blocked = benchmark.Timer("sum(range(50))").blocked_autorange(min_run_time=0.05)
    assert blocked.number_per_run in [10 ** k for k in range(10)]
    assert sum(blocked.raw_times) >= 0.05 and blocked.times == [t / blocked.number_per_run for t in blocked.raw_times]
    seen = []
    adaptive = benchmark.Timer("sum(range(50))").adaptive_autorange(
        threshold=0.5, min_run_time=0.01, max_run_time=2.0, callback=lambda n, t: seen.append((n, t)))
    assert len(adaptive.raw_times) > 3 and [t for _, t in seen] == adaptive.raw_times
    assert adaptive.meets_confidence(0.5) or sum(adaptive.raw_times) > 2.0


def test_merge_and_compare_refuse_foreign_results():
    spec = benchmark.TaskSpec("x", "")
    merged = benchmark.Measurement.merge([benchmark.Measurement(2, [4.0], spec), benchmark.Measurement(1, [1.0], spec)])
    assert len(merged) == 1 and merged[0].raw_times == [2.0, 1.0] and merged[0].number_per_run == 1
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        benchmark.Compare([1.0])


def test_absent_names_answer_hasattr_false_and_cpp_is_refused():
    assert not hasattr(benchmark, "Fuzzer") and not hasattr(benchmark, "CallgrindStats")
    with pytest.raises(NotImplementedError, match="language=cpp"):
        benchmark.Timer("x;", language=benchmark.Language.CPP)
