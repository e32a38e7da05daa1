"""Forward/backward of tiny GPT-2, Llama and T5 models and checkpoint interchange, run identically on real PyTorch
and on the shim, for tests/test_model_families.py.

    family_step.py --phase build  --workdir D   # real torch: build seeded models, save them, write batches, step
    family_step.py --phase shim   --workdir D   # the shim: load those checkpoints, the same step, save_pretrained
    family_step.py --phase verify --workdir D   # real torch: load what the shim saved, compute logits

Everything each phase measures goes to one file, D/<phase>.npz, keyed "<case>/<what>"; the last line printed is a
JSON summary. Checkpoints written by the build phase: D/<family>/ (safetensors, one file), D/<family>_bin/
(pytorch_model.bin by torch.save), D/<family>_sharded/ (safetensors split in several shards with an index).
The shim phase writes D/shim_<family>/ (save_pretrained: safetensors) and D/shim_<family>_bin/
(pytorch_model.bin by the shim's torch.save).
"""
import argparse
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--phase", choices=["build", "shim", "verify"], required=True)
parser.add_argument("--workdir", required=True)
args = parser.parse_args()

if args.phase == "shim":
    import mindnlp  # noqa: F401  (from here on `torch` is the shim)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import (GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, T5Config,  # noqa: E402
                          T5ForConditionalGeneration)

ON_SHIM = args.phase == "shim"
assert torch.__name__.startswith("mindnlp_shim") == ON_SHIM, torch.__name__

VOCAB = 96
FAMILIES = {
    "gpt2": (GPT2LMHeadModel, lambda: GPT2Config(
        vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0, embd_pdrop=0.0,
        attn_pdrop=0.0, bos_token_id=1, eos_token_id=2, pad_token_id=0)),
    # grouped-query attention: 4 query heads share 2 key/value heads
    "llama": (LlamaForCausalLM, lambda: LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, bos_token_id=1, eos_token_id=2, pad_token_id=0)),
    "t5": (T5ForConditionalGeneration, lambda: T5Config(
        vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        relative_attention_num_buckets=8, dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0,
        eos_token_id=1)),
}
# case -> (family, attention implementation)
CASES = {"gpt2": ("gpt2", "eager"), "llama_eager": ("llama", "eager"), "llama_sdpa": ("llama", "sdpa"),
         "t5": ("t5", "eager")}
SHARD_SIZE = "20KB"  # the tiny models are ~100-200 KB: several shards


def path(*parts):
    return os.path.join(args.workdir, *parts)


def to_numpy(t):
    return np.array(t.detach().float().cpu().numpy(), dtype=np.float32, copy=True)


def make_batch():
    """Two rows, the second right-padded: causal LMs see an attention mask with holes and -100 labels."""
    rng = np.random.RandomState(3)
    ids = rng.randint(3, VOCAB, size=(2, 10)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 7:] = 0
    ids[1, 7:] = 0
    labels = np.where(mask == 1, ids, -100)
    enc_mask = mask.copy()
    dec_ids = rng.randint(3, VOCAB, size=(2, 6)).astype(np.int64)
    dec_labels = dec_ids.copy()
    dec_labels[1, 4:] = -100
    return {"input_ids": ids, "attention_mask": mask, "labels": labels, "encoder_attention_mask": enc_mask,
            "decoder_input_ids": dec_ids, "decoder_labels": dec_labels}


def tensors(batch):
    return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in batch.items()}


def load(family, directory, **kwargs):
    cls, _ = FAMILIES[family]
    return cls.from_pretrained(directory, **kwargs)


def eval_logits(model, family, b):
    """Eval-mode logits without gradients: the number checkpoints are compared by."""
    model.eval()
    with torch.no_grad():
        if family == "t5":
            return model(input_ids=b["input_ids"], attention_mask=b["encoder_attention_mask"],
                         decoder_input_ids=b["decoder_input_ids"]).logits
        return model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits


def step(case, b, out):
    """Logits, loss and every parameter's gradient of one forward/backward in train mode (dropout is 0)."""
    family, attn = CASES[case]
    model = load(family, path(family), attn_implementation=attn)
    assert model.config._attn_implementation == attn, model.config._attn_implementation
    model.train()
    model.zero_grad()
    if family == "t5":
        result = model(input_ids=b["input_ids"], attention_mask=b["encoder_attention_mask"],
                       labels=b["decoder_labels"])
        # explicit decoder_input_ids (no labels) go through the same decoder
        out[f"{case}/decoder_logits"] = to_numpy(eval_logits(model, family, b))
        model.train()
    else:
        result = model(input_ids=b["input_ids"], attention_mask=b["attention_mask"], labels=b["labels"])
    result.loss.backward()
    out[f"{case}/logits"] = to_numpy(result.logits)
    out[f"{case}/loss"] = np.array(result.loss.item(), dtype=np.float64)
    for name, p in model.named_parameters():
        out[f"{case}/grad/{name}"] = to_numpy(p.grad) if p.grad is not None else np.zeros(tuple(p.shape), np.float32)
    return model


