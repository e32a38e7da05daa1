"""Train a tiny random BertForSequenceClassification with the unmodified transformers Trainer on the shim and
print, as the last line, a JSON report for tests/test_trainer.py.

    trainer_run.py --scenario steps --output-dir D   # default optim, save every 10 steps, then predict,
                                                      # evaluate, save_model/from_pretrained, and resume
    trainer_run.py --scenario epoch --output-dir D   # optim="adamw_torch", save every epoch

The data set is learnable: class 0 sentences use token ids 5..49, class 1 ids 50..94, so the loss must fall.
"""
import argparse
import json
import os
import shutil
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--scenario", choices=["steps", "epoch"], required=True)
parser.add_argument("--output-dir", required=True)
args = parser.parse_args()

import mindnlp  # noqa: E402,F401  (installs the shim: `torch` below is the MindSpore-backed API)
import datasets  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim"), torch.__name__

N, LENGTH, VOCAB, NUM_LABELS = 64, 16, 100, 2
CONFIG = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
              max_position_embeddings=32, num_labels=NUM_LABELS)


def make_dataset(seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, NUM_LABELS, size=N)
    ids = rng.randint(5, 50, size=(N, LENGTH)) + 45 * labels[:, None]
    ids[:, 0] = 2  # a CLS-like first token
    lengths = rng.randint(LENGTH // 2, LENGTH + 1, size=N)
    mask = (np.arange(LENGTH)[None, :] < lengths[:, None]).astype(np.int64)
    return datasets.Dataset.from_dict({"input_ids": (ids * mask).tolist(), "attention_mask": mask.tolist(),
                                       "labels": labels.tolist()})


def new_model(seed):
    torch.manual_seed(seed)
    return BertForSequenceClassification(BertConfig(**CONFIG))


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}


def training_args(output_dir, **overrides):
    kwargs = dict(output_dir=output_dir, num_train_epochs=4, per_device_train_batch_size=8,
                  per_device_eval_batch_size=16, learning_rate=5e-3, logging_steps=2, seed=0, report_to=[],
                  disable_tqdm=True)
    kwargs.update(overrides)
    return TrainingArguments(**kwargs)


def losses(trainer):
    return [[h["step"], h["loss"]] for h in trainer.state.log_history if "loss" in h]


def checkpoints(output_dir):
    return {d: sorted(os.listdir(os.path.join(output_dir, d))) for d in sorted(os.listdir(output_dir))
            if d.startswith("checkpoint-")}


def optimizer_name(trainer):
    opt = getattr(trainer.optimizer, "optimizer", trainer.optimizer)  # accelerate wraps it
    return f"{type(opt).__module__}.{type(opt).__name__}"


def run_steps(output_dir):
    report = {}
    train, test = make_dataset(0), make_dataset(1)
    model = new_model(0)
    trainer = Trainer(model=model, args=training_args(output_dir, save_strategy="steps", save_steps=10),
                      train_dataset=train, eval_dataset=test, compute_metrics=compute_metrics)
    result = trainer.train()
    report.update(optim=str(trainer.args.optim), optimizer=optimizer_name(trainer), losses=losses(trainer),
                  global_step=trainer.state.global_step, training_loss=result.training_loss,
                  checkpoints=checkpoints(output_dir))

    prediction = trainer.predict(test)
    report["predict"] = {"predictions_shape": list(prediction.predictions.shape),
                         "label_ids": np.asarray(prediction.label_ids).tolist(),
                         "metrics": prediction.metrics}
    report["evaluate"] = trainer.evaluate()

    # save_model -> from_pretrained reproduces the trained model's logits
    final_dir = os.path.join(output_dir, "final")
    trainer.save_model(final_dir)
    report["final_files"] = sorted(os.listdir(final_dir))
    batch = {k: torch.tensor(test[:16][k]) for k in ("input_ids", "attention_mask")}
    model.eval()
    with torch.no_grad():
        before = model(**batch).logits.numpy().copy()
        reloaded = BertForSequenceClassification.from_pretrained(final_dir).eval()
        after = reloaded(**batch).logits.numpy().copy()
    report["reload_max_abs_diff"] = float(np.abs(before - after).max())
    report["reload_logits_absmax"] = float(np.abs(before).max())
    report["predict_vs_model_max_abs_diff"] = float(np.abs(prediction.predictions[:16] - before).max())

    # resume from the step-20 checkpoint (the latest once later ones are gone) and continue to the end
    resume_dir = output_dir + "-resume"
    shutil.copytree(output_dir, resume_dir, ignore=shutil.ignore_patterns("final"))
    for name in os.listdir(resume_dir):
        if name.startswith("checkpoint-") and int(name.split("-")[1]) > 20:
            shutil.rmtree(os.path.join(resume_dir, name))
    resumed = Trainer(model=new_model(123), args=training_args(resume_dir, save_strategy="steps", save_steps=10),
                      train_dataset=train, eval_dataset=test, compute_metrics=compute_metrics)
    resumed.train(resume_from_checkpoint=True)
    report["resume"] = {"global_step": resumed.state.global_step, "losses": losses(resumed),
                        "checkpoints": sorted(checkpoints(resume_dir))}
    return report


def run_epoch(output_dir):
    train = make_dataset(0)
    trainer = Trainer(model=new_model(0), args=training_args(output_dir, save_strategy="epoch", optim="adamw_torch"),
                      train_dataset=train)
    result = trainer.train()
    return {"optim": str(trainer.args.optim), "optimizer": optimizer_name(trainer), "losses": losses(trainer),
            "global_step": trainer.state.global_step, "training_loss": result.training_loss,
            "checkpoints": checkpoints(output_dir)}


if __name__ == "__main__":
    out = run_steps(args.output_dir) if args.scenario == "steps" else run_epoch(args.output_dir)
    sys.stdout.flush()
    print(json.dumps(out, default=float))
