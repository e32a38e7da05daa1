"""`model.generate` on tiny GPT-2, Llama and T5 models, run identically on real PyTorch and on the shim, for
tests/test_generation.py.

    generate_run.py --side torch --workdir D   # real torch: build seeded models, save them, generate
    generate_run.py --side shim  --workdir D   # the shim: load those checkpoints, generate the same way

Each side writes D/<side>.npz with the token ids (and beam scores) of every run, keyed "<family>/<run>". The
torch side picks the eos token of the "eos" run from its own greedy output (so that generation really stops
early) and the shim side reads it from torch.npz. The shim side also checks what needs no oracle: KV cache on
and off, and sampling with a fixed seed twice.
"""
import argparse
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--side", choices=["torch", "shim"], required=True)
parser.add_argument("--workdir", required=True)
args = parser.parse_args()

if args.side == "shim":
    import mindnlp  # noqa: F401  (from here on `torch` is the shim)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import (GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, T5Config,  # noqa: E402
                          T5ForConditionalGeneration)

ON_SHIM = args.side == "shim"
assert torch.__name__.startswith("mindnlp_shim") == ON_SHIM, torch.__name__

VOCAB, PAD, BOS = 64, 0, 1
MAX_NEW = 8
# A wider initialisation than the default 0.02 spreads the logits, so that greedy and beam choices are not
# decided by float32 rounding. No eos in the configs: only the "eos" run may stop early.
COMMON = dict(vocab_size=VOCAB, pad_token_id=PAD, bos_token_id=BOS, eos_token_id=None, initializer_range=0.3)
FAMILIES = {
    "gpt2": (GPT2LMHeadModel, lambda: GPT2Config(
        n_positions=64, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
        **COMMON)),
    "llama": (LlamaForCausalLM, lambda: LlamaConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=64, **COMMON)),
    "t5": (T5ForConditionalGeneration, lambda: T5Config(
        d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        relative_attention_num_buckets=8, dropout_rate=0.0, decoder_start_token_id=PAD,
        initializer_factor=8.0, **{k: v for k, v in COMMON.items() if k != "initializer_range"})),
}
# Two prompts of different lengths; batched, the shorter one is LEFT-padded.
PROMPTS = ([BOS, 17, 33, 8, 51, 12, 40], [BOS, 29, 5, 44])


def path(*parts):
    return os.path.join(args.workdir, *parts)


def left_padded(prompts):
    width = max(map(len, prompts))
    ids = np.full((len(prompts), width), PAD, dtype=np.int64)
    mask = np.zeros((len(prompts), width), dtype=np.int64)
    for row, prompt in enumerate(prompts):
        ids[row, width - len(prompt):] = prompt
        mask[row, width - len(prompt):] = 1
    return torch.from_numpy(ids), torch.from_numpy(mask)


def tokens(t):
    return np.array(t.cpu().numpy(), dtype=np.int64, copy=True)


def generate(model, prompts, **kwargs):
    ids, mask = left_padded(prompts)
    with torch.no_grad():
        return model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=MAX_NEW, pad_token_id=PAD,
                              **kwargs)


def first_new_token(sequences, prompt_len):
    """A token a greedy row produces at step >= 2 and not before: stopping there is visible."""
    for sequence in sequences:
        new = list(sequence[prompt_len:])
        for step in range(2, len(new)):
            if new[step] not in new[:step] and new[step] != PAD:
                return int(new[step])
    raise AssertionError(f"no usable eos in {sequences}")


def oracle_runs(family, model, out, eos):
    """The runs compared with real torch token for token."""
    key = f"{family}/"
    prompt_len = max(map(len, PROMPTS)) if family != "t5" else 0
    out[key + "greedy"] = tokens(generate(model, PROMPTS, do_sample=False))
    if family != "t5":  # the left-padded prompt alone, without padding
        out[key + "greedy_single1"] = tokens(generate(model, PROMPTS[1:], do_sample=False))
        # transformers' StaticCache: preallocated key/value tensors written in place, counters made with
        # torch.tensor(0, dtype=int)
        out[key + "greedy_static_cache"] = tokens(generate(model, PROMPTS, do_sample=False,
                                                           cache_implementation="static"))
    beam = generate(model, PROMPTS, do_sample=False, num_beams=3, return_dict_in_generate=True,
                    output_scores=True)
    out[key + "beam"] = tokens(beam.sequences)
    out[key + "beam_scores"] = np.array(beam.sequences_scores.float().cpu().numpy(), dtype=np.float32)
    if eos is None:
        eos = first_new_token(out[key + "greedy"], prompt_len)
    out[key + "eos_token"] = np.array(eos)
    out[key + "eos"] = tokens(generate(model, PROMPTS, do_sample=False, eos_token_id=eos))
    out[key + "sample_a"] = seeded_sample(model)
    if family == "llama":
        out[key + "beam2"] = tokens(generate(model, PROMPTS, do_sample=False, num_beams=3, num_return_sequences=2))
        eager = FAMILIES[family][0].from_pretrained(path(family), attn_implementation="eager")
        out[key + "greedy_eager"] = tokens(generate(eager, PROMPTS, do_sample=False))


def seeded_sample(model):
    torch.manual_seed(1234)
    return tokens(generate(model, PROMPTS, do_sample=True, top_k=20, top_p=0.95, temperature=1.5))


def shim_only_runs(family, model, out):
    key = f"{family}/"
    out[key + "greedy_no_cache"] = tokens(generate(model, PROMPTS, do_sample=False, use_cache=False))
    out[key + "sample_b"] = seeded_sample(model)


if __name__ == "__main__":
    results = {}
    previous = None if not ON_SHIM else dict(np.load(path("torch.npz")))
    for family, (cls, config) in FAMILIES.items():
        if not ON_SHIM:
            torch.manual_seed(0)
            cls(config()).float().save_pretrained(path(family))
        model = cls.from_pretrained(path(family))
        model.eval()
        eos = None if previous is None else int(previous[f"{family}/eos_token"])
        oracle_runs(family, model, results, eos)
        if ON_SHIM:
            shim_only_runs(family, model, results)
    np.savez(path(f"{args.side}.npz"), **results)
    sys.stdout.flush()
    print(json.dumps({"side": args.side, "runs": sorted(results)}))
