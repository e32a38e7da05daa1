"""Where one optimizer step of ours goes: cProfile of the MiniLM step from trainer_step.py under the shim.

Same step as `trainer_step.py` (forward, backward, clip_grad_norm_, AdamW, schedule, zero_grad; batch 16,
sequence 128, train mode). Prints the step time with and without the profiler, the time per package (whose
code was running: the shim's Python, transformers, MindSpore's Python layer, or C calls, which are the
MindSpore kernels and other compiled built-ins) and the top functions by own time.

    python benchmarks/profile_step.py                  # 2 warm-up steps, 2 profiled steps, top 30
    python benchmarks/profile_step.py --steps 3 --top 50 --sort cumulative
"""
import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time

sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # measure this checkout

import _common
import _hf_step


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", help="a BERT checkpoint directory (default: the bundled MiniLM-L6)")
    parser.add_argument("--warmup", type=int, default=2, help="unprofiled steps first")
    parser.add_argument("--steps", type=int, default=2, help="profiled steps")
    parser.add_argument("--top", type=int, default=30, help="functions listed")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    return parser.parse_args()


def package_of(filename):
    """Whose code a profile entry is: a C call, or the package its Python file belongs to."""
    if filename == "~":
        return "C calls (kernels, built-ins)"
    path = filename.replace(os.sep, "/")
    for marker, name in (("/mindnlp_shim/", "shim (mindnlp_shim)"), ("/transformers/", "transformers"),
                         ("/mindspore/", "mindspore (Python)"), ("/numpy/", "numpy (Python)"),
                         ("/benchmarks/", "this benchmark")):
        if marker in path:
            return name
    return "other Python"


def per_package(stats):
    totals = {}
    for (filename, _line, _function), (_calls, _primitive, own, _cumulative, _callers) in stats.stats.items():
        name = package_of(filename)
        totals[name] = totals.get(name, 0.0) + own
    return sorted(totals.items(), key=lambda item: -item[1])


def main():
    args = parse_arguments()
    import mindnlp  # noqa: F401  (before torch and transformers)
    import torch

    model_dir = args.model_dir or _common.minilm_dir()
    with tempfile.TemporaryDirectory(prefix="profile_step_") as workdir:
        inputs = os.path.join(workdir, "inputs.npz")
        _common.write_inputs(inputs, _common.TINY_CONFIG["vocab_size"])
        batch = _common.read_batches(inputs)
    model = _hf_step.load_model(torch, model_dir, None)
    model.train()
    step = _hf_step.make_step(torch, model, batch, args.warmup + 2 * args.steps)
    for _ in range(args.warmup):
        step()
    plain = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        plain.append(time.perf_counter() - start)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for _ in range(args.steps):
        step()
    profiler.disable()
    profiled = (time.perf_counter() - start) / args.steps

    stats = pstats.Stats(profiler)
    total = sum(entry[2] for entry in stats.stats.values())
    print(f"model {model_dir}; load average {os.getloadavg()[0]:.2f}")
    print(f"step without profiler: {min(plain):.3f} s (min of {len(plain)}); with profiler: {profiled:.3f} s per step")
    print(f"\nown time per package, per step (profiled; {total / args.steps:.3f} s per step in all):")
    for name, seconds in per_package(stats):
        print(f"  {name:32s} {seconds / args.steps:8.3f} s  {100 * seconds / total:5.1f}%")
    kernel_calls = sum(entry[0] for (filename, _line, function), entry in stats.stats.items()
                       if filename == "~" and ("pyboost_" in function or "run_backward" in function))
    primitive_calls = sum(entry[0] for (filename, _line, function), entry in stats.stats.items()
                          if function == "run_op_async")
    calls = sum(entry[0] for entry in stats.stats.values())
    print(f"\nper step: {calls / args.steps:.0f} function calls (Python and C), {kernel_calls / args.steps:.0f} "
          f"MindSpore pyboost op calls and {primitive_calls / args.steps:.0f} primitive calls (run_op_async)")
    print(f"\ntop {args.top} functions by {args.sort} (times summed over {args.steps} steps):")
    stats.sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
