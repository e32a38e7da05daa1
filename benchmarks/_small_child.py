"""Child process for small_inputs.py: greedy decoding with a KV cache, or MiniLM evaluation, on one implementation.

    _small_child.py --impl torch --make-decoders DIR        # real torch writes the tiny Llama and GPT-2 (seed 0)
    _small_child.py --impl ours|torch --task decode --model-dir DIR --batch 8 --tokens-out F.npy
    _small_child.py --impl ours|torch --task eval --inputs short.npz --logits-out F.npy

`--impl ours` does `import mindnlp` first, so `torch` and transformers run on the shim; `--impl torch` is real
torch with 2 threads. Prints one JSON line (times, throughput, peak RSS) or {"error": ...}; the token ids or
logits go to a .npy file for the parent to compare.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import _common

HERE = os.path.dirname(os.path.abspath(__file__))

# The decoders: hidden 256, 4 layers, vocabulary 1024. A wider initialisation than the default 0.02 spreads the
# logits, so greedy choices are not decided by float32 rounding and the tokens can be compared exactly.
DECODE_COMMON = dict(vocab_size=1024, pad_token_id=0, bos_token_id=1, eos_token_id=None, initializer_range=0.1)
DECODE_LLAMA = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=4, num_attention_heads=8,
                    num_key_value_heads=2, max_position_embeddings=256, **DECODE_COMMON)  # grouped-query attention
DECODE_GPT2 = dict(n_embd=256, n_layer=4, n_head=4, n_positions=256, resid_pdrop=0.0, embd_pdrop=0.0,
                   attn_pdrop=0.0, **DECODE_COMMON)
PROMPT_LEN, NEW_TOKENS = 8, 64
DECODE_FAMILIES = ("llama", "gpt2")


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=("ours", "torch"), required=True)
    parser.add_argument("--task", choices=("decode", "eval"))
    parser.add_argument("--make-decoders", metavar="DIR", help="write DIR/llama and DIR/gpt2 (real torch only)")
    parser.add_argument("--model-dir")
    parser.add_argument("--batch", type=int, default=1, help="decode: prompts per generate call")
    parser.add_argument("--new-tokens", type=int, default=NEW_TOKENS)
    parser.add_argument("--inputs", help="eval: batches written by _common.write_short_inputs")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", help="where to save the tokens (decode) or logits (eval) as .npy")
    return parser.parse_args(argv)


def import_torch(impl):
    if impl == "ours":
        sys.path.insert(1, os.path.dirname(HERE))  # measure the checkout this file belongs to
        import mindnlp  # noqa: F401  (before torch and transformers)
    import torch

    if impl == "torch":
        torch.set_num_threads(2)
    elif not torch.__name__.startswith("mindnlp_shim"):
        raise RuntimeError(f"torch resolved to {torch.__name__}, not the shim")
    return torch


def make_decoders(torch, directory):
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    for name, model_class, config in (("llama", LlamaForCausalLM, LlamaConfig(**DECODE_LLAMA)),
                                      ("gpt2", GPT2LMHeadModel, GPT2Config(**DECODE_GPT2))):
        torch.manual_seed(0)
        model_class(config).save_pretrained(os.path.join(directory, name))
    return {"written": directory}


def prompts(batch, seed=0):
    """`batch` prompts of PROMPT_LEN token ids (no padding), the same on both implementations."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(3, DECODE_COMMON["vocab_size"], size=(batch, PROMPT_LEN), dtype=np.int64)
    ids[:, 0] = DECODE_COMMON["bos_token_id"]
    return ids


def decode(torch, args):
    """Greedy generate with the KV cache: exactly new_tokens new tokens per row (no eos), timed per call."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(args.model_dir).eval()
    ids = torch.from_numpy(prompts(args.batch))
    mask = torch.ones_like(ids)

    def run():
        with torch.no_grad():
            return model.generate(input_ids=ids, attention_mask=mask, do_sample=False, use_cache=True,
                                  max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens,
                                  pad_token_id=DECODE_COMMON["pad_token_id"])

    seconds, tokens = timed(run, args.warmup, args.repeats)
    tokens = np.array(tokens.numpy(), dtype=np.int64, copy=True)
    if tokens.shape != (args.batch, PROMPT_LEN + args.new_tokens):
        raise RuntimeError(f"generate returned shape {tokens.shape}")
    if args.out:
        np.save(args.out, tokens)
    median = statistics.median(seconds)
    return {"seconds": seconds, "median_s": median, "tokens_per_s": args.batch * args.new_tokens / median}


def evaluate(torch, args):
    """MiniLM classifier forward in eval mode under no_grad over the short batches; samples per second."""
    from transformers import BertForSequenceClassification

    model = BertForSequenceClassification.from_pretrained(args.model_dir or _common.minilm_dir(),
                                                          num_labels=_common.NUM_LABELS)
    head = os.path.join(os.path.dirname(args.inputs), "classifier.safetensors")
    if os.path.exists(head):
        from safetensors.numpy import load_file

        model.load_state_dict({k: torch.from_numpy(v) for k, v in load_file(head).items()}, strict=False)
    model.eval()
    batches = [{name: torch.from_numpy(batch[name]) for name in ("input_ids", "attention_mask")}
               for batch in _common.read_batches(args.inputs)]
    samples = sum(int(batch["input_ids"].shape[0]) for batch in batches)

    def run():
        with torch.no_grad():
            return [model(**batch).logits.numpy().copy() for batch in batches]

    seconds, logits = timed(run, args.warmup, args.repeats)
    if args.out:
        np.save(args.out, np.concatenate(logits))
    median = statistics.median(seconds)
    return {"seconds": seconds, "median_s": median, "samples_per_s": samples / median, "samples": samples}


def timed(run, warmup, repeats):
    for _ in range(warmup):
        run()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - start)
    return seconds, result


def main():
    args = parse_arguments()
    try:
        torch = import_torch(args.impl)
        if args.make_decoders:
            result = make_decoders(torch, args.make_decoders)
        else:
            result = (decode if args.task == "decode" else evaluate)(torch, args)
    except Exception as exc:  # the parent reports it as a table cell
        first_line = (str(exc).strip().splitlines() or [""])[0]
        result = {"error": f"{type(exc).__name__}: {first_line}"[:300]}
    result.update(impl=args.impl, peak_rss_mb=_common.peak_rss_mb())
    sys.stdout.write(json.dumps(result) + "\n")
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
