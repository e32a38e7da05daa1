"""Scenarios for tests/test_trainer_arguments.py: the TrainingArguments fields not covered by the feature runs
(batch sizes and epochs, label smoothing, optimizer arguments, torch_compile, logging and evaluation knobs,
data-loading knobs, determinism, memory metrics, debug hooks, JIT checkpointing on SIGTERM, callback-state
restore, the hub strategy with the hub client replaced by a recorder, and what the multi-device and
third-party-kernel fields say on MindSpore). See tiny_trainer.py for the command line.
"""
import contextlib
import io
import json
import logging
import math
import os
import signal
import time

import numpy as np

import tiny_trainer as tt
from tiny_trainer import Trainer, TrainerCallback, torch

import datasets
import transformers


def _raised(build):
    try:
        build()
    except Exception as error:  # noqa: BLE001  (the test checks the type and message)
        return {"raised": type(error).__name__, "message": str(error)}
    return {"raised": None}


class StepCounter(TrainerCallback):
    """Counts prediction batches and records the train batch size of every step."""

    def __init__(self):
        self.prediction_steps = 0
        self.train_batch_sizes = []

    def on_prediction_step(self, args, state, control, **kwargs):
        self.prediction_steps += 1


class BatchSizeTrainer(Trainer):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.batch_sizes = []

    def training_step(self, model, inputs, num_items_in_batch=None):
        self.batch_sizes.append(int(inputs["input_ids"].shape[0]))
        return super().training_step(model, inputs, num_items_in_batch)


# --- sizes, epochs and the script-level fields ----------------------------------------------------------------

def batch_sizes_and_epochs(output_dir):
    """per_device_train/eval_batch_size and num_train_epochs decide the steps and batches; do_train/do_eval/
    do_predict, run_name and resume_from_checkpoint are read by scripts, which hand the last to train()."""
    counter = StepCounter()
    args = tt.training_args(output_dir, per_device_train_batch_size=4, per_device_eval_batch_size=6,
                            num_train_epochs=2, save_strategy="epoch", do_train=True, do_eval=True,
                            do_predict=False, run_name="tiny-run")
    trainer = BatchSizeTrainer(model=tt.bert(0), args=args, train_dataset=tt.classification_data(0, n=20),
                               eval_dataset=tt.classification_data(1, n=20), callbacks=[counter])
    trainer.train()
    trainer.evaluate()
    report = {"global_step": trainer.state.global_step, "batch_sizes": trainer.batch_sizes,
              "prediction_steps": counter.prediction_steps, "run_name": trainer.args.run_name,
              "flags": [args.do_train, args.do_eval, args.do_predict],
              "epochs_logged": sorted({h["epoch"] for h in trainer.state.log_history if "loss" in h})[-1:]}
    # a script resuming through the field: the run continues from the saved epoch-1 checkpoint
    resume_args = tt.training_args(output_dir, per_device_train_batch_size=4, num_train_epochs=2,
                                   save_strategy="no",
                                   resume_from_checkpoint=os.path.join(output_dir, "checkpoint-5"))
    resumed = BatchSizeTrainer(model=tt.bert(3), args=resume_args, train_dataset=tt.classification_data(0, n=20))
    resumed.train(resume_from_checkpoint=resume_args.resume_from_checkpoint)
    report["resumed_steps_trained"] = len(resumed.batch_sizes)
    report["resumed_global_step"] = resumed.state.global_step
    report["resumed_vs_first"] = tt.max_param_diff(tt.params_numpy(resumed.model), tt.params_numpy(trainer.model))
    return report


# --- optimization ----------------------------------------------------------------------------------------------

def label_smoothing(output_dir):
    """label_smoothing_factor: the Trainer's loss is (1 - e) * NLL + e * mean over classes of -log p."""
    model = tt.bert(0, dropout=False)
    data = tt.classification_data(1, n=16)
    smoothed = Trainer(model=model, args=tt.training_args(output_dir, label_smoothing_factor=0.2))
    plain = Trainer(model=model, args=tt.training_args(output_dir + "-plain"))
    out = smoothed.predict(data)
    return {"smoothed_loss": out.metrics["test_loss"], "plain_loss": plain.predict(data).metrics["test_loss"],
            "logits": out.predictions.tolist(), "labels": out.label_ids.tolist()}


