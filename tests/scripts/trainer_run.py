"""Train a tiny random BertForSequenceClassification with the unmodified transformers Trainer on the shim and
print, as the last line, a JSON report for tests/test_trainer.py.

    trainer_run.py --scenario steps --output-dir D   # default optim, save every 10 steps, then predict,
                                                      # evaluate, save_model/from_pretrained, and resume
    trainer_run.py --scenario epoch --output-dir D   # optim="adamw_torch", save and evaluate every epoch,
                                                      # load the "best" checkpoint at the end
    trainer_run.py --scenario parity --side torch|shim --output-dir D  # a short run real torch repeats exactly
    trainer_run.py --scenario checkpointing --output-dir D  # gradient_checkpointing against a plain run

The data set is learnable: class 0 sentences use token ids 5..49, class 1 ids 50..94, so the loss must fall.
"""
import argparse
import inspect
import json
import os
import shutil
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--scenario", choices=["steps", "epoch", "parity", "checkpointing"], required=True)
parser.add_argument("--side", choices=["shim", "torch"], default="shim", help="torch: real PyTorch (parity only)")
parser.add_argument("--output-dir", required=True)
args = parser.parse_args()

if args.side == "shim":
    import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import datasets  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim") == (args.side == "shim"), torch.__name__
assert args.side == "shim" or args.scenario == "parity"

N, LENGTH, VOCAB, NUM_LABELS = 64, 16, 100, 2
STEPS = 32  # 4 epochs of 64 examples in batches of 8
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


def new_model(seed, **config):
    torch.manual_seed(seed)
    return BertForSequenceClassification(BertConfig(**CONFIG, **config))


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
    # the module object that defines the class, named as imported (mindnlp_shim.torch.* under the shim, whose
    # classes say torch's module in `__module__`)
    return f"{inspect.getmodule(type(opt)).__name__}.{type(opt).__name__}"


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
    train, test = make_dataset(0), make_dataset(1)
    # greater_is_better on the loss makes the first epoch the "best", so loading it at the end must really
    # replace the final weights
    trainer = Trainer(model=new_model(0), train_dataset=train, eval_dataset=test, compute_metrics=compute_metrics,
                      args=training_args(output_dir, save_strategy="epoch", optim="adamw_torch",
                                         eval_strategy="epoch", load_best_model_at_end=True,
                                         metric_for_best_model="loss", greater_is_better=True))
    result = trainer.train()
    report = {"optim": str(trainer.args.optim), "optimizer": optimizer_name(trainer), "losses": losses(trainer),
              "global_step": trainer.state.global_step, "training_loss": result.training_loss,
              "checkpoints": checkpoints(output_dir),
              "eval_losses": [[h["step"], h["eval_loss"]] for h in trainer.state.log_history if "eval_loss" in h],
              "best_model_checkpoint": trainer.state.best_model_checkpoint}
    def max_diff(folder):
        saved = load_file(os.path.join(folder, "model.safetensors"))
        live = trainer.model.state_dict()
        return max(float(np.abs(live[k].detach().numpy() - v.numpy()).max()) for k, v in saved.items())

    report["best_vs_live_max_abs_diff"] = max_diff(trainer.state.best_model_checkpoint)
    report["last_vs_live_max_abs_diff"] = max_diff(os.path.join(output_dir, f"checkpoint-{STEPS}"))
    report["final_eval_loss"] = trainer.evaluate()["eval_loss"]
    return report


def run_parity(output_dir):
    """A short run that real torch repeats exactly: dropout off, sequential sampling, initial weights written by
    the torch side and read by the shim side, warmup + linear decay, weight decay, clipping, 2 accumulation
    steps. Writes <side>_parity.npz with the final parameters; reports the logged history. The shim side then
    resumes real torch's step-4 checkpoint and reports how that continuation went."""
    model = new_model(0, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    init_path = os.path.join(output_dir, "parity_init.safetensors")
    if args.side == "torch":
        os.makedirs(output_dir, exist_ok=True)
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, init_path)
    else:
        model.load_state_dict(load_file(init_path))

    def parity_args(folder):
        return training_args(folder, max_steps=8, logging_steps=1, per_device_train_batch_size=4,
                             gradient_accumulation_steps=2, train_sampling_strategy="sequential",
                             save_strategy="steps", save_steps=4, warmup_steps=2, weight_decay=0.01)

    trainer = Trainer(model=model, train_dataset=make_dataset(0), args=parity_args(os.path.join(output_dir, args.side)))
    trainer.train()
    np.savez(os.path.join(output_dir, f"{args.side}_parity.npz"),
             **{k: v.detach().numpy() for k, v in model.state_dict().items()})
    report = history_of(trainer)
    report["optim"] = str(trainer.args.optim)
    if args.side == "shim":
        resumed = Trainer(model=new_model(123, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
                          train_dataset=make_dataset(0), args=parity_args(os.path.join(output_dir, "resumed")))
        try:
            resumed.train(resume_from_checkpoint=os.path.join(output_dir, "torch", "checkpoint-4"))
            report["resumed_from_torch"] = history_of(resumed)
        except Exception as error:  # reported, so that only the resume test fails
            report["resumed_from_torch"] = {"error": f"{type(error).__name__}: {error}"}
    return report


def history_of(trainer):
    history = [h for h in trainer.state.log_history if "loss" in h]
    return {"global_step": trainer.state.global_step, "steps": [h["step"] for h in history],
            "losses": [h["loss"] for h in history], "grad_norms": [h["grad_norm"] for h in history],
            "learning_rates": [h["learning_rate"] for h in history]}


def run_checkpointing(output_dir):
    """gradient_checkpointing=True recomputes activations in backward: with dropout off it must take exactly
    the steps of a plain run from the same weights on the same batches."""
    runs = {}
    for name, checkpointing in (("plain", False), ("checkpointed", True)):
        model = new_model(0, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        trainer = Trainer(model=model, train_dataset=make_dataset(0),
                          args=training_args(os.path.join(output_dir, name), max_steps=4, logging_steps=1,
                                             train_sampling_strategy="sequential", save_strategy="no",
                                             gradient_checkpointing=checkpointing))
        trainer.train()
        runs[name] = {"history": history_of(trainer), "gradient_checkpointing": model.is_gradient_checkpointing,
                      "params": {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}}
    plain, checkpointed = runs["plain"], runs["checkpointed"]
    return {"enabled": [plain["gradient_checkpointing"], checkpointed["gradient_checkpointing"]],
            "plain": plain["history"], "checkpointed": checkpointed["history"],
            "param_max_abs_diff": max(float(np.abs(plain["params"][k] - checkpointed["params"][k]).max())
                                      for k in plain["params"])}


SCENARIOS = {"steps": run_steps, "epoch": run_epoch, "parity": run_parity, "checkpointing": run_checkpointing}


if __name__ == "__main__":
    out = SCENARIOS[args.scenario](args.output_dir)
    sys.stdout.flush()
    print(json.dumps(out, default=float))
