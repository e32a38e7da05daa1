"""The remaining TrainingArguments fields on the shim, each on a tiny random BERT with the unmodified Trainer:
batch sizes and epochs, the script-level fields, label smoothing, optimizer arguments, torch_compile, logging,
evaluation and data-loading knobs, determinism, fp16/bf16 full evaluation, memory metrics, debug hooks, empty-cache steps, automatic batch
size, JIT checkpointing on SIGTERM, callback-state restore, the hub fields, and the multi-device and kernel
fields that fail at construction on MindSpore.

Scenarios: tests/scripts/trainer_arguments_run.py, all in one child process.
"""
import logging

import numpy as np
import pytest

from trainer_scenarios import result, run_scenarios

SCENARIOS = ["batch_sizes_and_epochs", "label_smoothing", "optim_args", "torch_compile", "logging_knobs",
             "evaluation_knobs", "dataloader_knobs", "full_determinism", "full_eval_precision", "memory_metrics", "debug_underflow_overflow",
             "torch_empty_cache_steps", "auto_find_batch_size", "enable_jit_checkpoint", "restore_callback_states",
             "push_to_hub", "multi_device_and_kernel_fields"]
CHECKPOINT_FILES = ["config.json", "model.safetensors", "optimizer.pt", "rng_state.pth", "scheduler.pt",
                    "trainer_state.json", "training_args.bin"]


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    return run_scenarios("trainer_arguments_run.py", SCENARIOS, tmp_path_factory.mktemp("arguments"))


def test_batch_sizes_epochs_and_script_fields(shim):
    run = result(shim, "batch_sizes_and_epochs")  # 20 examples, batch 4, 2 epochs; eval batch 6
    assert run["batch_sizes"] == [4] * 10 and run["global_step"] == 10
    assert run["prediction_steps"] == 4  # ceil(20 / 6) evaluation batches
    assert run["run_name"] == "tiny-run" and run["flags"] == [True, True, False]
    assert run["epochs_logged"] == [2.0]
    # args.resume_from_checkpoint handed to train() by a script: epoch 2 only, ending on the first run's weights
    assert run["resumed_steps_trained"] == 5 and run["resumed_global_step"] == 10
    assert run["resumed_vs_first"] < 1e-6


def test_label_smoothing_factor(shim):
    run = result(shim, "label_smoothing")
    logits, labels = np.asarray(run["logits"], dtype=np.float64), np.asarray(run["labels"])
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    nll = -log_p[np.arange(len(labels)), labels].mean()
    uniform = -log_p.mean()
    assert run["plain_loss"] == pytest.approx(nll, rel=1e-5)
    assert run["smoothed_loss"] == pytest.approx(0.8 * nll + 0.2 * uniform, rel=1e-5)
    assert abs(run["smoothed_loss"] - run["plain_loss"]) > 1e-5


def test_optim_args_reach_the_optimizer(shim):
    run = result(shim, "optim_args")
    assert run["sgd"]["class"].endswith("optim.sgd.SGD")
    assert run["sgd"]["group"] == {"momentum": 0.9, "nesterov": True}
    assert run["rmsprop"]["group"]["alpha"] == 0.9 and run["rmsprop"]["group"]["centered"] is True
    assert all(np.isfinite(run[o]["losses"]).all() for o in ("sgd", "rmsprop"))


def test_torch_compile_fields_train_as_eager_with_a_notice(shim):
    run = result(shim, "torch_compile")
    assert run["compiled"]["args"] == [True, "inductor", "reduce-overhead"]
    assert run["compiled"]["losses"] == run["eager"]["losses"]
    assert "torch.compile: running the model eagerly on MindSpore" in run["stderr"]


def test_logging_nan_inf_filter_and_log_level(shim):
    run = result(shim, "logging_knobs")  # step 2 of 4 reports NaN; one logged loss at step 4
    assert np.isfinite(run["filter_True"]).all() and len(run["filter_True"]) == 1
    assert np.isnan(run["filter_False"]).all() and len(run["filter_False"]) == 1
    assert run["verbosity_after_init"] == logging.ERROR


def test_eval_do_concat_batches_gather_object_and_save_on_each_node(shim):
    run = result(shim, "evaluation_knobs")
    assert run["joined_shape"] == [20, 2]
    assert run["split_shapes"] == [[8, 2], [8, 2], [4, 2]] and run["split_vs_joined"] == 0.0
    assert run["gathered_vs_joined"] == 0.0 and run["gathered_loss"] == run["joined_loss"]
    assert run["each_node_checkpoints"] == {"checkpoint-2": CHECKPOINT_FILES}


def test_dataloader_fields_and_length_column_name(shim):
    run = result(shim, "dataloader_knobs")
    assert run["loader"] == {"persistent_workers": True, "prefetch_factor": 3, "pin_memory": True,
                             "in_order": False, "context": "spawn"}
    assert run["losses_workers"] == run["losses_plain"] and len(run["losses_plain"]) == 4
    assert run["length_sampler_lengths"] == run["claimed"]


def test_full_determinism(shim):
    run = result(shim, "full_determinism")
    assert run["runs"][0] == run["runs"][1]  # dropout on, same seed
    assert run["deterministic"] and run["cudnn_deterministic"]