def optim_args(output_dir):
    """optim_args reach the optimizer: SGD with momentum and Nesterov, RMSprop centered."""
    report = {}
    for optim, text in [("sgd", "momentum=0.9,nesterov=True"), ("rmsprop", "alpha=0.9,centered=True")]:
        trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                          args=tt.training_args(os.path.join(output_dir, optim), optim=optim, optim_args=text,
                                                max_steps=2))
        trainer.train()
        group = tt.unwrapped_optimizer(trainer).param_groups[0]
        report[optim] = {"class": tt.qualified_name(tt.unwrapped_optimizer(trainer)),
                         "group": {k: group[k] for k in ("momentum", "nesterov", "alpha", "centered") if k in group},
                         "losses": tt.values(trainer, "loss")}
    return report


def torch_compile(output_dir):
    """torch_compile / torch_compile_backend / torch_compile_mode: the model is compiled (run eagerly on
    MindSpore, with a one-time notice) and trains exactly as without."""
    runs = {}
    stderr = io.StringIO()
    for name, extra in [("eager", {}), ("compiled", dict(torch_compile=True, torch_compile_backend="inductor",
                                                          torch_compile_mode="reduce-overhead"))]:
        trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                          args=tt.training_args(os.path.join(output_dir, name), max_steps=3, **extra))
        with contextlib.redirect_stderr(stderr):
            trainer.train()
        runs[name] = {"losses": tt.values(trainer, "loss"), "args": [trainer.args.torch_compile,
                                                                    trainer.args.torch_compile_backend,
                                                                    trainer.args.torch_compile_mode]}
    runs["stderr"] = stderr.getvalue()[-2000:]
    return runs


class NanAtStep(Trainer):
    """Reports a NaN loss for the given steps (after a real training step, so the weights stay finite)."""

    nan_steps = (2,)

    def training_step(self, model, inputs, num_items_in_batch=None):
        loss = super().training_step(model, inputs, num_items_in_batch)
        if self.state.global_step + 1 in self.nan_steps:
            return torch.tensor(float("nan"))
        return loss


def logging_knobs(output_dir):
    """logging_nan_inf_filter, log_level, log_level_replica, log_on_each_node."""
    report = {}
    for flag in (True, False):
        trainer = NanAtStep(model=tt.bert(0), train_dataset=tt.classification_data(0, n=32),
                            args=tt.training_args(os.path.join(output_dir, str(flag)), max_steps=4, logging_steps=4,
                                                  logging_nan_inf_filter=flag))
        trainer.train()
        report[f"filter_{flag}"] = tt.values(trainer, "loss")
    before = transformers.logging.get_verbosity()
    Trainer(model=tt.bert(0), args=tt.training_args(output_dir, log_level="error", log_level_replica="debug",
                                                     log_on_each_node=False))
    report["verbosity_after_init"] = transformers.logging.get_verbosity()
    report["error_level"] = logging.ERROR
    transformers.logging.set_verbosity(before)
    return report


