"""TrainingArguments knobs and Trainer features on the shim, each on a tiny random BERT with the unmodified
transformers Trainer: eval/save/logging strategies with checkpoint rotation and the best model, the optimizers
and learning-rate schedules (compared with real PyTorch running the same Trainer code), gradient accumulation,
clipping, weight-decay groups, optimizers that cannot run here, Trainer subclasses and callbacks, early
stopping, predict/evaluate/metrics files, HfArgumentParser, NEFTune, PEFT LoRA and the progress bar.

Scenarios: tests/scripts/trainer_features_run.py; every shim scenario runs in one child process, the ones
compared with real torch once more in one real-torch child.
"""
import json
import os

import numpy as np
import pytest

from oracle import require_torch
from trainer_scenarios import result, run_scenarios

SHIM_SCENARIOS = [
    "strategies_steps", "strategies_epoch", "strategies_no", "more_arguments", "optimizers", "schedulers", "reduce_lr_on_plateau",
    "grad_accumulation", "max_grad_norm", "weight_decay_groups", "unsupported_optims", "compute_loss_override",
    "custom_dataloader_and_training_step", "callbacks_order", "callback_control", "early_stopping", "outputs",
    "hf_argument_parser", "neftune", "peft_lora", "tensorboard", "hyperparameter_search", "progress_bar"]
TORCH_SCENARIOS = ["optimizers", "schedulers", "reduce_lr_on_plateau", "grad_accumulation", "max_grad_norm"]
OPTIMS = ["adamw_torch_fused", "adamw_torch", "sgd", "adagrad", "rmsprop", "adafactor"]


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    output_dir = tmp_path_factory.mktemp("features_shim")
    reports = run_scenarios("trainer_features_run.py", SHIM_SCENARIOS, output_dir)
    reports["output_dir"] = str(output_dir)
    return reports


@pytest.fixture(scope="module")
def torch_side(tmp_path_factory):
    require_torch()
    output_dir = tmp_path_factory.mktemp("features_torch")
    reports = run_scenarios("trainer_features_run.py", TORCH_SCENARIOS, output_dir, side="torch")
    reports["output_dir"] = str(output_dir)
    return reports


def _names(checkpoints):
    return [os.path.basename(c) for c in checkpoints]


# --- strategies ---------------------------------------------------------------------------------------------

def test_steps_strategies_rotate_checkpoints_and_load_the_best(shim):
    run = result(shim, "strategies_steps")  # 12 steps; eval/save every 3, log every 4 and the first
    assert run["loss_steps"] == [1, 4, 8, 12]
    assert run["eval_steps"] == [3, 6, 9, 12]
    assert [score for _, score in run["eval_scores"]] == [0.2, 0.9, 0.5, 0.7]
    # save_total_limit=2: the oldest checkpoint goes, the best one (step 6) stays while newer ones come
    assert run["after_save"] == [[3, ["checkpoint-3"]], [6, ["checkpoint-3", "checkpoint-6"]],
                                 [9, ["checkpoint-6", "checkpoint-9"]], [12, ["checkpoint-12", "checkpoint-6"]]]
    assert run["checkpoints"] == ["checkpoint-12", "checkpoint-6"]
    assert run["best_model_checkpoint"].endswith("checkpoint-6") and run["best_metric"] == 0.9
    assert run["best_vs_live"] == 0.0 and run["last_vs_live"] > 1e-4  # load_best_model_at_end replaced the weights


def test_epoch_strategies_with_greater_is_better_false(shim):
    run = result(shim, "strategies_epoch")  # 3 epochs of 5 steps
    assert run["loss_steps"] == [5, 10, 15] and run["eval_steps"] == [5, 10, 15]
    assert run["best_model_checkpoint"].endswith("checkpoint-10") and run["best_metric"] == 0.1  # the lowest
    assert run["after_save"] == [[5, ["checkpoint-5"]], [10, ["checkpoint-10"]],
                                 [15, ["checkpoint-10", "checkpoint-15"]]]
    assert run["checkpoints"] == ["checkpoint-10"]  # save_total_limit=1 keeps only the best at the end
    assert run["best_vs_live"] == 0.0


