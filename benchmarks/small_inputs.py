"""Small tensors: the MiniLM Trainer step on short sentences, greedy decoding with a KV cache, MiniLM evaluation.

Each figure is ours (the shim) against real torch, measured side by side in one run, each in its own child:

- short: seconds per optimizer step of the MiniLM classifier (trainer_step.py's step: forward, backward,
  clip_grad_norm_, AdamW, schedule, zero_grad) on batches of 16 short sentences (4-14 tokens, each batch
  padded to its own longest row: widths 10-14); ours, the raw-MindSpore floor and real torch;
- decode: new tokens per second of greedy `generate` with the KV cache (64 new tokens after an 8-token prompt,
  batch 1 and 8) on a tiny Llama (grouped-query attention) and a tiny GPT-2 (hidden 256, 4 layers) written by
  real torch; the tokens of ours must equal real torch's;
- eval: samples per second of the MiniLM classifier's forward in eval mode under no_grad on the same short
  batches; ours' logits are compared with real torch's.

    python benchmarks/small_inputs.py                     # all three parts (about 3-5 minutes on 2 cores)
    python benchmarks/small_inputs.py --parts decode --batches 1 --repeats 2
"""
import argparse
import os
import statistics
import sys
import tempfile

import numpy as np

import _common
import _runner

PARTS = ("short", "decode", "eval")
DECODERS = ("llama", "gpt2")


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma list from: {', '.join(PARTS)}")
    parser.add_argument("--impls", default="ours,raw,torch", help="ours,raw,torch (raw: the short step only)")
    parser.add_argument("--batches", default="1,8", help="decode batch sizes")
    parser.add_argument("--families", default=",".join(DECODERS), help="decode: comma list from llama,gpt2")
    parser.add_argument("--new-tokens", type=int, default=64, help="decode: new tokens per generate call")
    parser.add_argument("--steps", type=int, default=12, help="short: timed optimizer steps (2 per batch shape)")
    parser.add_argument("--repeats", type=int, default=3, help="decode and eval: timed runs")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per child")
    parser.add_argument("--verbose", action="store_true", help="show the children's stderr")
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args(argv)
    args.parts = _runner.split_choices(parser, args.parts, PARTS)
    args.impls = _runner.split_choices(parser, args.impls, ("ours", "raw", "torch"))
    args.batches = [int(b) for b in args.batches.split(",")]
    args.families = _runner.split_choices(parser, args.families, DECODERS)
    return args


def short_step(args, workdir):
    """The short-sentence Trainer step through trainer_step.py's children (ours, raw floor, real torch)."""
    inputs, head = os.path.join(workdir, "short.npz"), os.path.join(workdir, "classifier.safetensors")
    common = ["--model-dir", _common.minilm_dir(), "--extra-weights", head, "--inputs", inputs,
              "--warmup", str(_common.SHORT_BATCHES), "--steps", str(args.steps)]
    scripts = {"ours": "_shim_step.py", "raw": "_raw_mindspore_bert.py", "torch": "_torch_step.py"}
    results = {}
    for impl in args.impls:
        results[impl] = _runner.run_child([scripts[impl]] + common, args.timeout, args.verbose)
    widths = [batch["input_ids"].shape[1] for batch in _common.read_batches(inputs)]
    rows = [["short step", f"s per optimizer step, batch 16, widths {widths}", impl, seconds_cell(result),
             ratio_cell(result, results.get("torch"), "median_s")] for impl, result in results.items()]
    return {"results": results, "widths": widths}, rows


def decode(args, workdir):
    """tokens/s of greedy generate per decoder and batch size; tokens compared with real torch's."""
    directory = os.path.join(workdir, "decoders")
    made = _runner.run_child(["_small_child.py", "--impl", "torch", "--make-decoders", directory], args.timeout,
                             args.verbose)
    if "error" in made:
        return {"error": made["error"]}, [["decode", "making the decoders", "torch", "failed: " + made["error"], ""]]
    figures, rows = {}, []
    for name in args.families:
        for batch in args.batches:
            key, results = f"{name}/batch{batch}", {}
            for impl in [impl for impl in args.impls if impl != "raw"]:
                tokens = os.path.join(workdir, f"{name}-{batch}-{impl}.npy")
                results[impl] = _runner.run_child(
                    ["_small_child.py", "--impl", impl, "--task", "decode", "--model-dir", os.path.join(directory, name),
                     "--batch", str(batch), "--new-tokens", str(args.new_tokens), "--repeats", str(args.repeats),
                     "--out", tokens], args.timeout,
                    args.verbose)
                results[impl]["tokens_file"] = tokens
            same = same_arrays(results, exact=True)
            figures[key] = {"results": results, "tokens_equal": same}
            for impl, result in results.items():
                rows.append([f"decode {name} batch {batch}", f"new tokens/s (greedy, KV cache, {args.new_tokens} new)", impl,
                             throughput_cell(result, "tokens_per_s"),
                             ratio_cell(results.get("torch"), result, "median_s") + equal_note(impl, same)])
    return figures, rows


