"""Where a small-tensor workload of ours goes: cProfile of greedy decoding or of the short-sentence MiniLM step.

    python benchmarks/profile_small.py decode --family llama --batch 1     # one generate call of 64 new tokens
    python benchmarks/profile_small.py short                               # 2 optimizer steps on short batches
    python benchmarks/profile_small.py eval                                # MiniLM eval forward, short batches

`decode` builds the small_inputs.py decoder of the family with real torch's initialisation (a real-torch child
writes it), then profiles `generate` under the shim; `short` profiles trainer_step.py's MiniLM step on the
short batches; `eval` the MiniLM classifier's no_grad forward over those batches. Prints the time without and with the profiler, the own time per package, the MindSpore op calls
per decoded token (or per step), the calls of the functions that reach the host (asnumpy, item, tolist) and of
tensor creation from Python values, and the top functions.
"""
import argparse
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import time

sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # measure this checkout

import _common
import _hf_step
import _runner
import _small_child
from profile_step import per_package

# (label, predicate on a profile entry's (filename, function)); counted per unit of work
COUNTED = (
    ("MindSpore pyboost op calls", lambda f, name: f == "~" and "pyboost_" in name),
    ("MindSpore primitive calls (run_op_async)", lambda f, name: name == "run_op_async"),
    ("host reads (asnumpy)", lambda f, name: "asnumpy" in name),
    ("host reads (item, tolist)", lambda f, name: name in ("item", "tolist") or name.endswith(".item")
     or name.endswith(".tolist")),
    ("tensors made from Python values (tensor, as_tensor)", lambda f, name: "/mindnlp_shim/" in f
     and name in ("tensor", "as_tensor")),
)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=("decode", "short", "eval"))
    parser.add_argument("--family", choices=_small_child.DECODE_FAMILIES, default="llama")
    parser.add_argument("--batch", type=int, default=1, help="decode: prompts per generate call")
    parser.add_argument("--runs", type=int, default=1, help="profiled generate calls or optimizer steps")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    return parser.parse_args()


def decode_workload(torch, args, workdir):
    subprocess.run([sys.executable, os.path.join(_runner.HERE, "_small_child.py"), "--impl", "torch",
                    "--make-decoders", workdir], check=True, env=_runner.child_environment(), capture_output=True)
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(os.path.join(workdir, args.family)).eval()
    ids = torch.from_numpy(_small_child.prompts(args.batch))
    mask = torch.ones_like(ids)

    def run():
        with torch.no_grad():
            model.generate(input_ids=ids, attention_mask=mask, do_sample=False, max_new_tokens=_small_child.NEW_TOKENS,
                           min_new_tokens=_small_child.NEW_TOKENS, pad_token_id=0)

    return run, _small_child.NEW_TOKENS, "decoded token"


def short_workload(torch, args, workdir):
    inputs, head = os.path.join(workdir, "short.npz"), os.path.join(workdir, "head.safetensors")
    _common.write_short_inputs(inputs, _common.TINY_CONFIG["vocab_size"])
    _common.write_classifier(head, 384)
    model = _hf_step.load_model(torch, _common.minilm_dir(), head)
    model.train()
    step = _hf_step.make_step(torch, model, _common.read_batches(inputs), 1000)
    return step, 1, "optimizer step"


def eval_workload(torch, args, workdir):
    """The MiniLM classifier's forward in eval mode under no_grad over the short batches (small_inputs' eval)."""
    from transformers import BertForSequenceClassification

    inputs = os.path.join(workdir, "short.npz")
    _common.write_short_inputs(inputs, _common.TINY_CONFIG["vocab_size"])
    model = BertForSequenceClassification.from_pretrained(_common.minilm_dir(), num_labels=_common.NUM_LABELS).eval()
    batches = [{name: torch.from_numpy(batch[name]) for name in ("input_ids", "attention_mask")}
               for batch in _common.read_batches(inputs)]

    def run():
        with torch.no_grad():
            for batch in batches:
                model(**batch)

    return run, len(batches), "batch"


def main():
    args = parse_arguments()
    import mindnlp  # noqa: F401  (before torch and transformers)
    import torch

    with tempfile.TemporaryDirectory(prefix="profile_small_") as workdir:
        make = {"decode": decode_workload, "short": short_workload, "eval": eval_workload}[args.workload]
        run, units_per_run, unit = make(torch, args, workdir)
        warmup = {"decode": 2, "short": _common.SHORT_BATCHES, "eval": 1}[args.workload]
        for _ in range(warmup):
            run()
        plain = []
        for _ in range(args.runs):
            start = time.perf_counter()
            run()
            plain.append(time.perf_counter() - start)
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        for _ in range(args.runs):
            run()
        profiler.disable()
        profiled = time.perf_counter() - start
    units = args.runs * units_per_run
    stats = pstats.Stats(profiler)
    total = sum(entry[2] for entry in stats.stats.values())
    print(f"{args.workload} {args.family if args.workload == 'decode' else 'minilm'} batch "
          f"{args.batch if args.workload == 'decode' else _common.BATCH}; load average {os.getloadavg()[0]:.2f}")
    print(f"per {unit}: {1e3 * min(plain) / units_per_run:.2f} ms without the profiler (min of {len(plain)} runs), "
          f"{1e3 * profiled / units:.2f} ms with it")
    print(f"\nown time per package, per {unit} (profiled):")
    for name, seconds in per_package(stats):
        print(f"  {name:32s} {1e3 * seconds / units:9.3f} ms  {100 * seconds / total:5.1f}%")
    calls = sum(entry[0] for entry in stats.stats.values())
    print(f"\nper {unit}: {calls / units:.0f} function calls (Python and C)")
    for label, predicate in COUNTED:
        count = sum(entry[0] for (filename, _line, name), entry in stats.stats.items() if predicate(filename, name))
        print(f"  {label}: {count / units:.1f}")
    print(f"\ntop {args.top} functions by {args.sort} (summed over {units} {unit}s):")
    stats.sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
