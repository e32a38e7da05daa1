"""Trainer feature scenarios for tests/test_trainer_features.py (see tiny_trainer.py for the command line).

Strategies, optimization, customisation, outputs and tooling, each on the tiny random BERT. Scenarios whose
numbers are compared with real PyTorch (`optimizers`, `schedulers`) also run with `--side torch`.
"""
import contextlib
import io
import json
import os

import numpy as np

import tiny_trainer as tt
from tiny_trainer import Trainer, TrainerCallback, torch


class ScriptedMetric:
    """compute_metrics that reports the given scores in turn as "score" (and the real accuracy), so which
    checkpoint is best is decided by the test, not by training noise."""

    def __init__(self, scores):
        self.scores = list(scores)
        self.calls = 0

    def __call__(self, eval_pred):
        score = self.scores[min(self.calls, len(self.scores) - 1)]
        self.calls += 1
        logits, labels = eval_pred
        return {"score": score, "accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}


class CheckpointWatcher(TrainerCallback):
    """Lists the checkpoint folders after every save, to see rotation happen during training."""

    def __init__(self):
        self.after_save = []

    def on_save(self, args, state, control, **kwargs):
        self.after_save.append([state.global_step, sorted(tt.checkpoints(args.output_dir))])


def _saved_vs_live(trainer, folder):
    from safetensors.numpy import load_file

    saved = load_file(os.path.join(folder, "model.safetensors"))
    live = tt.params_numpy(trainer.model)
    return max(float(np.abs(live[k] - v).max()) for k, v in saved.items())


def _strategy_report(trainer, watcher, output_dir):
    return {"loss_steps": [s for s, _ in tt.history(trainer, "loss")],
            "eval_steps": [s for s, _ in tt.history(trainer, "eval_loss")],
            "eval_scores": tt.history(trainer, "eval_score"), "after_save": watcher.after_save,
            "checkpoints": sorted(tt.checkpoints(output_dir)), "global_step": trainer.state.global_step,
            "best_model_checkpoint": trainer.state.best_model_checkpoint,
            "best_metric": trainer.state.best_metric}


def strategies_steps(output_dir):
    watcher = CheckpointWatcher()
    trainer = Trainer(
        model=tt.bert(0), train_dataset=tt.classification_data(0), eval_dataset=tt.classification_data(1, n=16),
        compute_metrics=ScriptedMetric([0.2, 0.9, 0.5, 0.7]), callbacks=[watcher],
        args=tt.training_args(output_dir, max_steps=12, eval_strategy="steps", eval_steps=3, save_strategy="steps",
                              save_steps=3, logging_strategy="steps", logging_steps=4, logging_first_step=True,
                              save_total_limit=2, load_best_model_at_end=True, metric_for_best_model="score",
                              greater_is_better=True))
    trainer.train()
    report = _strategy_report(trainer, watcher, output_dir)
    report["best_vs_live"] = _saved_vs_live(trainer, os.path.join(output_dir, "checkpoint-6"))
    report["last_vs_live"] = _saved_vs_live(trainer, os.path.join(output_dir, "checkpoint-12"))
    return report


def strategies_epoch(output_dir):
    watcher = CheckpointWatcher()
    trainer = Trainer(
        model=tt.bert(0), train_dataset=tt.classification_data(0), eval_dataset=tt.classification_data(1, n=16),
        compute_metrics=ScriptedMetric([0.5, 0.1, 0.3]), callbacks=[watcher],
        args=tt.training_args(output_dir, num_train_epochs=3, eval_strategy="epoch", save_strategy="epoch",
                              logging_strategy="epoch", save_total_limit=1, load_best_model_at_end=True,
                              metric_for_best_model="score", greater_is_better=False))
    trainer.train()
    report = _strategy_report(trainer, watcher, output_dir)
    report["best_vs_live"] = _saved_vs_live(trainer, os.path.join(output_dir, "checkpoint-10"))
    return report


def strategies_no(output_dir):
    watcher = CheckpointWatcher()
    metric = ScriptedMetric([0.5])
    trainer = Trainer(
        model=tt.bert(0), train_dataset=tt.classification_data(0), eval_dataset=tt.classification_data(1, n=16),
        compute_metrics=metric, callbacks=[watcher],
        args=tt.training_args(output_dir, max_steps=4, eval_strategy="no", save_strategy="no",
                              logging_strategy="no"))
    trainer.train()
    report = _strategy_report(trainer, watcher, output_dir)
    report["metric_calls"] = metric.calls
    report["history_keys"] = [sorted(h) for h in trainer.state.log_history]
    report["output_dir_exists"] = os.path.isdir(output_dir)
    return report


def more_arguments(output_dir):
    """eval_on_start, eval_delay, save_strategy="best", save_only_model, include_num_input_tokens_seen in one run;
    prediction_loss_only and eval_accumulation_steps in predict()."""
    watcher = CheckpointWatcher()
    metric = ScriptedMetric([0.5, 0.3, 0.7])
    trainer = Trainer(
        model=tt.bert(0), train_dataset=tt.classification_data(0), eval_dataset=tt.classification_data(1, n=16),
        compute_metrics=metric, callbacks=[watcher],
        args=tt.training_args(output_dir, max_steps=8, eval_strategy="steps", eval_steps=2, eval_delay=3,
                              save_strategy="best", metric_for_best_model="score", save_only_model=True,
                              include_num_input_tokens_seen=True))
    trainer.train()
    report = _strategy_report(trainer, watcher, output_dir)
    report["checkpoint_files"] = tt.checkpoints(output_dir)
    report["num_input_tokens_seen"] = trainer.state.num_input_tokens_seen
    start = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=8),
                    eval_dataset=tt.classification_data(1, n=8),
                    args=tt.training_args(output_dir + "-start", max_steps=1, eval_strategy="steps", eval_steps=5,
                                          eval_on_start=True))
    start.train()
    report["eval_on_start_steps"] = [s for s, _ in tt.history(start, "eval_loss")]
    test = tt.classification_data(1, n=20)
    full = trainer.predict(test)
    accumulated = Trainer(model=trainer.model, args=tt.training_args(output_dir + "-pred", eval_accumulation_steps=1,
                                                                      per_device_eval_batch_size=8)).predict(test)
    loss_only = Trainer(model=trainer.model, args=tt.training_args(output_dir + "-loss", prediction_loss_only=True,
                                                                    per_device_eval_batch_size=8)).predict(test)
    report["eval_accumulation_max_abs_diff"] = float(np.abs(accumulated.predictions - full.predictions).max())
    report["eval_accumulation_shape"] = list(accumulated.predictions.shape)
    report["loss_only"] = {"predictions": loss_only.predictions is None, "label_ids": loss_only.label_ids is None,
                           "test_loss": loss_only.metrics["test_loss"], "full_test_loss": full.metrics["test_loss"]}
    return report