def evaluation_knobs(output_dir):
    """eval_do_concat_batches=False keeps one array per batch; eval_use_gather_object and save_on_each_node
    change nothing in one process."""
    model = tt.bert(0, dropout=False)
    data = tt.classification_data(1, n=20)
    joined = Trainer(model=model, args=tt.training_args(output_dir, per_device_eval_batch_size=8)).predict(data)
    split = Trainer(model=model, args=tt.training_args(output_dir, per_device_eval_batch_size=8,
                                                        eval_do_concat_batches=False)).predict(data)
    gathered = Trainer(model=model, args=tt.training_args(output_dir, per_device_eval_batch_size=8,
                                                           eval_use_gather_object=True)).predict(data)
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                      args=tt.training_args(os.path.join(output_dir, "each-node"), max_steps=2, save_strategy="steps",
                                            save_steps=2, save_on_each_node=True))
    trainer.train()
    return {"joined_shape": list(joined.predictions.shape),
            "split_shapes": [list(np.asarray(p).shape) for p in split.predictions],
            "split_vs_joined": float(np.abs(np.concatenate(split.predictions) - joined.predictions).max()),
            "gathered_vs_joined": float(np.abs(gathered.predictions - joined.predictions).max()),
            "gathered_loss": gathered.metrics["test_loss"], "joined_loss": joined.metrics["test_loss"],
            "each_node_checkpoints": tt.checkpoints(os.path.join(output_dir, "each-node"))}


# --- data loading ----------------------------------------------------------------------------------------------

def dataloader_knobs(output_dir):
    """dataloader_pin_memory, dataloader_in_order, dataloader_persistent_workers, dataloader_prefetch_factor,
    dataloader_multiprocessing_context, length_column_name."""
    data = tt.classification_data(0, n=16)
    report = {}
    # without dropout the losses depend only on the batches (persistent workers consume the torch generator
    # differently from per-epoch iterators, in real torch too)
    plain = Trainer(model=tt.bert(0, dropout=False), train_dataset=data,
                    args=tt.training_args(os.path.join(output_dir, "plain"), max_steps=4,
                                          dataloader_pin_memory=False))
    plain.train()
    knobs = Trainer(model=tt.bert(0, dropout=False), train_dataset=data,
                    args=tt.training_args(os.path.join(output_dir, "workers"), max_steps=4, dataloader_num_workers=1,
                                          dataloader_persistent_workers=True, dataloader_prefetch_factor=3,
                                          dataloader_multiprocessing_context="spawn", dataloader_in_order=False,
                                          dataloader_pin_memory=True))
    loader = knobs.get_train_dataloader()
    report["loader"] = {"persistent_workers": loader.persistent_workers, "prefetch_factor": loader.prefetch_factor,
                        "pin_memory": loader.pin_memory, "in_order": getattr(loader, "in_order", None),
                        "context": str(getattr(loader.multiprocessing_context, "get_start_method", lambda: None)())}
    knobs.train()
    report["losses_plain"] = tt.values(plain, "loss")
    report["losses_workers"] = tt.values(knobs, "loss")
    # length_column_name: the sampler reads the lengths from the named column instead of measuring input_ids
    ids, lengths, labels = tt.token_rows(5, 32)
    fake = [int(v) for v in np.arange(32)[::-1]]  # claimed lengths, unrelated to the real ones
    column = datasets.Dataset.from_dict({"input_ids": [r[:k].tolist() for r, k in zip(ids, lengths)],
                                         "labels": labels.tolist(), "claimed": fake})
    grouped = Trainer(model=tt.bert(0), train_dataset=column,
                      args=tt.training_args(os.path.join(output_dir, "length"), train_sampling_strategy="group_by_length",
                                            length_column_name="claimed", remove_unused_columns=False))
    sampler = grouped._get_train_sampler()
    report["length_sampler_lengths"] = list(sampler.lengths)
    report["claimed"] = fake
    return report


# --- reproducibility, memory, debugging -------------------------------------------------------------------------

def full_determinism(output_dir):
    runs = []
    for i in range(2):
        trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                          args=tt.training_args(os.path.join(output_dir, str(i)), max_steps=3, full_determinism=True,
                                                seed=7))
        trainer.train()
        runs.append(tt.values(trainer, "loss"))
    return {"runs": runs, "deterministic": torch.are_deterministic_algorithms_enabled(),
            "cudnn_deterministic": bool(torch.backends.cudnn.deterministic)}