def test_no_strategies_log_save_and_evaluate_nothing(shim):
    run = result(shim, "strategies_no")
    assert run["global_step"] == 4
    assert run["loss_steps"] == [] and run["eval_steps"] == [] and run["metric_calls"] == 0
    assert run["checkpoints"] == [] and run["after_save"] == []
    assert run["history_keys"] == [["epoch", "step", "total_flos", "train_loss", "train_runtime",
                                    "train_samples_per_second", "train_steps_per_second"]]


def test_eval_delay_save_best_save_only_model_and_tokens_seen(shim):
    run = result(shim, "more_arguments")  # 8 steps of 8 rows of 16 tokens, eval every 2 after a delay of 3
    assert run["eval_steps"] == [4, 6, 8]  # eval_delay=3 skips the evaluation at step 2
    # save_strategy="best": a checkpoint only when the metric improves (0.5, then 0.3, then 0.7)
    assert run["after_save"] == [[4, ["checkpoint-4"]], [8, ["checkpoint-4", "checkpoint-8"]]]
    assert run["best_model_checkpoint"].endswith("checkpoint-8") and run["best_metric"] == 0.7
    for files in run["checkpoint_files"].values():  # save_only_model: no optimizer, scheduler or RNG state
        assert files == ["config.json", "model.safetensors", "trainer_state.json", "training_args.bin"]
    assert run["num_input_tokens_seen"] == 8 * 8 * 16


def test_eval_on_start(shim):
    assert result(shim, "more_arguments")["eval_on_start_steps"][0] == 0


def test_prediction_loss_only_and_eval_accumulation_steps(shim):
    run = result(shim, "more_arguments")
    assert run["eval_accumulation_shape"] == [20, 2] and run["eval_accumulation_max_abs_diff"] < 1e-6
    loss_only = run["loss_only"]
    assert loss_only["predictions"] and loss_only["label_ids"]  # both None
    assert loss_only["test_loss"] == pytest.approx(loss_only["full_test_loss"], rel=1e-6)


# --- optimization ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("optim", OPTIMS)
def test_optimizer_matches_real_torch_for_three_steps(shim, torch_side, optim):
    ours, theirs = result(shim, "optimizers")[optim], result(torch_side, "optimizers")[optim]
    assert ours["optimizer"].replace("mindnlp_shim.", "") == theirs["optimizer"]
    assert ours["defaults"] == theirs["defaults"]  # e.g. fused=True for adamw_torch_fused
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=2e-5)
    np.testing.assert_allclose(ours["grad_norms"], theirs["grad_norms"], rtol=2e-4)
    params = {side: dict(np.load(os.path.join(r["output_dir"], f"{optim}_{side}.npz")))
              for side, r in (("shim", shim), ("torch", torch_side))}
    for name, expected in params["torch"].items():
        got = params["shim"][name]
        if name.endswith("attention.self.key.bias"):
            # zero gradient in exact arithmetic (softmax ignores it): adaptive optimizers turn each side's
            # rounding noise into steps of up to ~lr, so only their size is bounded
            assert np.abs(got - 0.0).max() < 0.05 and np.abs(expected).max() < 0.05
            continue
        error = np.linalg.norm(got.astype(np.float64) - expected) / np.linalg.norm(expected)
        assert error < 1e-3, (name, error)


def test_default_optim_is_fused_adamw(shim):
    assert result(shim, "optimizers")["adamw_torch_fused"]["defaults"]["fused"] is True


def test_every_lr_scheduler_type_matches_real_torch(shim, torch_side):
    ours, theirs = result(shim, "schedulers"), result(torch_side, "schedulers")
    assert sorted(ours) == sorted(theirs)
    for name, run in ours.items():
        assert run["scheduler"].replace("mindnlp_shim.", "") == theirs[name]["scheduler"], name
        np.testing.assert_allclose(run["learning_rates"], theirs[name]["learning_rates"], rtol=1e-12, atol=0,
                                   err_msg=name)
        assert len(run["learning_rates"]) == 8
    assert ours["linear"]["learning_rates"][:3] == [0.0, 5e-3, 1e-2]  # 2 warmup steps, then decay
    assert ours["constant"]["learning_rates"] == [1e-2] * 8
    assert ours["cosine_with_restarts"]["learning_rates"][5] == pytest.approx(1e-2)  # the restart