# --- optimization -------------------------------------------------------------------------------------------

def numpy_initialised_bert():
    """The tiny BERT (dropout off) with weights drawn by NumPy, so real torch and the shim start identically."""
    model = tt.bert(0, dropout=False)
    rng = np.random.RandomState(1234)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            if name.endswith("weight") and "LayerNorm" not in name:
                param.copy_(torch.tensor(rng.normal(0.0, 0.05, param.shape).astype(np.float32)))
            elif name.endswith("bias"):
                param.copy_(torch.tensor(rng.normal(0.0, 0.01, param.shape).astype(np.float32)))
    return model


def _deterministic_run(output_dir, model=None, **overrides):
    """Dropout off, examples in order: two runs (or two frameworks) see exactly the same batches."""
    model = model or numpy_initialised_bert()
    settings = dict(train_sampling_strategy="sequential", max_steps=3)
    settings.update(overrides)
    trainer = Trainer(model=model, train_dataset=tt.classification_data(0, n=40),
                      args=tt.training_args(output_dir, **settings))
    trainer.train()
    return trainer


OPTIMS = ["adamw_torch_fused", "adamw_torch", "sgd", "adagrad", "rmsprop", "adafactor"]


def optimizers(output_dir):
    """Three steps with each optim (weight decay on); final parameters go to <optim>_<side>.npz beside output_dir."""
    report = {}
    for optim in OPTIMS:
        lr = 3e-2 if optim in ("sgd", "adagrad") else 5e-3
        trainer = _deterministic_run(os.path.join(output_dir, optim), optim=optim, learning_rate=lr,
                                     weight_decay=0.01, lr_scheduler_type="constant")
        np.savez(os.path.join(os.path.dirname(output_dir), f"{optim}_{tt.SIDE}.npz"),
                 **tt.params_numpy(trainer.model))
        optimizer = tt.unwrapped_optimizer(trainer)
        report[optim] = {"losses": tt.values(trainer, "loss"), "grad_norms": tt.values(trainer, "grad_norm"),
                         "optimizer": tt.qualified_name(optimizer),
                         "defaults": {k: v for k, v in optimizer.defaults.items()
                                      if isinstance(v, (int, float, bool, str, tuple, type(None)))}}
    return report