def evaluate(args, workdir):
    """samples/s of the MiniLM classifier's eval forward on the short batches; logits compared with torch's."""
    inputs = os.path.join(workdir, "short.npz")
    results = {}
    for impl in [impl for impl in args.impls if impl != "raw"]:
        logits = os.path.join(workdir, f"eval-{impl}.npy")
        results[impl] = _runner.run_child(
            ["_small_child.py", "--impl", impl, "--task", "eval", "--inputs", inputs, "--repeats", str(args.repeats),
             "--out", logits], args.timeout, args.verbose)
        results[impl]["tokens_file"] = logits
    same = same_arrays(results, exact=False)
    rows = [["eval minilm", "samples/s, batch 16, no_grad", impl, throughput_cell(result, "samples_per_s"),
             ratio_cell(results.get("torch"), result, "median_s") + equal_note(impl, same)]
            for impl, result in results.items()]
    return {"results": results, "logits_close": same}, rows


def same_arrays(results, exact):
    """Do ours' tokens (exact) or logits (within 1e-4) equal real torch's? None when either side failed."""
    paths = [results.get(impl, {}).get("tokens_file") for impl in ("ours", "torch")]
    if not all(path and os.path.exists(path) for path in paths):
        return None
    ours, theirs = (np.load(path) for path in paths)
    if ours.shape != theirs.shape:
        return False
    return bool(np.array_equal(ours, theirs) if exact else np.allclose(ours, theirs, rtol=0, atol=1e-4))


def seconds_cell(result):
    if "error" in result:
        return "failed: " + result["error"]
    return f"{result['median_s']:.3f} (min {result['min_s']:.3f})"


def throughput_cell(result, key):
    if "error" in result:
        return "failed: " + result["error"]
    return f"{result[key]:.1f} (median of {len(result['seconds'])})"


def ratio_cell(numerator, denominator, key):
    """numerator time / denominator time; for throughputs pass torch as numerator (ours/torch in throughput)."""
    if not numerator or not denominator or key not in numerator or key not in denominator:
        return "-"
    return f"{numerator[key] / denominator[key]:.2f}x"


def equal_note(impl, same):
    if impl != "ours":
        return ""
    return {True: ", equal to torch", False: ", DIFFERS from torch", None: ""}[same]


def main(argv=None):
    args = parse_arguments(argv)
    print(_runner.machine_line(), flush=True)
    load_start = _runner.load_average()
    figures, rows = {}, []
    with tempfile.TemporaryDirectory(prefix="small_inputs_") as workdir:
        _common.write_short_inputs(os.path.join(workdir, "short.npz"), _common.TINY_CONFIG["vocab_size"])
        _common.write_classifier(os.path.join(workdir, "classifier.safetensors"), 384)
        for part, measure in (("short", short_step), ("decode", decode), ("eval", evaluate)):
            if part in args.parts:
                figures[part], part_rows = measure(args, workdir)
                rows.extend(part_rows)
                print(f"{part} done (load average {_runner.load_average():.2f})", flush=True)
    _runner.print_markdown([["benchmark", "figure", "impl", "value",
                             "ratio (step: time / torch's time; decode, eval: speed / torch's speed)"]] + rows)
    load_end = _runner.load_average()
    print(f"load average {load_start:.2f} at the start, {load_end:.2f} at the end, on {os.cpu_count()} cpus")
    differ = [key for key, entry in figures.get("decode", {}).items()
              if isinstance(entry, dict) and entry.get("tokens_equal") is False]
    if figures.get("eval", {}).get("logits_close") is False:
        differ.append("eval")
    if args.json:
        _runner.write_json(args.json, {"figures": figures, "rows": rows, "load_average_start": load_start,
                                       "load_average_end": load_end, "differ_from_torch": differ})
    if differ:
        print(f"ours differs from real torch in: {', '.join(differ)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
