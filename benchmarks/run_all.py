"""All benchmarks, one command: dispatch overhead, import time, fine-tune peak memory, optimizer step time, and
small tensors (the MiniLM step on short sentences, greedy decoding with a KV cache, MiniLM evaluation).

Each benchmark runs as its own command (its table is printed as it finishes); at the end one table of ratios
is printed and every figure is written to one JSON file.

    python benchmarks/run_all.py                     # full settings (roughly 15-25 minutes on 2 busy cores)
    python benchmarks/run_all.py --quick             # fewer repetitions, tiny models only for step time
    python benchmarks/run_all.py --only dispatch,memory --json /tmp/results.json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import _runner

DEFAULT_JSON = os.path.join(_runner.HERE, "results", "run_all.json")

# name -> (script, options at full settings, options with --quick)
BENCHMARKS = {
    "dispatch": ("dispatch_overhead.py", [], ["--rounds", "3", "--repeats", "7", "--number", "10"]),
    "import": ("import_time.py", [], ["--runs", "1", "--warmup", "0"]),
    "memory": ("finetune_memory.py", [], ["--steps", "3"]),
    # a MiniLM step takes 5-30 s on 2 shared cores, so a child gets more than trainer_step.py's default 180 s
    "step": ("trainer_step.py", ["--timeout", "1200"], ["--models", "tiny,tiny-llama", "--steps", "3", "--warmup",
                                                         "1", "--timeout", "600"]),
    "small": ("small_inputs.py", [], ["--steps", "6", "--repeats", "2"]),
}


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and steps; tiny models only for step time")
    parser.add_argument("--only", default=",".join(BENCHMARKS), help=f"comma list from: {', '.join(BENCHMARKS)}")
    parser.add_argument("--json", default=DEFAULT_JSON, help=f"where to write all figures (default: {DEFAULT_JSON})")
    args = parser.parse_args(argv)
    args.only = _runner.split_choices(parser, args.only, BENCHMARKS)
    return args


def run_benchmark(name, quick, workdir):
    """Run one benchmark command with its output shown; returns its JSON figures or {"error": ...}."""
    script, full, fast = BENCHMARKS[name]
    path = os.path.join(workdir, name + ".json")
    command = [sys.executable, os.path.join(_runner.HERE, script)] + (fast if quick else full) + ["--json", path]
    print(f"\n## {name}: python benchmarks/{' '.join([script] + (fast if quick else full))}", flush=True)
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=_runner.HERE, env=_runner.child_environment())
    if not os.path.exists(path):
        return {"error": f"{script} exited with code {completed.returncode} and wrote no figures"}
    with open(path) as f:
        figures = json.load(f)
    figures["exit_code"] = completed.returncode
    figures["wall_s"] = time.perf_counter() - started
    return figures


def ratio(numerator, denominator):
    return numerator / denominator if numerator is not None and denominator else None


def dispatch_rows(figures):
    records = [r for r in figures.get("records", []) if r.get("ours_us") is not None and r.get("raw_us") is not None]
    if not records:
        return []
    summary = figures.get("summary", {})
    count = f"{len(records)} op x size"
    median = lambda key: statistics.median(r[key] for r in records)  # noqa: E731
    rows = [["dispatch", f"µs per op, median of {count}", f"{median('ours_us'):.1f}", "raw MS, same process",
             f"{median('raw_us'):.1f}", summary.get("median_ours_over_raw"), "median of per-op ratios"],
            ["dispatch", "µs added per op (ours - raw)", f"median {summary['median_overhead_us']:+.1f}, max "
             f"{summary['max_overhead_us']:+.1f}", "target", f"<= {summary['target_overhead_us']:.0f}", None,
             f"{len(summary['over_target'])} of {len(records)} over target"]]
    if "median_overhead_cpu_us" in summary:
        rows.append(["dispatch", "µs added per op, process CPU time", f"median {summary['median_overhead_cpu_us']:+.1f}",
                     "target", f"<= {summary['target_overhead_us']:.0f}", None,
                     f"{len(summary['over_target_cpu'])} of {len(records)} over target"])
    with_torch = [r for r in records if r.get("torch_us")]
    if with_torch:
        rows.append(["dispatch", f"µs per op, median of {count}", f"{median('ours_us'):.1f}", "real torch",
                     f"{statistics.median(r['torch_us'] for r in with_torch):.1f}",
                     summary.get("median_ours_over_torch"), "median of per-op ratios"])
    return rows


def import_rows(figures):
    results = figures.get("results", {})
    ours = (results.get("ours") or {}).get("median_s")
    rows = []
    for reference, label in (("torch", "real torch + Trainer"), ("mindspore", "import mindspore alone")):
        theirs = (results.get(reference) or {}).get("median_s")
        if ours is not None or theirs is not None:
            rows.append(["import", "s, import mindnlp + Trainer (median)", f"{ours:.2f}" if ours else "failed",
                         label, f"{theirs:.2f}" if theirs else "failed", ratio(ours, theirs), ""])
    return rows


def memory_rows(figures):
    results = figures.get("results", {})
    ours = (results.get("ours") or {}).get("peak_rss_mb")
    theirs = (results.get("torch") or {}).get("peak_rss_mb")
    steps = figures.get("settings", {}).get("steps")
    return [["memory", f"peak RSS MB, MiniLM Trainer {steps} steps", f"{ours:.0f}" if ours else "failed",
             "real torch", f"{theirs:.0f}" if theirs else "failed", ratio(ours, theirs), ""]]


def step_rows(figures):
    rows = []
    for model, entry in figures.get("models", {}).items():
        results = entry["results"]
        ours = (results.get("ours") or {}).get("median_s")
        for reference, label in (("raw", "raw MindSpore floor"), ("torch", "real torch")):
            if reference not in results:
                continue
            theirs = results[reference].get("median_s")
            rows.append([f"step {model}", "s per optimizer step (median)", f"{ours:.3f}" if ours else "failed",
                         label, f"{theirs:.3f}" if theirs else "failed", ratio(ours, theirs), ""])
    return rows


def small_rows(figures):
    """Short-sentence step time against the floor and torch; decode and eval throughput against torch."""
    parts, rows = figures.get("figures", {}), []
    short = parts.get("short", {}).get("results", {})
    ours = (short.get("ours") or {}).get("median_s")
    for reference, label in (("raw", "raw MindSpore floor"), ("torch", "real torch")):
        if reference in short:
            theirs = short[reference].get("median_s")
            rows.append(["short step minilm", "s per optimizer step, 16 sentences padded to 10-14 tokens (median)",
                         f"{ours:.3f}" if ours else "failed", label, f"{theirs:.3f}" if theirs else "failed",
                         ratio(ours, theirs), "lower is better"])
    throughputs = [(f"decode {key.replace('/batch', ' batch ')}", "new tokens/s, greedy with KV cache", entry,
                    "tokens_per_s", entry.get("tokens_equal"), "tokens")
                   for key, entry in parts.get("decode", {}).items() if isinstance(entry, dict) and "results" in entry]
    if "eval" in parts:
        throughputs.append(("eval minilm", "samples/s, no_grad, batch 16", parts["eval"], "samples_per_s",
                            parts["eval"].get("logits_close"), "logits"))
    for name, figure, entry, key, same, what in throughputs:
        ours = (entry["results"].get("ours") or {}).get(key)
        theirs = (entry["results"].get("torch") or {}).get(key)
        note = {True: f"{what} equal to torch", False: f"{what} DIFFER from torch", None: ""}[same]
        rows.append([name, figure, f"{ours:.1f}" if ours else "failed", "real torch",
                     f"{theirs:.1f}" if theirs else "failed", ratio(ours, theirs), "higher is better; " + note])
    return rows


ROW_MAKERS = {"dispatch": dispatch_rows, "import": import_rows, "memory": memory_rows, "step": step_rows,
              "small": small_rows}


def summary_rows(all_figures):
    rows = []
    for name, figures in all_figures.items():
        if "error" in figures:
            rows.append([name, "failed: " + figures["error"], "", "", "", None, ""])
            continue
        rows.extend(ROW_MAKERS[name](figures))
    return rows


def print_summary(rows):
    lines = [["benchmark", "figure", "ours", "compared with", "theirs", "ours/theirs", "note"]]
    for row in rows:
        lines.append(row[:5] + ["-" if row[5] is None else f"{row[5]:.2f}x", row[6]])
    _runner.print_markdown(lines)


def main(argv=None):
    args = parse_arguments(argv)
    started, load_start = time.perf_counter(), _runner.load_average()
    date = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"{date}; {_runner.machine_line()}", flush=True)
    all_figures = {}
    with tempfile.TemporaryDirectory(prefix="run_all_") as workdir:
        for name in args.only:
            all_figures[name] = run_benchmark(name, args.quick, workdir)
    load_end = _runner.load_average()
    rows = summary_rows(all_figures)
    print(f"\n## summary ({'quick' if args.quick else 'full'} settings)")
    print_summary(rows)
    print(f"load average {load_start:.2f} at the start, {load_end:.2f} at the end, on {os.cpu_count()} cpus; "
          f"total {time.perf_counter() - started:.0f} s")
    summary = [dict(zip(("benchmark", "figure", "ours", "compared_with", "theirs", "ours_over_theirs", "note"), row))
               for row in rows]
    _runner.write_json(args.json, {
        "date": date, "quick": args.quick, "cpus": os.cpu_count(), "load_average_start": load_start,
        "load_average_end": load_end, "summary": summary, "benchmarks": all_figures,
    })
    print(f"figures written to {args.json}")
    failed = [name for name, figures in all_figures.items() if "error" in figures or figures.get("exit_code")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