SCHEDULERS = {
    "linear": {}, "cosine": {}, "cosine_with_restarts": {"num_cycles": 2}, "polynomial": {"power": 2.0},
    "constant": {}, "constant_with_warmup": {}, "inverse_sqrt": {}, "cosine_with_min_lr": {"min_lr": 1e-3},
    "warmup_stable_decay": {"num_decay_steps": 3},
}


def schedulers(output_dir):
    """The learning rate of each logged step for every lr_scheduler_type, and warmup_steps as a ratio."""
    model = numpy_initialised_bert()
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    report = {}
    runs = [(name, name, 2, kwargs) for name, kwargs in SCHEDULERS.items()]
    runs.append(("linear_warmup_ratio", "linear", 0.25, {}))  # 0.25 of 8 steps: 2 warmup steps
    for label, name, warmup, kwargs in runs:
        model.load_state_dict(initial)
        trainer = _deterministic_run(os.path.join(output_dir, label), model=model, max_steps=8,
                                     per_device_train_batch_size=4, lr_scheduler_type=name,
                                     lr_scheduler_kwargs=kwargs, warmup_steps=warmup, learning_rate=1e-2)
        report[label] = {"learning_rates": tt.values(trainer, "learning_rate"),
                         "scheduler": tt.qualified_name(trainer.lr_scheduler),
                         "warmup_steps": trainer.args.get_warmup_steps(8)}
    return report


def reduce_lr_on_plateau(output_dir):
    # no improvement at evaluations 3, 5 and 6: with patience 0 the rate halves after each of them
    trainer = Trainer(
        model=numpy_initialised_bert(), train_dataset=tt.classification_data(0, n=40),
        eval_dataset=tt.classification_data(1, n=8), compute_metrics=ScriptedMetric([0.5, 0.6, 0.6, 0.7, 0.4, 0.4]),
        args=tt.training_args(output_dir, max_steps=6, train_sampling_strategy="sequential", eval_strategy="steps",
                              eval_steps=1, lr_scheduler_type="reduce_lr_on_plateau", metric_for_best_model="score",
                              greater_is_better=True, lr_scheduler_kwargs={"patience": 0, "factor": 0.5},
                              learning_rate=1e-2))
    trainer.train()
    optimizer = tt.unwrapped_optimizer(trainer)
    return {"learning_rates": tt.values(trainer, "learning_rate"), "scheduler": tt.qualified_name(trainer.lr_scheduler),
            "final_lrs": [g["lr"] for g in optimizer.param_groups], "mode": trainer.lr_scheduler.mode}


def grad_accumulation(output_dir):
    """16 examples per optimizer step as 1x16, 2x8 and 4x4 micro-batches (dropout off, plain SGD). BERT's
    forward accepts loss kwargs but its classification loss ignores num_items_in_batch, so upstream's Trainer
    sums the micro-batches' mean losses ("upstream_default", compared with real torch); a model that says
    accepts_loss_kwargs=False gets them averaged, which equals the large batch ("mean")."""
    report = {}
    for variant in ("upstream_default", "mean"):
        params = {}
        for batch, accumulation in [(16, 1), (8, 2), (4, 4)]:
            model = numpy_initialised_bert()
            if variant == "mean":
                model.accepts_loss_kwargs = False
            key = f"{batch}x{accumulation}"
            trainer = _deterministic_run(os.path.join(output_dir, f"{variant}_{key}"), model=model, optim="sgd",
                                         learning_rate=0.5, per_device_train_batch_size=batch,
                                         gradient_accumulation_steps=accumulation, lr_scheduler_type="constant")
            report[f"{variant}_{key}"] = {"losses": tt.values(trainer, "loss"),
                                          "grad_norms": tt.values(trainer, "grad_norm")}
            params[key] = tt.params_numpy(model)
        for key in params:
            report[f"{variant}_{key}"]["max_param_diff_vs_16x1"] = tt.max_param_diff(params[key], params["16x1"])
    report["update_size"] = tt.max_param_diff(params["16x1"], tt.params_numpy(numpy_initialised_bert()))
    return report