def test_warmup_steps_below_one_is_a_ratio(shim):
    runs = result(shim, "schedulers")
    assert runs["linear_warmup_ratio"]["warmup_steps"] == 2  # 0.25 of 8 steps
    assert runs["linear_warmup_ratio"]["learning_rates"] == runs["linear"]["learning_rates"]


def test_reduce_lr_on_plateau_matches_real_torch(shim, torch_side):
    ours, theirs = result(shim, "reduce_lr_on_plateau"), result(torch_side, "reduce_lr_on_plateau")
    assert ours["scheduler"] == "mindnlp_shim.torch.optim.lr_scheduler.ReduceLROnPlateau"
    assert ours["learning_rates"] == theirs["learning_rates"] == [0.01, 0.01, 0.005, 0.0025, 0.00125, 0.00125]
    assert ours["final_lrs"] == theirs["final_lrs"] == [0.000625, 0.000625]
    assert ours["mode"] == theirs["mode"]


def test_gradient_accumulation_equals_the_larger_batch(shim):
    run = result(shim, "grad_accumulation")
    assert run["update_size"] > 1e-2
    for key in ("mean_8x2", "mean_4x4"):
        assert run[key]["max_param_diff_vs_16x1"] < 1e-6, key
        np.testing.assert_allclose(run[key]["losses"], run["mean_16x1"]["losses"], rtol=1e-6)
        np.testing.assert_allclose(run[key]["grad_norms"], run["mean_16x1"]["grad_norms"], rtol=1e-5)


def test_gradient_accumulation_with_bert_default_loss_is_upstreams(shim, torch_side):
    # BertForSequenceClassification accepts loss kwargs but ignores num_items_in_batch, so transformers 5.23
    # sums the micro-batch means: the same on real torch, step for step
    ours, theirs = result(shim, "grad_accumulation"), result(torch_side, "grad_accumulation")
    for key in ("upstream_default_16x1", "upstream_default_8x2", "upstream_default_4x4"):
        np.testing.assert_allclose(ours[key]["losses"], theirs[key]["losses"], rtol=2e-5, err_msg=key)
        np.testing.assert_allclose(ours[key]["max_param_diff_vs_16x1"], theirs[key]["max_param_diff_vs_16x1"],
                                   rtol=1e-3, atol=1e-6)
    # the first step starts from the same weights: four micro-batch means summed are four times the mean
    assert ours["upstream_default_4x4"]["losses"][0] == pytest.approx(4 * ours["upstream_default_16x1"]["losses"][0],
                                                                      rel=1e-5)


def test_max_grad_norm_clips_the_step(shim, torch_side):
    ours, theirs = result(shim, "max_grad_norm"), result(torch_side, "max_grad_norm")
    norm = ours["0.05"]["logged_grad_norms"][0]  # the norm before clipping is what gets logged
    assert norm > 0.5
    assert ours["0.05"]["step_norm_over_lr"] == pytest.approx(0.05, rel=1e-4)  # plain SGD: step = lr * clipped
    for clip in ("0.0", "1000000.0"):  # 0 disables clipping; a huge bound never bites
        assert ours[clip]["logged_grad_norms"] == [norm]
        assert ours[clip]["step_norm_over_lr"] == pytest.approx(norm, rel=1e-5)
    for clip in ours:
        assert ours[clip]["step_norm_over_lr"] == pytest.approx(theirs[clip]["step_norm_over_lr"], rel=1e-4)


def test_weight_decay_skips_bias_and_layernorm_and_adam_arguments_reach_the_optimizer(shim):
    run = result(shim, "weight_decay_groups")
    decay, no_decay = run["groups"]
    expected_decay = sorted(n for n in run["all_names"] if "bias" not in n and "LayerNorm" not in n)
    assert decay["names"] == expected_decay == run["decay_names_upstream"]
    assert no_decay["names"] == sorted(set(run["all_names"]) - set(expected_decay))
    assert any("LayerNorm.weight" in n for n in no_decay["names"])
    assert decay["weight_decay"] == 0.05 and no_decay["weight_decay"] == 0.0
    for group in (decay, no_decay):
        assert group["betas"] == [0.8, 0.99] and group["eps"] == 1e-6