def save_bin(model, directory):
    """The legacy layout: config.json beside a torch.save'd state dict. (save_pretrained in transformers 5
    writes safetensors only; safe_serialization=False is ignored.)"""
    os.makedirs(directory, exist_ok=True)
    model.config.save_pretrained(directory)
    torch.save(model.state_dict(), os.path.join(directory, "pytorch_model.bin"))


def build(b, out):
    """Real torch: seeded random models saved in every layout the shim must read."""
    np.savez(path("batch.npz"), **b)
    b = tensors(b)
    for family, (cls, config) in FAMILIES.items():
        torch.manual_seed(0)
        model = cls(config()).float()
        model.save_pretrained(path(family))
        save_bin(model, path(f"{family}_bin"))
        model.save_pretrained(path(f"{family}_sharded"), max_shard_size=SHARD_SIZE)
        for name, tensor in model.state_dict().items():
            out[f"{family}/state/{name}"] = to_numpy(tensor)
        for dtype in ("float16", "bfloat16"):
            half = load(family, path(family), dtype=getattr(torch, dtype))
            out[f"{family}/param_dtypes_{dtype}"] = np.array(sorted({str(p.dtype) for p in half.parameters()}))
            out[f"{family}/logits_{dtype}"] = to_numpy(eval_logits(half, family, b))
    for case in CASES:
        step(case, b, out)


def shim(b, out):
    """The shim: the same step from the same checkpoints, every checkpoint layout, and save_pretrained."""
    b = tensors(b)
    for case in CASES:
        step(case, b, out)
    for family in FAMILIES:
        reference = load(family, path(family))
        for name, tensor in reference.state_dict().items():
            out[f"{family}/state/{name}"] = to_numpy(tensor)
        for layout in ("bin", "sharded"):
            model = load(family, path(f"{family}_{layout}"))
            out[f"{family}/logits_{layout}"] = to_numpy(eval_logits(model, family, b))
            for name, tensor in model.state_dict().items():
                out[f"{family}/state_{layout}/{name}"] = to_numpy(tensor)
        for dtype in ("float16", "bfloat16"):
            half = load(family, path(family), dtype=getattr(torch, dtype))
            out[f"{family}/param_dtypes_{dtype}"] = np.array(sorted({str(p.dtype) for p in half.parameters()}))
            for name, tensor in half.state_dict().items():
                out[f"{family}/state_{dtype}/{name}"] = to_numpy(tensor)
            out[f"{family}/logits_{dtype}"] = to_numpy(eval_logits(half, family, b))
        legacy = load(family, path(family), torch_dtype="float16")  # the keyword transformers 4 used
        out[f"{family}/param_dtypes_torch_dtype"] = np.array(sorted({str(p.dtype) for p in legacy.parameters()}))
        out[f"{family}/logits_saved"] = to_numpy(eval_logits(reference, family, b))
        reference.save_pretrained(path(f"shim_{family}"))
        save_bin(reference, path(f"shim_{family}_bin"))


def verify(b, out):
    """Real torch: what the shim saved loads here and gives the logits of the original checkpoint."""
    b = tensors(b)
    for family in FAMILIES:
        for layout in ("", "_bin"):
            model = load(family, path(f"shim_{family}{layout}"))
            out[f"{family}/logits_shim_saved{layout}"] = to_numpy(eval_logits(model, family, b))
        original = load(family, path(family))
        out[f"{family}/logits_original"] = to_numpy(eval_logits(original, family, b))


if __name__ == "__main__":
    torch.manual_seed(0)
    batch = make_batch() if args.phase == "build" else dict(np.load(path("batch.npz")))
    results = {}
    {"build": build, "shim": shim, "verify": verify}[args.phase](batch, results)
    np.savez(path(f"{args.phase}.npz"), **results)
    sys.stdout.flush()
    print(json.dumps({"phase": args.phase, "keys": len(results),
                      "files": sorted(os.listdir(args.workdir))}))