def max_grad_norm(output_dir):
    """One plain SGD step: the step's size over lr is the clipped gradient norm."""
    report = {}
    for clip in (0.05, 0.0, 1e6):
        model = numpy_initialised_bert()
        before = tt.params_numpy(model)
        trainer = _deterministic_run(os.path.join(output_dir, str(clip)), model=model, optim="sgd", max_steps=1,
                                     learning_rate=0.1, max_grad_norm=clip, lr_scheduler_type="constant")
        after = tt.params_numpy(model)
        step = np.sqrt(sum(float(((after[k] - before[k]).astype(np.float64) ** 2).sum()) for k in before))
        report[str(clip)] = {"step_norm_over_lr": step / 0.1, "logged_grad_norms": tt.values(trainer, "grad_norm")}
    return report


def weight_decay_groups(output_dir):
    model = numpy_initialised_bert()
    trainer = _deterministic_run(output_dir, model=model, max_steps=1, weight_decay=0.05, adam_beta1=0.8,
                                 adam_beta2=0.99, adam_epsilon=1e-6)
    names = {id(p): n for n, p in model.named_parameters()}
    groups = tt.unwrapped_optimizer(trainer).param_groups
    return {"groups": [{"weight_decay": g["weight_decay"], "betas": list(g["betas"]), "eps": g["eps"],
                        "names": sorted(names[id(p)] for p in g["params"])} for g in groups],
            "decay_names_upstream": sorted(trainer.get_decay_parameter_names(model)),
            "all_names": sorted(names.values())}


def unsupported_optims(output_dir):
    """What TrainingArguments/Trainer say for optimizers whose packages cannot run on MindSpore."""
    report = {}
    for optim in ["adamw_bnb_8bit", "adamw_8bit", "paged_adamw_32bit", "lion_8bit", "rmsprop_bnb", "ademamix",
                  "adamw_torch_4bit", "adamw_torch_8bit", "adamw_torch_xla", "adamw_torch_npu_fused",
                  "adamw_anyprecision", "galore_adamw_8bit", "adamw_torch", "adafactor"]:
        try:
            tt.training_args(os.path.join(output_dir, optim), optim=optim, max_steps=1)
            report[optim] = {"raised": None}
        except Exception as error:  # noqa: BLE001  (the test checks the type and message)
            report[optim] = {"raised": type(error).__name__, "message": str(error)}
    return report


# --- customisation ------------------------------------------------------------------------------------------

CLASS_WEIGHTS = [1.0, 4.0]


class WeightedLossTrainer(Trainer):
    """The guides' example: a class-weighted CrossEntropyLoss in an overridden compute_loss."""

    calls = []

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.get("logits")
        loss_fct = torch.nn.CrossEntropyLoss(weight=torch.tensor(CLASS_WEIGHTS, device=model.device))
        loss = loss_fct(logits.view(-1, self.model.config.num_labels), labels.view(-1))
        self.calls.append({"logits": logits.detach().numpy().tolist(), "labels": labels.numpy().tolist(),
                           "loss": float(loss.item()), "return_outputs": return_outputs,
                           "num_items_in_batch": None if num_items_in_batch is None else int(num_items_in_batch)})
        return (loss, outputs) if return_outputs else loss


def compute_loss_override(output_dir):
    WeightedLossTrainer.calls = []
    trainer = WeightedLossTrainer(model=numpy_initialised_bert(), train_dataset=tt.classification_data(0),
                                  args=tt.training_args(output_dir, max_steps=3))
    trainer.train()
    report = {"calls": WeightedLossTrainer.calls, "logged_losses": tt.values(trainer, "loss")}

    # the same loss as a compute_loss_func (what PaddleNLP's `criterion=` maps to), no subclass
    func_calls = []

    def weighted_loss(outputs, labels, num_items_in_batch=None):
        weights = torch.tensor(CLASS_WEIGHTS)
        loss = torch.nn.functional.cross_entropy(outputs["logits"], labels, weight=weights)
        func_calls.append({"logits": outputs["logits"].detach().numpy().tolist(), "labels": labels.numpy().tolist(),
                           "loss": float(loss.item()), "num_items_in_batch": int(num_items_in_batch)})
        return loss

    with_func = Trainer(model=numpy_initialised_bert(), train_dataset=tt.classification_data(0),
                        compute_loss_func=weighted_loss,
                        args=tt.training_args(output_dir + "-func", max_steps=3))
    with_func.train()
    report.update(func_calls=func_calls, func_logged_losses=tt.values(with_func, "loss"))
    return report