def test_optimizers_that_cannot_run_here_fail_at_construction(shim):
    run = result(shim, "unsupported_optims")
    packages = {"adamw_bnb_8bit": "bitsandbytes", "adamw_8bit": "bitsandbytes", "paged_adamw_32bit": "bitsandbytes",
                "lion_8bit": "bitsandbytes", "rmsprop_bnb": "bitsandbytes", "ademamix": "bitsandbytes",
                "galore_adamw_8bit": "bitsandbytes", "adamw_torch_4bit": "torchao", "adamw_torch_8bit": "torchao",
                "adamw_torch_xla": "torch_xla", "adamw_torch_npu_fused": "torch_npu",
                "adamw_anyprecision": "torchdistx"}
    for optim, package in packages.items():
        assert run[optim]["raised"] == "NotImplementedError", optim
        message = run[optim]["message"]
        assert f"optim={optim!r}" in message and package in message and "MindSpore" in message
        assert "adamw_torch_fused" in message  # says what to use instead
    assert run["adamw_torch"] == {"raised": None} and run["adafactor"] == {"raised": None}


# --- customisation ----------------------------------------------------------------------------------------------

def _weighted_cross_entropy(logits, labels, weights):
    logits = np.asarray(logits, dtype=np.float64)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    w = np.asarray(weights)[labels]
    return float(-(w * log_probs[np.arange(len(labels)), labels]).sum() / w.sum())


def test_compute_loss_override_with_class_weighted_cross_entropy(shim):
    run = result(shim, "compute_loss_override")
    assert len(run["calls"]) == 3
    for call in run["calls"]:
        assert call["num_items_in_batch"] == 8 and call["return_outputs"] is False
        weighted = _weighted_cross_entropy(call["logits"], call["labels"], [1.0, 4.0])
        assert call["loss"] == pytest.approx(weighted, rel=1e-5)
        assert abs(weighted - _weighted_cross_entropy(call["logits"], call["labels"], [1.0, 1.0])) > 1e-4
    assert run["logged_losses"] == [c["loss"] for c in run["calls"]]  # the Trainer trained on the override


def test_compute_loss_func(shim):
    run = result(shim, "compute_loss_override")
    assert len(run["func_calls"]) == 3
    for call in run["func_calls"]:
        assert call["num_items_in_batch"] == 8
        assert call["loss"] == pytest.approx(_weighted_cross_entropy(call["logits"], call["labels"], [1.0, 4.0]),
                                             rel=1e-5)
    assert run["func_logged_losses"] == [c["loss"] for c in run["func_calls"]]
    assert run["func_calls"][0]["loss"] == pytest.approx(run["calls"][0]["loss"], rel=1e-6)  # same first batch


def test_get_train_dataloader_and_training_step_overrides(shim):
    run = result(shim, "custom_dataloader_and_training_step")
    assert run["global_step"] == 3  # 12 examples in the override's batches of 4
    assert run["batches"] == run["expected"]  # in the override's (reversed) order
    assert run["step_losses"] == run["logged_losses"]


EXPECTED_EVENTS = (
    [("on_init_end", 0), ("on_train_begin", 0), ("on_epoch_begin", 0)]
    + [e for step in range(3) for e in [("on_step_begin", step), ("on_pre_optimizer_step", step),
                                        ("on_optimizer_step", step), ("on_step_end", step + 1)]
       + ([("on_log", 2)] if step == 1 else [])]
    + [("on_epoch_end", 3), ("on_prediction_step", 3), ("on_log", 3), ("on_evaluate", 3), ("on_save", 3),
       ("on_log", 3), ("on_train_end", 3)])


