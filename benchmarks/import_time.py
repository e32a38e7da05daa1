"""Seconds to import: the shim plus transformers' Trainer vs real torch plus the Trainer vs MindSpore alone.

Every import runs in a fresh interpreter; the child times its import statements with a clock started just
before them (interpreter start-up and exit are not counted, but are shown as the process's wall time). One
untimed run per configuration comes first, so every timed run reads the files from a warm page cache.

    python benchmarks/import_time.py                       # median of 3 per configuration
    python benchmarks/import_time.py --runs 5 --configs ours,torch,mindspore,mindnlp,torch_alone
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import _runner

# name -> (the statements timed, whether the checkout must be importable)
CONFIGS = {
    "ours": ("import mindnlp; from transformers import Trainer", True),
    "torch": ("import torch; from transformers import Trainer", False),
    "mindspore": ("import mindspore", False),
    "mindnlp": ("import mindnlp", True),
    "torch_alone": ("import torch", False),
}
DEFAULT_CONFIGS = "ours,torch,mindspore"

CHILD_CODE = """\
import json, sys, time
start = time.perf_counter()
{statements}
seconds = time.perf_counter() - start
torch = sys.modules.get("torch")  # which torch the statements loaded, if any
print(json.dumps({{"import_s": seconds, "torch_module": getattr(torch, "__name__", None)}}))
"""


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", default=DEFAULT_CONFIGS, help=f"comma list from: {', '.join(CONFIGS)}")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per configuration (median reported)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per configuration first")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args(argv)
    args.configs = _runner.split_choices(parser, args.configs, CONFIGS)
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be >= 1 and --warmup >= 0")
    return args


def run_once(config, workdir, timeout):
    """One fresh interpreter; returns {"import_s", "wall_s"} or {"error"}."""
    import subprocess

    statements, needs_checkout = CONFIGS[config]
    env = _runner.child_environment()
    env.pop("PYTHONPATH", None)
    if needs_checkout:
        env["PYTHONPATH"] = _runner.REPO_ROOT
    started = time.perf_counter()
    try:
        completed = subprocess.run([sys.executable, "-c", CHILD_CODE.format(statements=statements)], cwd=workdir,
                                   env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - started
    result = _runner.last_json_line(completed.stdout)
    if result is None:
        tail = [line for line in completed.stderr.strip().splitlines() if line.strip()]
        return {"error": f"exit code {completed.returncode}: {tail[-1] if tail else 'no output'}"[:300]}
    result["wall_s"] = wall
    return result


def measure(config, args, workdir):
    for _ in range(args.warmup):
        run_once(config, workdir, args.timeout)
    runs = [run_once(config, workdir, args.timeout) for _ in range(args.runs)]
    failed = [run for run in runs if "error" in run]
    if failed:
        return {"statements": CONFIGS[config][0], "error": failed[0]["error"]}
    imports = [run["import_s"] for run in runs]
    return {
        "statements": CONFIGS[config][0],
        "torch_module": runs[0].get("torch_module"),
        "import_s": imports,
        "median_s": statistics.median(imports),
        "min_s": min(imports),
        "max_s": max(imports),
        "median_wall_s": statistics.median(run["wall_s"] for run in runs),
    }


def ratios(results):
    def median(name):
        result = results.get(name) or {}
        return result.get("median_s")

    out = {}
    for numerator, denominator in (("ours", "torch"), ("ours", "mindspore"), ("mindnlp", "mindspore")):
        if median(numerator) and median(denominator):
            out[f"{numerator}_over_{denominator}"] = median(numerator) / median(denominator)
    return out


def print_table(results, computed):
    lines = [["config", "statements", "import s: median (min-max)", "process wall s"]]
    for name, result in results.items():
        if "error" in result:
            lines.append([name, result["statements"], "failed: " + result["error"][:80], "-"])
        else:
            lines.append([name, result["statements"],
                          f"{result['median_s']:.2f} ({result['min_s']:.2f}-{result['max_s']:.2f})",
                          f"{result['median_wall_s']:.2f}"])
    _runner.print_markdown(lines)
    if computed:
        print("ratios of medians: " + ", ".join(f"{name} {value:.2f}x" for name, value in computed.items()))


def main(argv=None):
    args = parse_arguments(argv)
    print(_runner.machine_line(), flush=True)
    load_start = _runner.load_average()
    results = {}
    with tempfile.TemporaryDirectory(prefix="import_time_") as workdir:  # nothing importable by accident
        for config in args.configs:
            results[config] = measure(config, args, workdir)
            shown = results[config].get("median_s")
            print(f"  {config}: " + (f"{shown:.2f} s" if shown else results[config]["error"]), flush=True)
    for name in ("ours", "mindnlp"):
        module = (results.get(name) or {}).get("torch_module")
        if module is not None and not module.startswith("mindnlp_shim"):
            results[name]["error"] = f"`torch` resolved to {module}, not the shim"
    computed = ratios(results)
    print()
    print_table(results, computed)
    load_end = _runner.load_average()
    print(f"{args.runs} timed runs after {args.warmup} untimed per configuration; load average {load_end:.2f}")
    if args.json:
        _runner.write_json(args.json, {
            "benchmark": "import_time", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average_start": load_start, "load_average_end": load_end, "cpus": os.cpu_count(),
            "settings": {"runs": args.runs, "warmup": args.warmup}, "results": results, "ratios": computed,
        })
    return 1 if any("error" in result for result in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