class ReversedOrderTrainer(Trainer):
    """Overrides get_train_dataloader (examples in reverse order, batches of 4) and training_step (records)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.step_losses, self.batches = [], []

    def get_train_dataloader(self):
        from torch.utils.data import DataLoader

        from transformers import default_data_collator

        order = list(range(len(self.train_dataset)))[::-1]
        return DataLoader(self.train_dataset, batch_size=4, sampler=order, collate_fn=default_data_collator)

    def training_step(self, model, inputs, num_items_in_batch=None):
        self.batches.append(tt.batch_signature(inputs))
        loss = super().training_step(model, inputs, num_items_in_batch)
        self.step_losses.append(float(loss.item()))
        return loss


def custom_dataloader_and_training_step(output_dir):
    data = tt.classification_data(0, n=12)
    trainer = ReversedOrderTrainer(model=tt.bert(0), train_dataset=data,
                                   args=tt.training_args(output_dir, num_train_epochs=1))
    trainer.train()
    rows = np.asarray(data["input_ids"]).sum(axis=1).tolist()[::-1]
    return {"batches": trainer.batches, "expected": [rows[i:i + 4] for i in range(0, 12, 4)],
            "step_losses": trainer.step_losses, "logged_losses": tt.values(trainer, "loss"),
            "global_step": trainer.state.global_step}


EVENTS = ["on_init_end", "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_step_begin",
          "on_pre_optimizer_step", "on_optimizer_step", "on_substep_end", "on_step_end", "on_evaluate",
          "on_predict", "on_save", "on_log", "on_prediction_step"]


class EventRecorder(TrainerCallback):
    """Records every event it receives as [event, global_step]; one shared log across instances."""

    log = []

    def __init__(self, tag="class"):
        self.tag = tag


def _recording(event):
    def handler(self, args, state, control, **kwargs):
        EventRecorder.log.append([self.tag, event, state.global_step])
    return handler


for _event in EVENTS:
    setattr(EventRecorder, _event, _recording(_event))


def callbacks_order(output_dir):
    """A callback passed as a class and one as an instance, 3 steps, evaluation and saving at the epoch end."""
    EventRecorder.log = []
    instance = EventRecorder("instance")
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=24),
                      eval_dataset=tt.classification_data(1, n=8), callbacks=[EventRecorder, instance],
                      args=tt.training_args(output_dir, num_train_epochs=1, logging_steps=2, eval_strategy="epoch",
                                            save_strategy="epoch"))
    trainer.train()
    names = [type(cb).__name__ for cb in trainer.callback_handler.callbacks]
    trainer.pop_callback(instance)
    names_after_pop = [type(cb).__name__ for cb in trainer.callback_handler.callbacks]
    return {"log": EventRecorder.log, "callbacks": names, "callbacks_after_pop": names_after_pop}


class Controller(TrainerCallback):
    """Sets TrainerControl flags a user's callback would: the Trainer must act on each."""

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == 1:
            control.should_log = True
        if state.global_step == 2:
            control.should_save = True
        if state.global_step == 3:
            control.should_evaluate = True
        if state.global_step == 4:
            control.should_training_stop = True


def callback_control(output_dir):
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0),
                      eval_dataset=tt.classification_data(1, n=8), callbacks=[Controller()],
                      args=tt.training_args(output_dir, max_steps=20, logging_strategy="no", eval_strategy="no",
                                            save_strategy="no"))
    trainer.train()
    return {"loss_steps": [s for s, _ in tt.history(trainer, "loss")],
            "eval_steps": [s for s, _ in tt.history(trainer, "eval_loss")],
            "checkpoints": sorted(tt.checkpoints(output_dir)), "global_step": trainer.state.global_step}


def early_stopping(output_dir):
    from transformers import EarlyStoppingCallback

    # best at the 2nd evaluation; the 3rd and 4th do not improve on it: patience 2 stops after step 4
    metric = ScriptedMetric([0.5, 0.6, 0.55, 0.58, 0.9, 0.9])
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0),
                      eval_dataset=tt.classification_data(1, n=8), compute_metrics=metric,
                      callbacks=[EarlyStoppingCallback(early_stopping_patience=2)],
                      args=tt.training_args(output_dir, max_steps=20, eval_strategy="steps", eval_steps=1,
                                            save_strategy="steps", save_steps=1, save_total_limit=1,
                                            load_best_model_at_end=True, metric_for_best_model="score"))
    trainer.train()
    return {"global_step": trainer.state.global_step, "metric_calls": metric.calls,
            "best_model_checkpoint": os.path.basename(trainer.state.best_model_checkpoint),
            "checkpoints": sorted(tt.checkpoints(output_dir)),
            "best_vs_live": _saved_vs_live(trainer, trainer.state.best_model_checkpoint)}


