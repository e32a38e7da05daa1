"""MiniLM Trainer step time and fine-tune peak memory of this checkout against another one, side by side.

Each round runs the other checkout's `trainer_step.py` / `finetune_memory.py` (ours only) and then this one's, in
alternation (ABAB), so both see the same machine; real torch runs once per round as the yardstick. Prints the
medians, their ratio (this / other) and the load average before and after.

    git worktree add /tmp/base <commit>
    .venv/bin/python benchmarks/compare_checkouts.py /tmp/base --rounds 2
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(checkout, script, args, timeout):
    out = os.path.join("/tmp", f"compare_{os.getpid()}.json")
    command = [sys.executable, os.path.join(checkout, "benchmarks", script), *args, "--json", out]
    subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    try:
        with open(out) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def _find(result, key):
    """The first number under `key` anywhere in a benchmark's JSON (their layouts differ)."""
    if isinstance(result, dict):
        for name, value in result.items():
            if name == key and isinstance(value, (int, float)):
                return value
            found = _find(value, key)
            if found is not None:
                return found
    elif isinstance(result, list):
        for value in result:
            found = _find(value, key)
            if found is not None:
                return found
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("other", help="path of the other checkout (e.g. a git worktree)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--step-key", default="median_s", help="the step benchmark's JSON key for seconds per step")
    parser.add_argument("--memory-key", default="peak_rss_mb", help="the memory benchmark's JSON key")
    parser.add_argument("--timeout", type=int, default=1500)
    args = parser.parse_args()
    this = os.path.dirname(HERE)
    figures = {"step": {"other": [], "this": [], "torch": []}, "memory": {"other": [], "this": [], "torch": []}}
    print("load before:", os.getloadavg())
    for _ in range(args.rounds):
        for label, checkout in (("other", args.other), ("this", this)):
            step = _run(checkout, "trainer_step.py", ["--models", "minilm", "--impls", "ours"], args.timeout)
            memory = _run(checkout, "finetune_memory.py", ["--impls", "ours"], args.timeout)
            figures["step"][label].append(_find(step, args.step_key))
            figures["memory"][label].append(_find(memory, args.memory_key))
            print(label, "step", figures["step"][label][-1], "memory", figures["memory"][label][-1], flush=True)
        step = _run(this, "trainer_step.py", ["--models", "minilm", "--impls", "torch"], args.timeout)
        memory = _run(this, "finetune_memory.py", ["--impls", "torch"], args.timeout)
        figures["step"]["torch"].append(_find(step, args.step_key))
        figures["memory"]["torch"].append(_find(memory, args.memory_key))
        print("torch step", figures["step"]["torch"][-1], "memory", figures["memory"]["torch"][-1], flush=True)
    print("load after:", os.getloadavg())
    for kind, columns in figures.items():
        medians = {k: statistics.median([v for v in vs if v is not None]) if any(v is not None for v in vs) else None
                   for k, vs in columns.items()}
        ratio = medians["this"] / medians["other"] if medians["this"] and medians["other"] else None
        print(f"{kind}: other {medians['other']}  this {medians['this']}  torch {medians['torch']}  "
              f"this/other {ratio if ratio is None else round(ratio, 3)}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