def full_eval_precision(output_dir):
    """fp16_full_eval / bf16_full_eval: evaluation runs the model converted to float16 / bfloat16."""
    data = tt.classification_data(1, n=16)
    report = {}
    for name, extra in [("float32", {}), ("fp16", {"fp16_full_eval": True}),
                        ("bf16", {"bf16_full_eval": True, "use_cpu": True})]:
        model = tt.bert(0, dropout=False)
        seen = {}
        model.bert.embeddings.register_forward_hook(lambda m, a, out: seen.update(embeddings=str(out.dtype)))
        out = Trainer(model=model, args=tt.training_args(os.path.join(output_dir, name), **extra)).predict(data)
        report[name] = {"loss": out.metrics["test_loss"], "predictions_dtype": str(out.predictions.dtype),
                        "embeddings_dtype": seen.get("embeddings"), "predictions": out.predictions.tolist()}
    return report


def memory_metrics(output_dir):
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                      eval_dataset=tt.classification_data(1, n=8),
                      args=tt.training_args(output_dir, max_steps=2, skip_memory_metrics=False))
    train = trainer.train().metrics
    evaluation = trainer.evaluate()
    return {"train": {k: v for k, v in train.items() if "mem" in k},
            "eval": {k: v for k, v in evaluation.items() if "mem" in k}}


class OverflowModel(torch.nn.Module):
    """A tiny model whose middle layer overflows to inf once `overflow` is set."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(4, 4)
        self.second = torch.nn.Linear(4, 2)
        self.overflow = False

    def forward(self, x, labels=None):
        h = self.first(x)
        if self.overflow:
            h = h * float("inf")
        logits = self.second(h)
        loss = torch.nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def debug_underflow_overflow(output_dir):
    """debug="underflow_overflow" installs transformers' DebugUnderflowOverflow, which stops at the first
    inf/nan activation with a report naming the module."""
    data = datasets.Dataset.from_dict({"x": np.random.RandomState(0).randn(16, 4).astype("float32").tolist(),
                                       "labels": [i % 2 for i in range(16)]})
    report = {}
    for overflow in (False, True):
        model = OverflowModel()
        model.overflow = overflow
        trainer = Trainer(model=model, train_dataset=data,
                          args=tt.training_args(os.path.join(output_dir, str(overflow)), max_steps=2,
                                                debug="underflow_overflow"))
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                trainer.train()
            report[str(overflow)] = {"raised": None, "steps": trainer.state.global_step}
        except Exception as error:  # noqa: BLE001
            report[str(overflow)] = {"raised": type(error).__name__, "message": str(error)[:300],
                                     "printed": out.getvalue()[-1500:]}
    return report


def torch_empty_cache_steps(output_dir):
    runs = {}
    for name, steps in [("plain", None), ("emptying", 1)]:
        trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                          args=tt.training_args(os.path.join(output_dir, name), max_steps=3,
                                                torch_empty_cache_steps=steps))
        trainer.train()
        runs[name] = tt.values(trainer, "loss")
    return runs


class OutOfMemoryOnce(BatchSizeTrainer):
    """Raises the out-of-memory error torch raises on a device the first time a batch of 8 arrives."""

    raised = False

    def training_step(self, model, inputs, num_items_in_batch=None):
        if int(inputs["input_ids"].shape[0]) == 8 and not OutOfMemoryOnce.raised:
            OutOfMemoryOnce.raised = True
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return super().training_step(model, inputs, num_items_in_batch)


def auto_find_batch_size(output_dir):
    """auto_find_batch_size: after an out-of-memory error the Trainer retries with half the batch size."""
    trainer = OutOfMemoryOnce(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                              args=tt.training_args(output_dir, auto_find_batch_size=True, num_train_epochs=1,
                                                    per_device_train_batch_size=8))
    trainer.train()
    return {"batch_sizes": trainer.batch_sizes, "train_batch_size": trainer._train_batch_size,
            "global_step": trainer.state.global_step}


class SigtermAtStep(TrainerCallback):
    """Sends this process SIGTERM at the end of the given step, as a preemptible scheduler would."""

    def __init__(self, step):
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == self.step:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)  # the checkpoint manager waits kill_wait seconds before it asks for the checkpoint


def enable_jit_checkpoint(output_dir):
    """enable_jit_checkpoint: SIGTERM during training writes a checkpoint and stops training."""
    trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=64),
                      args=tt.training_args(output_dir, max_steps=8, enable_jit_checkpoint=True),
                      callbacks=[SigtermAtStep(2)])
    jit = [c for c in trainer.callback_handler.callbacks if type(c).__name__ == "JITCheckpointCallback"][0]
    jit.jit_manager.kill_wait = 0.1
    trainer.train()
    return {"global_step": trainer.state.global_step, "checkpoints": tt.checkpoints(output_dir),
            "handler_restored": signal.getsignal(signal.SIGTERM) == signal.SIG_DFL}


def restore_callback_states(output_dir):
    """restore_callback_states_from_checkpoint: EarlyStoppingCallback's patience counter comes back on resume."""
    from transformers import EarlyStoppingCallback

    class Scores:
        def __init__(self):
            self.calls = 0

        def __call__(self, eval_pred):
            self.calls += 1
            return {"score": [0.9, 0.5, 0.4, 0.3, 0.2][min(self.calls - 1, 4)]}

    def trainer_for(restore, model_seed, max_steps):
        return Trainer(model=tt.bert(model_seed), train_dataset=tt.classification_data(0, n=64),
                       eval_dataset=tt.classification_data(1, n=8), compute_metrics=Scores(),
                       callbacks=[EarlyStoppingCallback(early_stopping_patience=3)],
                       args=tt.training_args(output_dir, max_steps=max_steps, eval_strategy="steps", eval_steps=1,
                                             save_strategy="steps", save_steps=1, metric_for_best_model="score",
                                             load_best_model_at_end=True,
                                             restore_callback_states_from_checkpoint=restore))

    first = trainer_for(False, 0, 3)
    first.train()  # scores 0.9, 0.5, 0.4: two evaluations without improvement
    report = {"first_patience": [c.early_stopping_patience_counter for c in first.callback_handler.callbacks
                                 if isinstance(c, EarlyStoppingCallback)]}
    for restore in (True, False):
        resumed = trainer_for(restore, 1, 8)
        counter = [c for c in resumed.callback_handler.callbacks if isinstance(c, EarlyStoppingCallback)][0]
        resumed.train(resume_from_checkpoint=os.path.join(output_dir, "checkpoint-3"))
        counter = [c for c in resumed.callback_handler.callbacks if isinstance(c, EarlyStoppingCallback)][0]
        report[f"restore_{restore}"] = {"global_step": resumed.state.global_step,
                                        "patience_counter": counter.early_stopping_patience_counter}
    return report


