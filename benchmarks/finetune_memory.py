"""Peak memory of a short fine-tune: MiniLM-L6 with transformers' Trainer, ours vs real torch.

The same script (`_finetune_child.py`) runs twice, each in a fresh interpreter: once under `import mindnlp`,
once on plain real torch. Default: 10 optimizer steps, batch 16, on examples/data/sentiment (dynamic padding,
at most 128 tokens), default Trainer settings otherwise (AdamW, linear schedule, gradient clipping 1.0).

    python benchmarks/finetune_memory.py
    python benchmarks/finetune_memory.py --steps 5 --impls ours
"""
import argparse
import os
import statistics
import sys
import time

import _runner

IMPLS = ("ours", "torch")


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impls", default="ours,torch", help="comma list from: ours, torch")
    parser.add_argument("--steps", type=int, default=10, help="optimizer steps")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a child counts as failed")
    parser.add_argument("--verbose", action="store_true", help="show the children's stderr")
    args = parser.parse_args(argv)
    args.impls = _runner.split_choices(parser, args.impls, IMPLS)
    return args


def mb(value):
    return "-" if value is None else f"{value:.0f}"


def print_table(results, ratio):
    lines = [["impl", "peak RSS MB", "RSS after imports MB", "after model load MB", "at end MB", "steps",
              "median s/step", "train loss"]]
    for impl, r in results.items():
        if "error" in r:
            lines.append([impl, "failed: " + r["error"][:90], "", "", "", "", "", ""])
            continue
        steady = r["step_seconds"][1:] or r["step_seconds"]
        lines.append([impl, mb(r["peak_rss_mb"]), mb(r["rss_after_imports_mb"]), mb(r["rss_after_model_mb"]),
                      mb(r["rss_end_mb"]), r["steps"], f"{statistics.median(steady):.2f}", f"{r['train_loss']:.4f}"])
    _runner.print_markdown(lines)
    for impl, r in results.items():
        if r.get("rss_per_step_mb"):
            print(f"{impl} RSS after each step, MB: " + " ".join(f"{value:.0f}" for value in r["rss_per_step_mb"]))
    if ratio is not None:
        print(f"peak RSS ours/torch: {ratio:.2f}x")


def main(argv=None):
    args = parse_arguments(argv)
    print(_runner.machine_line(), flush=True)
    load_start = _runner.load_average()
    results = {}
    for impl in args.impls:
        argv_child = ["_finetune_child.py", "--impl", impl, "--steps", str(args.steps),
                      "--batch-size", str(args.batch_size)]
        results[impl] = _runner.run_child(argv_child, args.timeout, args.verbose)
        result = results[impl]
        print(f"  {impl}: " + (result["error"] if "error" in result else
                               f"peak RSS {result['peak_rss_mb']:.0f} MB, wall {result['wall_s']:.0f} s"), flush=True)
    for impl, result in results.items():
        expected_shim = impl == "ours"
        module = result.get("torch_module")
        if module is not None and module.startswith("mindnlp_shim") != expected_shim:
            result["error"] = f"`torch` resolved to {module} in the {impl} run"
    ok = {impl: r for impl, r in results.items() if "error" not in r}
    ratio = ok["ours"]["peak_rss_mb"] / ok["torch"]["peak_rss_mb"] if {"ours", "torch"} <= set(ok) else None
    print()
    print_table(results, ratio)
    load_end = _runner.load_average()
    print(f"{args.steps} steps, batch {args.batch_size}; peak RSS is the child's VmHWM (interpreter, frameworks, "
          f"model, optimizer state, data); load average {load_end:.2f}")
    if args.json:
        _runner.write_json(args.json, {
            "benchmark": "finetune_memory", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average_start": load_start, "load_average_end": load_end, "cpus": os.cpu_count(),
            "settings": {"steps": args.steps, "batch_size": args.batch_size, "model": "MiniLM-L6",
                         "data": "examples/data/sentiment/train.csv"},
            "results": results, "peak_rss_ours_over_torch": ratio,
        })
    return 1 if len(ok) != len(results) else 0


if __name__ == "__main__":
    sys.exit(main())
