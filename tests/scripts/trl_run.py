"""trl's SFTTrainer and DPOTrainer, unmodified, on a tiny causal LM that real PyTorch wrote: records the loss
(and for DPO the reward margin) of every step. Prints one JSON report as its last line.

    python trl_run.py --side torch --workdir D --write-model   # real torch: write the tiny model first
    python trl_run.py --side shim|torch --workdir D [--steps N]

Both sides load the same weights from D/tiny_lm, see the same data in the same order
(train_sampling_strategy="sequential") in float32 (bf16=False; trl's other defaults, gradient checkpointing
included, are kept), so their per-step losses must agree.
"""
import argparse
import json
import os

_parser = argparse.ArgumentParser()
_parser.add_argument("--side", choices=["shim", "torch"], default="shim")
_parser.add_argument("--workdir", required=True)
_parser.add_argument("--steps", type=int, default=3)
_parser.add_argument("--write-model", action="store_true")
_parser.add_argument("--trainers", default="sft,dpo")
ARGS = _parser.parse_args()

if ARGS.side == "shim":
    import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch  # noqa: E402
import datasets  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim") == (ARGS.side == "shim"), torch.__name__

MODEL_DIR = os.path.join(ARGS.workdir, "tiny_lm")
TEXTS = ["the cat sat on the mat", "a dog ran in the park", "the sun is warm today", "we like to read books",
         "the cat ran to the park", "a bird sat on the tree"]
PROMPTS = ["the cat", "a dog", "the sun", "we like"]
CHOSEN = [" sat on the mat", " ran in the park", " is warm today", " to read books"]
REJECTED = [" park the on", " mat warm sat", " books the ran", " tree is in"]


def write_model():
    """A 2-layer Llama with a word-level tokenizer over the data's words (real torch writes it once)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = sorted({w for text in TEXTS + PROMPTS + CHOSEN + REJECTED for w in text.split()})
    vocab = {tok: i for i, tok in enumerate(["<pad>", "<unk>", "<s>", "</s>"] + words)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>",
                                        bos_token="<s>", eos_token="</s>")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         pad_token_id=0, bos_token_id=2, eos_token_id=3, tie_word_embeddings=False)
    LlamaForCausalLM(config).save_pretrained(MODEL_DIR)
    tokenizer.save_pretrained(MODEL_DIR)


class Recorder:
    def __init__(self, keys):
        self.keys, self.rows = keys, []

    def callback(self):
        from transformers import TrainerCallback

        recorder = self

        class OnLog(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):
                if logs and "loss" in logs:
                    recorder.rows.append({k: float(logs[k]) for k in recorder.keys if k in logs})

        return OnLog()


COMMON = dict(max_steps=ARGS.steps, logging_steps=1, save_strategy="no", report_to=[], bf16=False, use_cpu=True,
              train_sampling_strategy="sequential", dataloader_num_workers=0, disable_tqdm=True, seed=0)


def run_sft():
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    recorder = Recorder(["loss", "grad_norm", "mean_token_accuracy"])
    args = SFTConfig(output_dir=os.path.join(ARGS.workdir, f"sft_{ARGS.side}"), per_device_train_batch_size=3,
                     learning_rate=1e-2, **COMMON)
    trainer = SFTTrainer(model=AutoModelForCausalLM.from_pretrained(MODEL_DIR), args=args,
                         processing_class=AutoTokenizer.from_pretrained(MODEL_DIR),
                         train_dataset=datasets.Dataset.from_dict({"text": TEXTS}), callbacks=[recorder.callback()])
    trainer.train()
    return {"steps": recorder.rows, "gradient_checkpointing": bool(trainer.model.is_gradient_checkpointing)}


def run_dpo():
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    recorder = Recorder(["loss", "grad_norm", "rewards/margins", "rewards/accuracies", "logps/chosen"])
    args = DPOConfig(output_dir=os.path.join(ARGS.workdir, f"dpo_{ARGS.side}"), per_device_train_batch_size=2,
                     learning_rate=1e-2, **COMMON)
    data = datasets.Dataset.from_dict({"prompt": PROMPTS, "chosen": CHOSEN, "rejected": REJECTED})
    trainer = DPOTrainer(model=AutoModelForCausalLM.from_pretrained(MODEL_DIR), args=args,
                         processing_class=AutoTokenizer.from_pretrained(MODEL_DIR), train_dataset=data,
                         callbacks=[recorder.callback()])
    trainer.train()
    return {"steps": recorder.rows}


def run_sft_defaults():
    """SFTTrainer with trl's own defaults (bf16 autocast, gradient checkpointing, shuffled batches) on the CPU."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    recorder = Recorder(["loss"])
    args = SFTConfig(output_dir=os.path.join(ARGS.workdir, f"sft_defaults_{ARGS.side}"), use_cpu=True,
                     max_steps=2 * ARGS.steps, per_device_train_batch_size=3, learning_rate=1e-2, logging_steps=1,
                     report_to=[], save_strategy="no", disable_tqdm=True)
    trainer = SFTTrainer(model=AutoModelForCausalLM.from_pretrained(MODEL_DIR), args=args,
                         processing_class=AutoTokenizer.from_pretrained(MODEL_DIR),
                         train_dataset=datasets.Dataset.from_dict({"text": TEXTS}), callbacks=[recorder.callback()])
    trainer.train()
    return {"steps": recorder.rows, "bf16": args.bf16, "gradient_checkpointing": args.gradient_checkpointing}


def main():
    if ARGS.write_model:
        write_model()
    runs = {"sft": run_sft, "dpo": run_dpo, "sft_defaults": run_sft_defaults}
    print(json.dumps({name: runs[name]() for name in ARGS.trainers.split(",")}))


if __name__ == "__main__":
    main()