# --- the hub, with the client replaced by a recorder -------------------------------------------------------------

def push_to_hub(output_dir):
    """push_to_hub, hub_model_id, hub_strategy, hub_private_repo, hub_token, hub_revision, hub_always_push:
    what the Trainer hands the hub client (this machine has no hub access, so the client is a recorder)."""
    import transformers.trainer as trainer_module

    calls = []

    class Done:
        def done(self):
            return True

    class RecordingHubClient:
        def create_repo(self, repo_id, **kwargs):
            calls.append(["create_repo", repo_id, {k: kwargs.get(k) for k in ("private", "token", "exist_ok")}])
            url = f"https://huggingface.co/{repo_id}"
            return type("RepoUrl", (str,), {"repo_id": repo_id})(url)

        def upload_folder(self, repo_id, folder_path, **kwargs):
            files = sorted(os.path.relpath(os.path.join(d, f), folder_path)
                           for d, _, fs in os.walk(folder_path) for f in fs)
            calls.append(["upload_folder", repo_id, {
                "path_in_repo": kwargs.get("path_in_repo"), "revision": kwargs.get("revision"),
                "token": kwargs.get("token"), "files": [f for f in files if f.endswith((".safetensors", ".pt",
                                                                                          ".pth", ".json"))]}])
            return Done()

    original = trainer_module.hf_api
    trainer_module.hf_api = RecordingHubClient
    try:
        trainer = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                          args=tt.training_args(output_dir, max_steps=2, save_strategy="steps", save_steps=1,
                                                push_to_hub=True, hub_model_id="someone/tiny-run",
                                                hub_strategy="checkpoint", hub_private_repo=True, hub_token="tok",
                                                hub_revision="dev", hub_always_push=True))
        trainer.train()
    finally:
        trainer_module.hf_api = original
    return {"calls": calls}