def test_callback_events_fire_in_order_for_classes_and_instances(shim):
    run = result(shim, "callbacks_order")
    log = [tuple(entry) for entry in run["log"]]
    # the class (instantiated by the Trainer) hears each event first, the instance right after it
    assert log[0::2] == [("class", e, s) for e, s in EXPECTED_EVENTS]
    assert log[1::2] == [("instance", e, s) for e, s in EXPECTED_EVENTS]
    assert run["callbacks"] == ["DefaultFlowCallback", "EventRecorder", "EventRecorder", "PrinterCallback"]
    assert run["callbacks_after_pop"] == ["DefaultFlowCallback", "EventRecorder", "PrinterCallback"]


def test_callback_control_flags_are_honoured(shim):
    run = result(shim, "callback_control")  # logging/eval/save all "no"; the callback asks at steps 1..4
    assert run["loss_steps"] == [1] and run["eval_steps"] == [3] and run["checkpoints"] == ["checkpoint-2"]
    assert run["global_step"] == 4  # should_training_stop ended a 20-step run


def test_early_stopping_callback(shim):
    run = result(shim, "early_stopping")
    assert run["global_step"] == 4 and run["metric_calls"] == 4  # patience 2 after the best (2nd) evaluation
    assert run["best_model_checkpoint"] == "checkpoint-2" and run["checkpoints"] == ["checkpoint-2"]
    assert run["best_vs_live"] == 0.0


# --- outputs ----------------------------------------------------------------------------------------------------

def test_predict_evaluate_and_compute_metrics(shim):
    run = result(shim, "outputs")
    predict = run["predict"]
    assert predict["shape"] == [20, 2] and predict["max_abs_diff_vs_model"] < 1e-5  # the model's logits
    labels = [int(x) for x in predict["label_ids"]]
    assert len(labels) == 20 and set(labels) == {0, 1}
    assert set(predict["metrics"]) == {"test_loss", "test_accuracy", "test_runtime", "test_samples_per_second",
                                       "test_steps_per_second"}
    assert predict["metrics"]["test_accuracy"] == pytest.approx(run["eval_accuracy_from_logits"])
    assert run["evaluate"]["eval_loss"] == pytest.approx(predict["metrics"]["test_loss"], rel=1e-6)
    assert run["evaluate"]["eval_accuracy"] == predict["metrics"]["test_accuracy"]
    # compute_metrics received EvalPredictions with the inputs (include_for_metrics=["inputs"])
    assert {(m["type"], m["fields"]) for m in run["metric_inputs_seen"]} == {("EvalPrediction", 3)}
    assert all(m["inputs_shape"] == [20, 16] and m["predictions_shape"] == [20, 2]
               for m in run["metric_inputs_seen"])
    assert len(run["metric_inputs_seen"]) == 4  # 2 epoch evaluations, predict, evaluate


def test_batch_eval_metrics(shim):
    run = result(shim, "outputs")
    assert run["batched_calls"] == [{"compute_result": False, "is_tensor": True, "rows": 8},
                                    {"compute_result": False, "is_tensor": True, "rows": 8},
                                    {"compute_result": True, "is_tensor": True, "rows": 4}]
    assert run["batched_evaluate"]["eval_accuracy"] == run["evaluate"]["eval_accuracy"]
    assert run["batched_evaluate"]["eval_loss"] == pytest.approx(run["evaluate"]["eval_loss"], rel=1e-6)


def test_log_metrics_save_metrics_save_state_and_log_history(shim):
    run = result(shim, "outputs")
    files = run["files"]
    assert files["train_results.json"]["train_loss"] == pytest.approx(run["train_metrics"]["train_loss"])
    assert files["eval_results.json"]["eval_accuracy"] == run["evaluate"]["eval_accuracy"]
    assert set(files["all_results.json"]) >= {"train_loss", "eval_loss", "eval_accuracy", "epoch"}
    state = files["trainer_state.json"]
    assert state["global_step"] == 10 and state["epoch"] == 2.0
    losses = [h for h in state["log_history"] if "loss" in h]
    evals = [h for h in state["log_history"] if "eval_loss" in h]
    assert [h["step"] for h in losses] == list(range(1, 11)) and [h["step"] for h in evals] == [5, 10]
    assert all({"grad_norm", "learning_rate", "epoch"} <= set(h) for h in losses)


# --- tooling ----------------------------------------------------------------------------------------------------

