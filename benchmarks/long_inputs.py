"""Peak memory of long inputs: a MiniLM-sized BERT at batch 8 x {512, 1024, 2048}, ours vs real torch.

MiniLM-L6's sizes (6 layers, hidden 384, 12 heads, intermediate 1536) with max_position_embeddings=2048 and
weights drawn from one seeded NumPy generator, so both implementations hold the same model. Two measurements per
sequence length, each in a fresh interpreter (peak RSS is per process):

  forward  BertModel in eval mode under no_grad, one forward
  train    BertForSequenceClassification in train mode (dropout on), one forward + backward of the loss

Inputs: random token ids with right padding (one full row, the others 1/2 to full length), so the attention
mask is a real padding mask.

    python benchmarks/long_inputs.py
    python benchmarks/long_inputs.py --seqs 512 --modes forward --impls ours
    python benchmarks/long_inputs.py --child --impl ours --mode forward --batch 2 --seq 1024   (one child)
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
IMPLS = ("ours", "torch")
MODES = ("forward", "train")

CONFIG = dict(hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
              vocab_size=30522, max_position_embeddings=2048, type_vocab_size=2, num_labels=2)


def seeded_weights(model, torch, seed=0):
    """Every parameter from one NumPy generator, in name order: normal(0, 0.02) for matrices and embeddings,
    ones for layer-norm scales, zeros for biases (BERT's own initialisation, reproducible across frameworks)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, parameter in sorted(model.named_parameters()):
            shape = tuple(parameter.shape)
            if "LayerNorm.weight" in name:
                values = np.ones(shape, np.float32)
            elif name.endswith("bias"):
                values = np.zeros(shape, np.float32)
            else:
                values = (rng.standard_normal(shape) * 0.02).astype(np.float32)
            parameter.copy_(torch.from_numpy(values))


def make_inputs(batch, seq, vocab_size, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    input_ids = rng.integers(1000, vocab_size, size=(batch, seq), dtype=np.int64)
    lengths = rng.integers(seq // 2, seq + 1, size=batch)
    lengths[0] = seq
    attention_mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int64)
    input_ids[attention_mask == 0] = 0
    labels = rng.integers(0, 2, size=(batch,), dtype=np.int64)
    return input_ids, attention_mask, labels


def cap_address_space(gib):
    """Limit this process's address space, so that a run too large for the machine fails with an allocation
    error instead of drawing the kernel's OOM killer onto other processes."""
    import resource

    if gib > 0:
        limit = int(gib * 2 ** 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_child(args):
    from _common import status_mb  # (main() put this folder on sys.path)

    cap_address_space(args.memory_cap_gib)
    if args.impl == "ours":
        sys.path.insert(0, REPO_ROOT)  # measure the checkout this file belongs to
        import mindnlp  # noqa: F401  (before torch and transformers)
    import torch
    import transformers

    if args.impl == "torch":
        torch.set_num_threads(max(1, len(os.sched_getaffinity(0))))  # as the shim does for MindSpore
    config = transformers.BertConfig(**CONFIG)
    model_class = transformers.BertModel if args.mode == "forward" else transformers.BertForSequenceClassification
    model = model_class(config)
    seeded_weights(model, torch)
    input_ids, attention_mask, labels = make_inputs(args.batch, args.seq, CONFIG["vocab_size"])
    inputs = dict(input_ids=torch.from_numpy(input_ids), attention_mask=torch.from_numpy(attention_mask))
    result = dict(impl=args.impl, mode=args.mode, batch=args.batch, seq=args.seq, torch_module=torch.__name__,
                  attn_implementation=config._attn_implementation, rss_before_mb=status_mb("VmRSS"))
    started = time.perf_counter()
    if args.mode == "forward":
        model.eval()
        with torch.no_grad():
            out = model(**inputs).last_hidden_state
        result["checksum"] = float(out.float().abs().mean())
    else:
        model.train()
        torch.manual_seed(0)
        loss = model(**inputs, labels=torch.from_numpy(labels)).loss
        loss.backward()
        result["loss"] = float(loss)
        result["checksum"] = float(sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None))
    result["seconds"] = time.perf_counter() - started
    result["peak_rss_mb"] = status_mb("VmHWM")
    result["peak_over_before_mb"] = result["peak_rss_mb"] - result["rss_before_mb"]
    return result


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impls", default="ours,torch", help="comma list from: ours, torch")
    parser.add_argument("--modes", default="forward,train", help="comma list from: forward, train")
    parser.add_argument("--seqs", default="512,1024,2048", help="comma list of sequence lengths")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before a child counts as failed")
    parser.add_argument("--verbose", action="store_true", help="show the children's stderr")
    parser.add_argument("--memory-cap-gib", type=float, default=16.0,
                        help="address-space limit of each child (0: none); a run over it is reported as failed")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--impl", choices=IMPLS, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--seq", type=int, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_arguments(argv)
    sys.path.insert(0, HERE)
    import _runner

    if args.child:
        try:
            result = run_child(args)
        except Exception as exc:  # the parent reports it
            first_line = (str(exc).strip().splitlines() or [""])[0]
            result = {"error": f"{type(exc).__name__}: {first_line}"[:300]}
        _runner.emit_json_line(result)
        return 1 if "error" in result else 0

    impls = [name for name in args.impls.split(",") if name]
    modes = [name for name in args.modes.split(",") if name]
    seqs = [int(value) for value in args.seqs.split(",") if value]
    if not set(impls) <= set(IMPLS) or not set(modes) <= set(MODES):
        raise SystemExit(f"--impls from {IMPLS}, --modes from {MODES}")
    print(_runner.machine_line(), flush=True)
    load_start = _runner.load_average()
    records = []
    for mode in modes:
        for seq in seqs:
            row = {"mode": mode, "batch": args.batch, "seq": seq}
            for impl in impls:
                child = [os.path.basename(__file__), "--child", "--impl", impl, "--mode", mode,
                         "--batch", str(args.batch), "--seq", str(seq), "--memory-cap-gib", str(args.memory_cap_gib)]
                row[impl] = _runner.run_child(child, args.timeout, args.verbose)
                r = row[impl]
                print(f"  {mode} {args.batch}x{seq} {impl}: " +
                      (r["error"] if "error" in r else f"peak RSS {r['peak_rss_mb']:.0f} MB, {r['seconds']:.1f} s"),
                      flush=True)
            if all("peak_rss_mb" in row.get(impl, {}) for impl in IMPLS):
                row["ratio"] = row["ours"]["peak_rss_mb"] / row["torch"]["peak_rss_mb"]
            records.append(row)
    load_end = _runner.load_average()
    print()
    lines = [["mode", "batch x seq"] + [f"{impl} peak MB (before, s)" for impl in impls] + ["ours/torch"]]
    for row in records:
        cells = [row["mode"], f"{row['batch']}x{row['seq']}"]
        for impl in impls:
            r = row[impl]
            if "error" not in r:
                cells.append(f"{r['peak_rss_mb']:.0f} ({r['rss_before_mb']:.0f}, {r['seconds']:.1f})")
            elif any(text in r["error"] for text in ("can't allocate memory", " out of memory.")):
                cells.append(f"over the {args.memory_cap_gib:g} GiB cap")
            else:
                cells.append("failed: " + r["error"][:60])
        cells.append(f"{row['ratio']:.2f}x" if "ratio" in row else "-")
        lines.append(cells)
    _runner.print_markdown(lines)
    print(f"peak RSS is the child's VmHWM (interpreter, frameworks, model, activations); each child's address "
          f"space capped at {args.memory_cap_gib:g} GiB; load average {load_start:.2f} at the start, "
          f"{load_end:.2f} at the end")
    if args.json:
        _runner.write_json(args.json, {"records": records, "load_start": load_start, "load_end": load_end})
    return 0 if all("error" not in row[impl] for row in records for impl in impls) else 1


if __name__ == "__main__":
    sys.exit(main())