# --- fields that cannot work on MindSpore, or need packages that are not here -------------------------------------

def multi_device_and_kernel_fields(output_dir):
    """What the multi-device fields do in one process, and what fsdp/deepspeed/liger/parallelism_config/
    trackio/tpu debug say here."""
    report = {}
    single = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                     args=tt.training_args(os.path.join(output_dir, "ddp"), max_steps=2, ddp_find_unused_parameters=True,
                                           ddp_bucket_cap_mb=10, ddp_broadcast_buffers=False, ddp_static_graph=True,
                                           ddp_timeout=60, average_tokens_across_devices=True,
                                           accelerator_config={"split_batches": False, "even_batches": True,
                                                               "non_blocking": False}))
    single.train()
    plain = Trainer(model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
                    args=tt.training_args(os.path.join(output_dir, "plain"), max_steps=2))
    plain.train()
    report["ddp_losses"], report["plain_losses"] = tt.values(single, "loss"), tt.values(plain, "loss")
    report["world_size"], report["local_rank"] = single.args.world_size, single.args.local_rank
    report["parallel_mode"] = str(single.args.parallel_mode)
    config_path = os.path.join(output_dir, "accelerator.json")
    with open(config_path, "w") as fh:
        json.dump({"split_batches": True}, fh)
    from_file = tt.training_args(os.path.join(output_dir, "cfg"), accelerator_config=config_path)
    report["accelerator_config_from_file"] = from_file.accelerator_config.split_batches
    from accelerate.parallelism_config import ParallelismConfig

    for field, value in [("ddp_backend", "hccl"), ("fsdp", "full_shard"), ("fsdp", True),
                         ("deepspeed", {"train_batch_size": "auto"}), ("use_liger_kernel", True),
                         ("parallelism_config", ParallelismConfig(dp_shard_size=2))]:
        report.setdefault("rejected", []).append([field, str(value)[:30]])
        report["rejected"][-1].append(_raised(lambda: tt.training_args(os.path.join(output_dir, "x"),
                                                                              **{field: value})))
    report["trackio"] = _raised(lambda: Trainer(model=tt.bert(0), args=tt.training_args(
        os.path.join(output_dir, "t"), report_to=["trackio"], project="p", trackio_space_id="someone/space")))
    report["tpu_metrics_debug"] = _raised(lambda: Trainer(
        model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
        args=tt.training_args(os.path.join(output_dir, "x"), max_steps=1, debug="tpu_metrics_debug")).train())
    report["galore_target_modules"] = _raised(lambda: Trainer(
        model=tt.bert(0), train_dataset=tt.classification_data(0, n=16),
        args=tt.training_args(os.path.join(output_dir, "g"), max_steps=1, optim="galore_adamw",
                              optim_target_modules=["attention"])).train())
    report["use_cache"] = {}
    for flag in (False, True):
        model = tt.bert(0)
        Trainer(model=model, args=tt.training_args(os.path.join(output_dir, "c"), use_cache=flag))
        report["use_cache"][str(flag)] = model.config.use_cache
    return report


SCENARIOS = {f.__name__: f for f in [
    batch_sizes_and_epochs, label_smoothing, optim_args, torch_compile, logging_knobs, evaluation_knobs,
    dataloader_knobs, full_determinism, full_eval_precision, memory_metrics, debug_underflow_overflow, torch_empty_cache_steps,
    auto_find_batch_size, enable_jit_checkpoint, restore_callback_states, push_to_hub,
    multi_device_and_kernel_fields]}

if __name__ == "__main__":
    tt.main(SCENARIOS)