# --- outputs ------------------------------------------------------------------------------------------------

def accuracy(eval_pred):
    """compute_metrics reading the EvalPrediction's fields (with include_for_metrics=["inputs"] it also holds
    the input ids, so it unpacks into three values, not two)."""
    predictions, labels = eval_pred.predictions, eval_pred.label_ids
    accuracy.seen.append({"type": type(eval_pred).__name__, "fields": len(tuple(eval_pred)),
                          "inputs_shape": list(np.shape(eval_pred.inputs)),
                          "predictions_shape": list(np.shape(predictions))})
    return {"accuracy": float((np.argmax(predictions, axis=-1) == labels).mean())}


accuracy.seen = []


class BatchAccuracy:
    """compute_metrics for batch_eval_metrics=True: called per batch, the last call (compute_result) reports."""

    def __init__(self):
        self.correct = self.total = 0
        self.calls = []

    def __call__(self, eval_pred, compute_result):
        predictions, labels = eval_pred.predictions, eval_pred.label_ids
        self.calls.append({"compute_result": bool(compute_result), "is_tensor": isinstance(predictions, torch.Tensor),
                           "rows": int(predictions.shape[0])})
        self.correct += int((predictions.argmax(-1) == labels).sum().item())
        self.total += int(labels.shape[0])
        if compute_result:
            result = {"accuracy": self.correct / self.total}
            self.correct = self.total = 0
            return result
        return {}


def outputs(output_dir):
    train, test = tt.classification_data(0), tt.classification_data(1, n=20)
    accuracy.seen = []
    trainer = Trainer(model=tt.bert(0), train_dataset=train, eval_dataset=test, compute_metrics=accuracy,
                      args=tt.training_args(output_dir, num_train_epochs=2, per_device_eval_batch_size=8,
                                            eval_strategy="epoch", include_for_metrics=["inputs"]))
    result = trainer.train()
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_state()
    prediction = trainer.predict(test)
    evaluation = trainer.evaluate()
    trainer.save_metrics("eval", evaluation)
    model = trainer.model.eval()
    with torch.no_grad():
        logits = model(**{k: torch.tensor(test[k]) for k in ("input_ids", "attention_mask")}).logits.numpy()
    batch_metric = BatchAccuracy()
    batched = Trainer(model=trainer.model, eval_dataset=test, compute_metrics=batch_metric,
                      args=tt.training_args(output_dir + "-batched", per_device_eval_batch_size=8,
                                            batch_eval_metrics=True))
    batched_eval = batched.evaluate()
    files = {name: json.load(open(os.path.join(output_dir, name)))
             for name in ("train_results.json", "eval_results.json", "all_results.json", "trainer_state.json")}
    return {"train_metrics": result.metrics, "predict": {"shape": list(prediction.predictions.shape),
            "label_ids": np.asarray(prediction.label_ids).tolist(), "metrics": prediction.metrics,
            "max_abs_diff_vs_model": float(np.abs(prediction.predictions - logits).max())},
            "labels": test["labels"], "evaluate": evaluation, "batched_evaluate": batched_eval,
            "batched_calls": batch_metric.calls, "metric_inputs_seen": accuracy.seen, "files": files,
            "eval_accuracy_from_logits": float((logits.argmax(-1) == np.asarray(test["labels"])).mean())}


# --- tooling ------------------------------------------------------------------------------------------------

def hf_argument_parser(output_dir):
    from dataclasses import dataclass, field

    from transformers import HfArgumentParser, TrainingArguments

    @dataclass
    class ModelArguments:
        hidden_size: int = field(default=32, metadata={"help": "width of the tiny BERT"})
        task: str = "sentiment"

    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    cli = ["--output_dir", output_dir, "--max_steps", "2", "--learning_rate", "0.01", "--hidden_size", "48",
           "--task", "topics", "--lr_scheduler_type", "cosine", "--report_to", "none", "--logging_steps", "1",
           "--save_strategy", "no", "--disable_tqdm", "true", "--per_device_train_batch_size", "4"]
    model_args, train_args = parser.parse_args_into_dataclasses(args=cli)
    json_file = os.path.join(os.path.dirname(output_dir), "hf_args.json")
    with open(json_file, "w") as f:
        json.dump({"output_dir": output_dir, "max_steps": 2, "learning_rate": 0.01, "hidden_size": 48,
                   "task": "topics", "lr_scheduler_type": "cosine", "report_to": "none", "logging_steps": 1,
                   "save_strategy": "no", "disable_tqdm": True, "per_device_train_batch_size": 4}, f)
    json_model_args, json_train_args = parser.parse_json_file(json_file)
    trainer = Trainer(model=tt.bert(0, hidden_size=model_args.hidden_size), args=train_args,
                      train_dataset=tt.classification_data(0, n=8))
    trainer.train()

    def summary(m, t):
        return {"hidden_size": m.hidden_size, "task": m.task, "max_steps": t.max_steps,
                "learning_rate": t.learning_rate, "lr_scheduler_type": str(t.lr_scheduler_type),
                "report_to": t.report_to, "batch": t.per_device_train_batch_size}

    return {"cli": summary(model_args, train_args), "json": summary(json_model_args, json_train_args),
            "global_step": trainer.state.global_step, "losses": tt.values(trainer, "loss")}


