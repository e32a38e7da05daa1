"""Microseconds per op on small tensors: the shim's torch API vs the MindSpore call that serves it.

`ours` and `raw MS` are timed in the same process (one that did `import mindnlp`, so MindSpore runs with the
shim's thread settings), interleaved, batch after batch. Two context columns come from their own processes:
the MindSpore calls in a process without the shim (same settings applied by hand) and real torch.

    python benchmarks/dispatch_overhead.py                         # all ops, 4x4 and 64x64
    python benchmarks/dispatch_overhead.py --ops add,mul --sizes 4 --rounds 1 --repeats 3 --json out.json

Figure per op and implementation: the per-call time of a batch of `--number` calls; the median over `--repeats`
batches; the minimum of those medians over `--rounds` rounds. See benchmarks/README.md.
"""
import argparse
import gc
import os
import statistics
import sys
import time

import _dispatch_ops
import _runner

TARGET_OVERHEAD_US = 10.0
CHILD_KINDS = ("shim", "mindspore", "torch")


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", default=",".join(_dispatch_ops.OPS), help="comma list of ops (default: all)")
    parser.add_argument("--sizes", default="4,64", help="comma list of n for n x n float32 operands")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the figure is the minimum over them")
    parser.add_argument("--repeats", type=int, default=15, help="batches per round; a round reports their median")
    parser.add_argument("--number", type=int, default=20, help="calls per batch")
    parser.add_argument("--skip-context", action="store_true",
                        help="only ours and raw MS (no process without the shim, no real torch)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a child counts as failed")
    parser.add_argument("--verbose", action="store_true", help="show the children's stderr")
    parser.add_argument("--child", choices=CHILD_KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.ops = _runner.split_choices(parser, args.ops, _dispatch_ops.OPS)
    try:
        args.sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    except ValueError:
        parser.error("--sizes takes a comma list of integers")
    if not args.sizes or min(args.sizes) < 1 or min(args.rounds, args.repeats, args.number) < 1:
        parser.error("sizes, rounds, repeats and number must be positive")
    return args


# ---------------------------------------------------------------- timing (runs in the children)
def seconds_per_call(fn, number):
    """(wall, cpu) seconds per call over one batch. CPU time is the whole process's (all its threads), so it
    leaves out the time other programs on a busy machine held the cores."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(number):
        fn()
    return (time.perf_counter() - wall) / number, (time.process_time() - cpu) / number


def measure(candidates, rounds, repeats, number):
    """impl -> {"wall": µs per call, "cpu": µs per call}. The implementations alternate batch by batch (ABAB,
    then BABA), so a change in the machine's load hits all of them alike. Each clock's figure is the minimum
    over rounds of the median over that round's batches."""
    impls = list(candidates)
    for fn in candidates.values():  # warm up: first calls compile and cache kernels
        seconds_per_call(fn, max(number, 5))
    best = {impl: {"wall": float("inf"), "cpu": float("inf")} for impl in impls}
    for _ in range(rounds):
        samples = {impl: [] for impl in impls}
        for repeat in range(repeats):
            for impl in impls if repeat % 2 == 0 else reversed(impls):
                samples[impl].append(seconds_per_call(candidates[impl], number))
        for impl in impls:
            for index, clock in enumerate(("wall", "cpu")):
                median = statistics.median(sample[index] for sample in samples[impl])
                best[impl][clock] = min(best[impl][clock], median)
    return {impl: {clock: seconds * 1e6 for clock, seconds in figures.items()} for impl, figures in best.items()}


def measure_all(tables_per_size, args):
    """{"<op>@<n>": {impl: {"wall": µs, "cpu": µs}}} for every op and size; gc is off while timing, as in timeit."""
    results = {}
    gc.disable()
    try:
        for size, tables in tables_per_size.items():
            for name in args.ops:
                gc.collect()
                candidates = {impl: table[name] for impl, table in tables.items()}
                results[f"{name}@{size}"] = measure(candidates, args.rounds, args.repeats, args.number)
    finally:
        gc.enable()
    return results


def child_shim(args):
    sys.path.insert(1, _runner.REPO_ROOT)  # measure the checkout this file belongs to
    import mindnlp  # noqa: F401  (installs the torch redirection and the shim's MindSpore settings)
    import mindspore
    import torch
    from mindnlp_shim.torch import _tensor

    tables = {}
    for size in args.sizes:
        arrays = _dispatch_ops.input_arrays(size)
        ours = _dispatch_ops.torch_ops(torch, arrays, args.ops)
        raw = _dispatch_ops.mindspore_ops(mindspore, arrays, args.ops, _tensor._ms_getitem)
        _dispatch_ops.check_same_values(ours, raw, args.ops, lambda t: t.asnumpy())
        tables[size] = {"ours": ours, "raw": raw}
    return {"threads": shim_threads(), "times": measure_all(tables, args)}


def shim_threads():
    """The kernel thread count the shim chooses (mindnlp_shim/torch/_runtime.py)."""
    return int(os.environ.get("MINDNLP_SHIM_THREADS", "0")) or max(1, len(os.sched_getaffinity(0)))


def apply_shim_settings(mindspore):
    """What mindnlp_shim/torch/_runtime.py does on the CPU before the first op, done here without the shim."""
    from mindspore._c_expression import disable_multi_thread
    from mindspore.common.api import _pynative_executor

    disable_multi_thread()
    mindspore.runtime.launch_blocking()
    threads = shim_threads()
    mindspore.device_context.cpu.op_tuning.threads_num(threads)
    _pynative_executor.set_grad_flag(True)
    from _raw_mindspore_train import pin_threads_as_the_shim_does

    pin_threads_as_the_shim_does()
    return threads


def child_mindspore(args):
    import mindspore

    threads = apply_shim_settings(mindspore)
    tables = {}
    for size in args.sizes:
        arrays = _dispatch_ops.input_arrays(size)
        raw = _dispatch_ops.mindspore_ops(mindspore, arrays, args.ops, mindspore.Tensor.__getitem__)
        tables[size] = {"raw_alone": raw}
    return {"threads": threads, "times": measure_all(tables, args)}


def child_torch(args):
    import torch

    threads = max(1, len(os.sched_getaffinity(0)))
    torch.set_num_threads(threads)
    tables = {}
    for size in args.sizes:
        tables[size] = {"torch": _dispatch_ops.torch_ops(torch, _dispatch_ops.input_arrays(size), args.ops)}
    return {"threads": threads, "times": measure_all(tables, args)}


def run_as_child(args):
    body = {"shim": child_shim, "mindspore": child_mindspore, "torch": child_torch}[args.child]
    try:
        result = body(args)
    except Exception as exc:  # the parent reports it
        first_line = (str(exc).strip().splitlines() or [""])[0]
        _runner.emit_json_line({"error": f"{type(exc).__name__}: {first_line}"[:300]})
        return 1
    _runner.emit_json_line(result)
    return 0


# ---------------------------------------------------------------- the parent
def child_argv(kind, args):
    return ["dispatch_overhead.py", "--child", kind, "--ops", ",".join(args.ops),
            "--sizes", ",".join(map(str, args.sizes)), "--rounds", str(args.rounds),
            "--repeats", str(args.repeats), "--number", str(args.number)]


def collect(args):
    """Run the children; returns (records, errors, threads)."""
    kinds = ["shim"] if args.skip_context else list(CHILD_KINDS)
    outputs, errors, threads = {}, {}, {}
    for kind in kinds:
        result = _runner.run_child(child_argv(kind, args), args.timeout, args.verbose)
        if "error" in result:
            errors[kind] = result["error"]
            print(f"  {kind} child failed: {result['error']}", flush=True)
            continue
        outputs[kind] = result["times"]
        threads[kind] = result.get("threads")
        print(f"  {kind} child: {result['wall_s']:.0f} s", flush=True)
    records = []
    for size in args.sizes:
        for name in args.ops:
            key = f"{name}@{size}"
            record = {"op": name, "size": size, "torch_form": _dispatch_ops.OPS[name],
                      "mindspore_form": _dispatch_ops.RAW_FORMS[name]}
            for kind, column_names in (("shim", ("ours", "raw")), ("mindspore", ("raw_alone",)),
                                       ("torch", ("torch",))):
                for column in column_names:
                    figures = outputs.get(kind, {}).get(key, {}).get(column) or {}
                    record[f"{column}_us"] = figures.get("wall")
                    record[f"{column}_cpu_us"] = figures.get("cpu")
            if record["ours_us"] is not None and record["raw_us"] is not None:
                record["overhead_us"] = record["ours_us"] - record["raw_us"]
                record["ours_over_raw"] = record["ours_us"] / record["raw_us"]
                record["overhead_cpu_us"] = record["ours_cpu_us"] - record["raw_cpu_us"]
            if record["ours_us"] is not None and record["torch_us"]:
                record["ours_over_torch"] = record["ours_us"] / record["torch_us"]
            records.append(record)
    return records, errors, threads


def summarize(records):
    measured = [r for r in records if "overhead_us" in r]
    if not measured:
        return {}
    overheads = [r["overhead_us"] for r in measured]
    summary = {
        "target_overhead_us": TARGET_OVERHEAD_US,
        "median_overhead_us": statistics.median(overheads),
        "median_overhead_cpu_us": statistics.median(r["overhead_cpu_us"] for r in measured),
        "max_overhead_us": max(overheads),
        "median_ours_over_raw": statistics.median(r["ours_over_raw"] for r in measured),
        "over_target": [f"{r['op']}@{r['size']}" for r in measured if r["overhead_us"] > TARGET_OVERHEAD_US],
        "over_target_cpu": [f"{r['op']}@{r['size']}" for r in measured if r["overhead_cpu_us"] > TARGET_OVERHEAD_US],
    }
    with_torch = [r["ours_over_torch"] for r in measured if "ours_over_torch" in r]
    if with_torch:
        summary["median_ours_over_torch"] = statistics.median(with_torch)
    return summary


def cell(value, fmt):
    return "-" if value is None else format(value, fmt)


def print_table(records, summary):
    lines = [["op", "n x n", "ours µs", "raw MS µs", "ours - raw µs", "ours/raw", "ours - raw CPU µs",
              "MS w/o shim µs", "torch µs", "ours/torch"]]
    for r in records:
        lines.append([r["op"], f"{r['size']}x{r['size']}", cell(r["ours_us"], ".1f"), cell(r["raw_us"], ".1f"),
                      cell(r.get("overhead_us"), "+.1f"), cell(r.get("ours_over_raw"), ".2f"),
                      cell(r.get("overhead_cpu_us"), "+.1f"),
                      cell(r["raw_alone_us"], ".1f"), cell(r["torch_us"], ".1f"), cell(r.get("ours_over_torch"), ".1f")])
    _runner.print_markdown(lines)
    if summary:
        print(f"overhead (ours - raw), wall clock: median {summary['median_overhead_us']:+.1f} µs, max "
              f"{summary['max_overhead_us']:+.1f} µs; median ours/raw {summary['median_ours_over_raw']:.2f}; "
              f"target <= {TARGET_OVERHEAD_US:.0f} µs; over target: {', '.join(summary['over_target']) or 'none'}")
        print(f"overhead (ours - raw), process CPU time: median {summary['median_overhead_cpu_us']:+.1f} µs; over "
              f"target: {', '.join(summary['over_target_cpu']) or 'none'}")


def main(argv=None):
    args = parse_arguments(argv)
    if args.child:
        return run_as_child(args)
    print(_runner.machine_line(), flush=True)
    started, load_start = time.perf_counter(), _runner.load_average()
    records, errors, threads = collect(args)
    summary = summarize(records)
    print()
    print_table(records, summary)
    load_end = _runner.load_average()
    print(f"per call: min over {args.rounds} rounds of the median over {args.repeats} batches of {args.number} "
          f"calls; total {time.perf_counter() - started:.0f} s, load average {load_end:.2f}")
    if args.json:
        _runner.write_json(args.json, {
            "benchmark": "dispatch_overhead", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average_start": load_start, "load_average_end": load_end, "cpus": os.cpu_count(),
            "settings": {"rounds": args.rounds, "repeats": args.repeats, "number": args.number,
                         "sizes": args.sizes, "threads": threads},
            "records": records, "summary": summary, "errors": errors,
        })
    return 1 if "shim" in errors else 0


if __name__ == "__main__":
    sys.exit(main())
