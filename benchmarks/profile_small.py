"""Where a small-tensor workload of ours goes: cProfile of greedy decoding or of the short-sentence MiniLM step.

    python benchmarks/profile_small.py decode --family llama --batch 1     # one generate call of 64 new tokens
    python benchmarks/profile_small.py short                               # 2 optimizer steps on short batches
    python benchmarks/profile_small.py eval                                # MiniLM eval forward, short batches
    python benchmarks/profile_small.py decode --by-op                      # time per torch-level op, in context
    python benchmarks/profile_small.py decode --by-op --impl torch         # the same for real torch

`decode` builds the small_inputs.py decoder of the family with real torch's initialisation (a real-torch child
writes it), then profiles `generate` under the shim; `short` profiles trainer_step.py's MiniLM step on the
short batches; `eval` the MiniLM classifier's no_grad forward over those batches. Prints the time without and with the profiler, the own time per package, the MindSpore op calls
per decoded token (or per step), the calls of the functions that reach the host (asnumpy, item, tolist) and of
tensor creation from Python values, and the top functions.

`--by-op` runs without cProfile: each torch-level entry point the model code calls (`F.linear`, `Tensor.__mul__`,
`torch.cat`, ...; BY_OP_NAMES) is wrapped with a timer that counts only the outermost call, and the table gives
calls, milliseconds and microseconds per call per unit of work. It measures the ops where they run, between the
model's other work, which costs about twice what the same op costs in a tight loop; `--impl torch` gives real
torch's figures for the same workload (run the two on a quiet machine: real torch's threads collapse under load).
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
    parser.add_argument("--by-op", action="store_true", help="time per torch-level op instead of cProfile")
    parser.add_argument("--impl", choices=("ours", "torch"), default="ours", help="with --by-op: whose torch")
    return parser.parse_args()


# (owner, names) of the entry points `--by-op` times, as the model code calls them
BY_OP_NAMES = (
    ("F", ("linear", "scaled_dot_product_attention", "silu", "gelu", "embedding", "softmax", "layer_norm", "dropout")),
    ("Tensor", ("__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__truediv__", "__neg__", "__and__", "__or__",
                "__invert__", "__eq__", "__ne__", "__bool__", "__getitem__", "__setitem__", "view", "reshape",
                "transpose", "permute", "unsqueeze", "expand", "contiguous", "split", "to", "float", "long", "pow",
                "mean", "sum", "max", "clone", "masked_fill", "type_as", "item", "numel", "dim", "any", "all")),
    ("torch", ("cat", "stack", "rsqrt", "tanh", "matmul", "addmm", "where", "full", "ones", "zeros", "arange", "argmax",
               "tensor", "isin", "ones_like", "zeros_like")),
)


def time_by_op(torch, run, units_per_run, unit, runs):
    """Wrap BY_OP_NAMES with outermost-call timers, run `run` `runs` times, restore, print the table."""
    totals, calls, depth = {}, {}, [0]
    clock = time.perf_counter
    owners = {"F": torch.nn.functional, "Tensor": torch.Tensor, "torch": torch}
    saved = []

    def timed(fn, label):
        def call(*args, **kwargs):
            if depth[0]:
                return fn(*args, **kwargs)
            depth[0] = 1
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                totals[label] = totals.get(label, 0.0) + clock() - start
                calls[label] = calls.get(label, 0) + 1
                depth[0] = 0
        return call

    for owner_name, names in BY_OP_NAMES:
        owner = owners[owner_name]
        for name in names:
            fn = getattr(owner, name, None)
            if fn is None:
                continue
            saved.append((owner, name, owner.__dict__.get(name)))  # (None: inherited, as real torch's methods are)
            setattr(owner, name, timed(fn, f"{owner_name}.{name}"))
    try:
        start = clock()
        for _ in range(runs):
            run()
        wall = clock() - start
    finally:
        for owner, name, own in saved:
            if own is None:
                delattr(owner, name)
            else:
                setattr(owner, name, own)
    units = runs * units_per_run
    print(f"per {unit}: {1e3 * wall / units:.2f} ms with the timers; load average {os.getloadavg()[0]:.2f}")
    print(f"{'op':40s} {'calls':>8s} {'ms':>8s} {'us/call':>9s}   (per {unit})")
    covered = 0.0
    for label, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        covered += seconds
        print(f"{label:40s} {calls[label] / units:8.1f} {1e3 * seconds / units:8.3f} {1e6 * seconds / calls[label]:9.1f}")
    print(f"the ops above: {1e3 * covered / units:.2f} of {1e3 * wall / units:.2f} ms per {unit}; the rest is the "
          f"model code's own Python, module calls and what the table does not name")


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
    if args.impl == "torch" and not args.by_op:
        raise SystemExit("--impl torch goes with --by-op (the cProfile tables read the shim's own modules)")
    if args.impl == "ours":
        import mindnlp  # noqa: F401  (before torch and transformers)
    import torch

    with tempfile.TemporaryDirectory(prefix="profile_small_") as workdir:
        make = {"decode": decode_workload, "short": short_workload, "eval": eval_workload}[args.workload]
        run, units_per_run, unit = make(torch, args, workdir)
        warmup = {"decode": 2, "short": _common.SHORT_BATCHES, "eval": 1}[args.workload]
        for _ in range(warmup):
            run()
        if args.by_op:
            time_by_op(torch, run, units_per_run, unit, args.runs)
            return
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