class EmbeddingCapture(TrainerCallback):
    """On train begin (after the Trainer put NEFTune's hook on the input embeddings) adds a hook behind it that
    keeps what the embedding layer hands on, with the ids it looked up."""

    def __init__(self):
        self.seen = []

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        def keep(module, inputs, output):
            self.seen.append((module.training, inputs[0].numpy().copy(), output.detach().numpy().copy(),
                              module.weight.detach().numpy().copy()))
        self.handle = model.get_input_embeddings().register_forward_hook(keep)

    def on_train_end(self, args, state, control, **kwargs):
        self.handle.remove()


def neftune(output_dir):
    capture = EmbeddingCapture()
    alpha = 5.0
    model = tt.bert(0)
    trainer = Trainer(model=model, train_dataset=tt.classification_data(0, n=16),
                      eval_dataset=tt.classification_data(1, n=8), callbacks=[capture],
                      args=tt.training_args(output_dir, max_steps=2, neftune_noise_alpha=alpha, eval_strategy="steps",
                                            eval_steps=2))
    trainer.train()
    records = []
    for training, ids, output, weight in capture.seen:
        noise = output - weight[ids]
        bound = alpha / np.sqrt(ids.shape[1] * output.shape[-1])  # NEFTune: alpha / sqrt(L * d)
        records.append({"training": training, "max_abs_noise": float(np.abs(noise).max()), "bound": float(bound),
                        "mean_noise": float(noise.mean())})
    embeddings = model.get_input_embeddings()
    model.train()
    ids = torch.tensor([[2, 7, 9, 11]])
    after = embeddings(ids).detach().numpy()
    return {"records": records, "hooks_left_after_train": len(embeddings._forward_hooks),
            "after_train_max_abs_noise": float(np.abs(after - embeddings.weight.detach().numpy()[ids.numpy()]).max())}


def peft_lora(output_dir):
    from peft import LoraConfig, PeftModel, get_peft_model

    config = LoraConfig(task_type="SEQ_CLS", r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["query", "value"])
    model = get_peft_model(tt.bert(0, dropout=False), config)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    lora_b_before = float(sum(float(p.abs().sum()) for n, p in model.named_parameters() if "lora_B" in n))
    trainer = Trainer(model=model, train_dataset=tt.classification_data(0),
                      args=tt.training_args(output_dir, max_steps=6, learning_rate=2e-2))
    trainer.train()
    lora_b_after = float(sum(float(p.abs().sum()) for n, p in model.named_parameters() if "lora_B" in n))
    adapter_dir = os.path.join(output_dir, "adapter")
    model.save_pretrained(adapter_dir)
    test = tt.classification_data(1, n=8)
    batch = {k: torch.tensor(test[k]) for k in ("input_ids", "attention_mask")}
    model.eval()
    with torch.no_grad():
        trained = model(**batch).logits.numpy().copy()
        reloaded = PeftModel.from_pretrained(tt.bert(0, dropout=False), adapter_dir).eval()
        reloaded_logits = reloaded(**batch).logits.numpy().copy()
        merged = reloaded.merge_and_unload().eval()
        merged_logits = merged(**batch).logits.numpy().copy()
        base_logits = tt.bert(0, dropout=False).eval()(**batch).logits.numpy()
    return {"trainable": trainable, "total": total, "lora_b_before": lora_b_before, "lora_b_after": lora_b_after,
            "losses": tt.values(trainer, "loss"), "adapter_files": sorted(os.listdir(adapter_dir)),
            "reload_max_abs_diff": float(np.abs(reloaded_logits - trained).max()),
            "merged_max_abs_diff": float(np.abs(merged_logits - trained).max()),
            "vs_base_max_abs_diff": float(np.abs(base_logits - trained).max()),
            "merged_type": type(merged).__name__,
            "merged_has_lora": any("lora" in n for n, _ in merged.named_parameters())}