def test_hf_argument_parser_from_command_line_and_json(shim):
    run = result(shim, "hf_argument_parser")
    expected = {"hidden_size": 48, "task": "topics", "max_steps": 2, "learning_rate": 0.01,
                "lr_scheduler_type": "SchedulerType.COSINE", "report_to": [], "batch": 4}
    assert run["cli"] == expected and run["json"] == expected
    assert run["global_step"] == 2 and len(run["losses"]) == 2  # the parsed arguments train


def test_neftune_noise_alpha(shim):
    run = result(shim, "neftune")
    training = [r for r in run["records"] if r["training"]]
    evaluation = [r for r in run["records"] if not r["training"]]
    assert len(training) == 2 and len(evaluation) == 1
    for record in training:  # uniform noise of magnitude alpha / sqrt(L * d) on the embeddings
        assert 0.5 * record["bound"] < record["max_abs_noise"] <= record["bound"] * (1 + 1e-5)
        assert abs(record["mean_noise"]) < 0.1 * record["bound"]
    assert evaluation[0]["max_abs_noise"] == 0.0  # no noise in evaluation
    assert run["hooks_left_after_train"] == 0 and run["after_train_max_abs_noise"] == 0.0


def test_peft_lora_train_save_reload_merge(shim):
    run = result(shim, "peft_lora")
    assert 0 < run["trainable"] < 0.1 * run["total"]
    assert run["lora_b_before"] == 0.0 and run["lora_b_after"] > 0.1  # the adapters trained
    assert len(run["losses"]) == 6
    assert {"adapter_config.json", "adapter_model.safetensors"} <= set(run["adapter_files"])
    assert run["vs_base_max_abs_diff"] > 1e-2  # the adapter changes the outputs...
    assert run["reload_max_abs_diff"] < 1e-6  # ...and PeftModel.from_pretrained restores them
    assert run["merged_max_abs_diff"] < 1e-5 and run["merged_type"] == "BertForSequenceClassification"
    assert not run["merged_has_lora"]


def test_report_to_tensorboard_writes_event_files_tensorboard_reads(shim):
    run = result(shim, "tensorboard")
    assert run["callbacks"] == ["DefaultFlowCallback", "TensorBoardCallback", "PrinterCallback"]
    assert run["writer_class"] == ["mindnlp_shim.torch.utils.tensorboard.writer.SummaryWriter"]
    assert run["event_files"] == 1
    scalars = run["scalars"]
    assert [s for s, _ in scalars["train/loss"]] == [1, 2, 3]
    np.testing.assert_allclose([v for _, v in scalars["train/loss"]], [v for _, v in run["losses"]], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in scalars["eval/loss"]], [v for _, v in run["eval_losses"]], rtol=1e-6)
    assert {"train/grad_norm", "train/learning_rate", "train/train_loss"} <= set(scalars)
    assert '"output_dir"' in run["texts"]["args/text_summary"]  # the TrainingArguments as JSON text
    assert '"hidden_dropout_prob"' in run["texts"]["model_config/text_summary"]
    assert run["add_scalars"] == {"pair_a": [[7, 1.0]], "pair_b": [[7, 2.5]]}
    assert "add_histogram is not supported" in run["histogram_error"]


def test_hyperparameter_search_with_optuna(shim):
    run = result(shim, "hyperparameter_search")
    assert len(run["objectives"]) == 2  # two trials, each trained and evaluated
    assert len(run["model_inits"]) == 3  # model_init: once at construction, once per trial
    assert run["best_objective"] == min(run["objectives"])
    hyperparameters = run["best_hyperparameters"]
    assert 1e-4 <= hyperparameters["learning_rate"] <= 1e-2
    assert hyperparameters["per_device_train_batch_size"] in (4, 8)


def test_progress_bar(shim):
    stderr = result(shim, "progress_bar")["stderr"]
    assert "2/2" in stderr and "100%" in stderr


def test_saved_args_json_round_trip(shim):
    # the parser's JSON file is what users keep beside their runs
    with open(os.path.join(shim["output_dir"], "hf_args.json")) as f:
        assert json.load(f)["lr_scheduler_type"] == "cosine"
