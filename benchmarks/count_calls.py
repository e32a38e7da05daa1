"""Count the MindSpore calls of ours per decoded token or per MiniLM eval forward, by call site.

    python benchmarks/count_calls.py decode --family llama --batch 1     # per token: generate(11) - generate(1)
    python benchmarks/count_calls.py eval                                # one forward of a 16 x 12 short batch
    python benchmarks/count_calls.py decode --root /path/to/other/checkout --summary

Counted (exactly, no timing): MindSpore's pyboost op calls, its indexing helper (`getitem_index_info`) and
host reads (`asnumpy`), each with the shim function that made it and the transformers line above that. MindSpore
primitive calls (Identity, Argmax, Gather ...) go through Python and are not counted here; profile_small.py
counts them. `--root` measures another checkout of the shim (its decoders are written by real torch first).
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRACED = ("asnumpy", "getitem_index_info")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=("decode", "eval"))
    parser.add_argument("--family", choices=("llama", "gpt2"), default="llama")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--root", default=os.path.dirname(HERE), help="the checkout whose shim is measured")
    parser.add_argument("--summary", action="store_true", help="totals by MindSpore call only")
    return parser.parse_args()


def call_site(frame):
    shim = model_line = None
    while frame is not None:
        name = frame.f_code.co_filename
        if shim is None and "/mindnlp_shim/" in name:
            shim = f"{name.split('/mindnlp_shim/')[1]}:{frame.f_code.co_name}"
        if model_line is None and "/transformers/" in name:
            model_line = f"{name.split('/transformers/')[1]}:{frame.f_lineno}"
        frame = frame.f_back
    return shim, model_line


def traced(run):
    counts = collections.Counter()

    def profile(frame, event, arg):
        if event == "c_call" and (arg.__name__.startswith("pyboost_") or arg.__name__ in TRACED):
            counts[(arg.__name__,) + call_site(frame)] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return counts


def main():
    args = parse_arguments()
    sys.path.insert(0, args.root)
    sys.path.insert(1, HERE)
    import mindnlp  # noqa: F401  (before torch and transformers)
    import torch

    import _common
    import _small_child

    with tempfile.TemporaryDirectory(prefix="count_calls_") as workdir:
        if args.workload == "decode":
            subprocess.run([sys.executable, os.path.join(HERE, "_small_child.py"), "--impl", "torch",
                            "--make-decoders", workdir], check=True, capture_output=True,
                           env=dict(os.environ, GLOG_v="3"))
            from transformers import AutoModelForCausalLM

            model = AutoModelForCausalLM.from_pretrained(os.path.join(workdir, args.family)).eval()
            ids = torch.from_numpy(_small_child.prompts(args.batch))

            def generate(new_tokens):
                with torch.no_grad():
                    model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                   max_new_tokens=new_tokens, min_new_tokens=new_tokens, pad_token_id=0)

            generate(3)
            longer, shorter = traced(lambda: generate(11)), traced(lambda: generate(1))
            per_unit = {key: (longer[key] - shorter.get(key, 0)) / 10 for key in longer}
            unit = "decoded token"
        else:
            from transformers import BertForSequenceClassification

            inputs_path = os.path.join(workdir, "short.npz")
            _common.write_short_inputs(inputs_path, _common.TINY_CONFIG["vocab_size"])
            batch = _common.read_batches(inputs_path)[0]
            model = BertForSequenceClassification.from_pretrained(_common.minilm_dir(), num_labels=2).eval()
            inputs = {name: torch.from_numpy(batch[name]) for name in ("input_ids", "attention_mask")}

            def forward():
                with torch.no_grad():
                    model(**inputs)

            forward()
            per_unit = dict(traced(forward))
            unit = f"eval forward ({batch['input_ids'].shape[0]} x {batch['input_ids'].shape[1]})"
    per_unit = {key: count for key, count in per_unit.items() if count}
    if args.summary:
        totals = collections.Counter()
        for (call, _shim, _line), count in per_unit.items():
            totals[call] += count
        for call, count in totals.most_common():
            print(f"{count:7.1f}  {call}")
    else:
        for (call, shim, line), count in sorted(per_unit.items(), key=lambda item: (str(item[0][2]), str(item[0][1]))):
            print(f"{count:7.1f}  {call:28s} {str(shim):52s} {line}")
    print(f"{sum(per_unit.values()):.1f} traced MindSpore calls per {unit} ({args.root})")


if __name__ == "__main__":
    main()
