"""Resident memory of long runs: does it stay flat after warm-up? Ours vs real torch, side by side.

Each workload runs in a fresh interpreter per implementation (`_long_run_child.py`):

- `train`: a tiny BERT trained with the unmodified Trainer for 1500 steps (batch 16 x 24 tokens), evaluating
  and writing a checkpoint every 250 steps (`save_total_limit=1`);
- `generate`: 300 greedy `generate` calls of a tiny GPT-2 (16 new tokens after an 8-token prompt).

The table gives RSS after warm-up (the first sample at or past `--warmup` steps or calls: past the first
evaluation and checkpoint for `train`), at the end, and the growth between them in MB, in percent and per step or
call. The target: growth at most 5% or 40 MB, whichever is larger. The command exits with 1 if a run failed or
ours misses the target.

    python benchmarks/long_run_memory.py                        # both workloads (about 5 minutes on 2 cores)
    python benchmarks/long_run_memory.py --workloads generate --impls ours
    python benchmarks/long_run_memory.py --steps 600 --calls 100 --json /tmp/long_runs.json
"""
import argparse
import os
import sys
import time

import _runner

IMPLS = ("ours", "torch")
WORKLOADS = ("train", "generate")
ALLOWED_GROWTH_MB = 40
ALLOWED_GROWTH_FRACTION = 0.05


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impls", default="ours,torch", help="comma list from: ours, torch")
    parser.add_argument("--workloads", default="train,generate", help="comma list from: train, generate")
    parser.add_argument("--steps", type=int, default=1500, help="training steps")
    parser.add_argument("--calls", type=int, default=300, help="generate calls")
    parser.add_argument("--warmup", type=float, default=0.2,
                        help="fraction of the run counted as warm-up (train: at least past the first checkpoint)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds before a child counts as failed")
    parser.add_argument("--verbose", action="store_true", help="show the children's stderr")
    args = parser.parse_args(argv)
    args.impls = _runner.split_choices(parser, args.impls, IMPLS)
    args.workloads = _runner.split_choices(parser, args.workloads, WORKLOADS)
    return args


def child_arguments(args, workload, impl):
    command = ["_long_run_child.py", "--impl", impl, "--workload", workload]
    if workload == "train":
        return command + ["--steps", str(args.steps), "--window", str(max(1, args.steps // 30))]
    return command + ["--calls", str(args.calls), "--window", str(max(1, args.calls // 30))]


def growth(result, workload, args):
    """(RSS after warm-up, RSS at the end, its step or call, growth MB, growth per step or call in KB)."""
    samples = result["samples"]
    total = args.steps if workload == "train" else args.calls
    warmup = total * args.warmup
    if workload == "train":
        warmup = max(warmup, 251)  # past the first evaluation and checkpoint
    start = next((s for s in samples if s[0] >= warmup), samples[0])
    end = samples[-1]
    grown = end[1] - start[1]
    per_unit = grown * 1024 / max(1, end[0] - start[0])
    return start, end, grown, per_unit


def within_target(start_mb, grown_mb):
    return grown_mb <= max(ALLOWED_GROWTH_MB, ALLOWED_GROWTH_FRACTION * start_mb)


def main(argv=None):
    args = parse_arguments(argv)
    print(_runner.machine_line(), flush=True)
    load_start = _runner.load_average()
    results, failed, missed = {}, False, False
    lines = [["workload", "impl", "RSS after warm-up MB", "at end MB", "growth MB", "growth %", "per step/call KB",
              "within target", "check"]]
    for workload in args.workloads:
        for impl in args.impls:
            result = _runner.run_child(child_arguments(args, workload, impl), args.timeout, args.verbose)
            module = result.get("torch_module")
            if module is not None and module.startswith("mindnlp_shim") != (impl == "ours"):
                result["error"] = f"`torch` resolved to {module} in the {impl} run"
            results[f"{workload}/{impl}"] = result
            if "error" in result:
                failed = True
                lines.append([workload, impl, "failed: " + result["error"][:80], "", "", "", "", "", ""])
                print(f"  {workload}/{impl}: {result['error']}", flush=True)
                continue
            start, end, grown, per_unit = growth(result, workload, args)
            ok = within_target(start[1], grown)
            missed = missed or (impl == "ours" and not ok)
            check = (f"loss {result['train_loss']:.6f}" if workload == "train"
                     else "tokens " + " ".join(str(t) for t in result["last_tokens"][:6]) + " ...")
            result["growth"] = {"from": start, "to": end, "mb": grown, "kb_per_unit": per_unit, "within": ok}
            lines.append([workload, impl, f"{start[1]:.0f} (at {start[0]})", f"{end[1]:.0f} (at {end[0]})",
                          f"{grown:+.1f}", f"{100 * grown / start[1]:+.1f}", f"{per_unit:+.1f}",
                          "yes" if ok else "NO", check])
            print(f"  {workload}/{impl}: {start[1]:.0f} -> {end[1]:.0f} MB, {result['seconds']:.0f} s", flush=True)
    print()
    _runner.print_markdown(lines)
    load_end = _runner.load_average()
    print(f"target: growth after warm-up at most {ALLOWED_GROWTH_MB} MB or {100 * ALLOWED_GROWTH_FRACTION:.0f}%; "
          f"load average {load_start:.2f} at the start, {load_end:.2f} at the end (RSS does not depend on load)")
    for key, result in results.items():
        if "samples" in result:
            print(f"{key} RSS MB by step/call: " + " ".join(f"{s[0]}:{s[1]:.0f}" for s in result["samples"]))
    if args.json:
        _runner.write_json(args.json, {
            "benchmark": "long_run_memory", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average_start": load_start, "load_average_end": load_end, "cpus": os.cpu_count(),
            "settings": {"steps": args.steps, "calls": args.calls, "warmup": args.warmup},
            "results": results,
        })
    return 1 if failed or missed else 0


if __name__ == "__main__":
    sys.exit(main())