def test_fp16_and_bf16_full_eval_evaluate_in_low_precision(shim):
    run = result(shim, "full_eval_precision")
    full = np.asarray(run["float32"]["predictions"])
    assert run["float32"]["embeddings_dtype"] == "torch.float32"
    assert run["fp16"]["embeddings_dtype"] == "torch.float16" and run["fp16"]["predictions_dtype"] == "float16"
    assert run["bf16"]["embeddings_dtype"] == "torch.bfloat16"  # transformers hands bf16 logits over as float32
    for name, tol in [("fp16", 2e-4), ("bf16", 2e-3)]:
        low = np.asarray(run[name]["predictions"])
        assert np.abs(low - full).max() < tol and np.abs(low - full).max() > 0, name  # rounded, not float32
        assert run[name]["loss"] == pytest.approx(run["float32"]["loss"], rel=5e-3), name


def test_skip_memory_metrics_false_reports_memory(shim):
    run = result(shim, "memory_metrics")
    assert {"init_mem_cpu_alloc_delta", "train_mem_cpu_alloc_delta", "train_mem_cpu_peaked_delta",
            "before_init_mem_cpu"} <= set(run["train"])
    assert {"eval_mem_cpu_alloc_delta", "eval_mem_cpu_peaked_delta"} <= set(run["eval"])
    assert run["train"]["before_init_mem_cpu"] > 100 * 2**20  # the process's resident memory, in bytes


def test_debug_underflow_overflow(shim):
    run = result(shim, "debug_underflow_overflow")
    assert run["False"] == {"raised": None, "steps": 2}
    assert run["True"]["raised"] == "ValueError" and "inf/nan detected" in run["True"]["message"]
    assert "second Linear" in run["True"]["printed"] and "inf      inf input[0]" in run["True"]["printed"]


def test_torch_empty_cache_steps(shim):
    run = result(shim, "torch_empty_cache_steps")
    assert run["emptying"] == run["plain"] and len(run["plain"]) == 3


def test_auto_find_batch_size_retries_smaller_after_out_of_memory(shim):
    run = result(shim, "auto_find_batch_size")
    assert run["batch_sizes"][0] < 8 and sum(run["batch_sizes"]) == 16  # the epoch restarted with smaller batches
    assert run["train_batch_size"] == run["batch_sizes"][0]


def test_enable_jit_checkpoint_saves_on_sigterm_and_stops(shim):
    run = result(shim, "enable_jit_checkpoint")  # SIGTERM at the end of step 2 of 8
    assert run["checkpoints"] == {"checkpoint-2": CHECKPOINT_FILES}  # complete: no "incomplete" marker left
    assert run["global_step"] < 8
    assert run["handler_restored"]


def test_restore_callback_states_from_checkpoint(shim):
    run = result(shim, "restore_callback_states")
    assert run["first_patience"] == [2]
    # restored: the counter resumes at 2 and reaches the patience of 3 at the first evaluation after resuming
    assert run["restore_True"] == {"global_step": 4, "patience_counter": 3}
    assert run["restore_False"] == {"global_step": 6, "patience_counter": 3}


def test_hub_fields_reach_the_hub_client(shim):
    calls = result(shim, "push_to_hub")["calls"]
    assert calls[0] == ["create_repo", "someone/tiny-run", {"private": True, "token": "tok", "exist_ok": True}]
    uploads = [c for c in calls if c[0] == "upload_folder"]
    assert all(c[1] == "someone/tiny-run" and c[2]["revision"] == "dev" and c[2]["token"] == "tok" for c in uploads)
    last = [c[2]["files"] for c in uploads if c[2]["path_in_repo"] == "last-checkpoint"]
    assert len(last) == 2  # hub_strategy="checkpoint": every save also pushes the checkpoint as last-checkpoint
    assert all(f == sorted(CHECKPOINT_FILES[:-1]) for f in last)  # training_args.bin is not in the filter


def test_multi_device_fields_in_one_process_and_fields_that_cannot_run(shim):
    run = result(shim, "multi_device_and_kernel_fields")
    assert run["ddp_losses"] == run["plain_losses"]
    assert run["world_size"] == 1 and run["local_rank"] == -1 and run["parallel_mode"] == "ParallelMode.NOT_PARALLEL"
    assert run["accelerator_config_from_file"] is True
    rejected = {(field, value): outcome for field, value, outcome in run["rejected"]}
    assert len(rejected) == 6
    for (field, value), outcome in rejected.items():
        assert outcome["raised"] == "NotImplementedError", (field, outcome)
        assert outcome["message"].startswith(f"TrainingArguments({field}=") and "not supported on MindSpore" in \
            outcome["message"]
    assert "torch.distributed" in rejected[("fsdp", "full_shard")]["message"]
    assert "Triton" in rejected[("use_liger_kernel", "True")]["message"]
    assert run["trackio"]["raised"] == "RuntimeError" and "pip install trackio" in run["trackio"]["message"]
    assert run["galore_target_modules"]["raised"] == "ImportError"
    assert run["tpu_metrics_debug"] == {"raised": None}  # upstream warns that no TPU is configured
    assert run["use_cache"] == {"False": False, "True": True}