def tensorboard(output_dir):
    """report_to=["tensorboard"]: the Trainer's TensorBoardCallback writes event files TensorBoard reads back."""
    import glob

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=24),
                      eval_dataset=tt.classification_data(1, n=8),
                      args=tt.training_args(output_dir, max_steps=3, report_to=["tensorboard"], eval_strategy="steps",
                                            eval_steps=3))
    trainer.train()
    files = glob.glob(os.path.join(output_dir, "runs", "*", "events.out.tfevents.*"))
    events = EventAccumulator(os.path.dirname(files[0]), size_guidance={"tensors": 0, "scalars": 0})
    events.Reload()
    tags = events.Tags()
    scalars = {tag: [[e.step, e.value] for e in events.Scalars(tag)] for tag in tags["scalars"]}
    texts = {tag: events.Tensors(tag)[0].tensor_proto.string_val[0].decode()[:200] for tag in tags["tensors"]}

    # the writer on its own: add_scalars writes one series per key; unsupported summaries say so
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(os.path.join(output_dir, "direct")) as writer:
        writer.add_scalars("pair", {"a": 1.0, "b": torch.tensor(2.5)}, 7)
        try:
            writer.add_histogram("h", torch.ones(3))
            histogram_error = None
        except NotImplementedError as error:
            histogram_error = str(error)
    series = {}
    for name in ("pair_a", "pair_b"):
        child = EventAccumulator(os.path.join(output_dir, "direct", name))
        child.Reload()
        series[name] = [[e.step, e.value] for e in child.Scalars("pair")]
    return {"event_files": len(files), "scalars": scalars, "texts": texts,
            "losses": tt.history(trainer, "loss"), "eval_losses": tt.history(trainer, "eval_loss"),
            "writer_class": [tt.defining_name(cb._SummaryWriter)
                             for cb in trainer.callback_handler.callbacks if hasattr(cb, "_SummaryWriter")],
            "callbacks": [type(cb).__name__ for cb in trainer.callback_handler.callbacks],
            "add_scalars": series, "histogram_error": histogram_error}


def hyperparameter_search(output_dir):
    """hyperparameter_search with optuna: model_init builds each trial's model, 2 trials, best by eval loss."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    inits = []

    def model_init(trial=None):
        inits.append(None if trial is None else dict(trial.params))
        return tt.bert(0)

    def hp_space(trial):
        return {"learning_rate": trial.suggest_float("learning_rate", 1e-4, 1e-2, log=True),
                "per_device_train_batch_size": trial.suggest_categorical("per_device_train_batch_size", [4, 8])}

    objectives = []

    def objective(metrics):
        objectives.append(metrics["eval_loss"])
        return metrics["eval_loss"]

    trainer = Trainer(model_init=model_init, train_dataset=tt.classification_data(0, n=16),
                      eval_dataset=tt.classification_data(1, n=8),
                      args=tt.training_args(output_dir, max_steps=3, eval_strategy="steps", eval_steps=3))
    best = trainer.hyperparameter_search(hp_space=hp_space, compute_objective=objective, n_trials=2,
                                         direction="minimize", backend="optuna")
    return {"best_objective": best.objective, "best_hyperparameters": best.hyperparameters,
            "best_run_id": best.run_id, "objectives": objectives, "model_inits": inits}


def progress_bar(output_dir):
    stream = io.StringIO()
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=8),
                      args=tt.training_args(output_dir, max_steps=2, disable_tqdm=False))
    with contextlib.redirect_stderr(stream):
        trainer.train()
    return {"stderr": stream.getvalue()[-2000:]}


SCENARIOS = {f.__name__: f for f in [
    strategies_steps, strategies_epoch, strategies_no, more_arguments, optimizers, schedulers, reduce_lr_on_plateau,
    grad_accumulation, max_grad_norm, weight_decay_groups, unsupported_optims, compute_loss_override,
    custom_dataloader_and_training_step, callbacks_order, callback_control, early_stopping, outputs,
    hf_argument_parser, neftune, peft_lora, tensorboard, hyperparameter_search, progress_bar]}

if __name__ == "__main__":
    tt.main(SCENARIOS)
