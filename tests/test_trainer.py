"""The unmodified transformers Trainer on the shim: a tiny random BERT learns a learnable synthetic task,
checkpoints appear per save_strategy with every file the Trainer writes, save_model/from_pretrained round-trips,
predict/evaluate report the right things, both AdamW variants train, resume continues where it left off, and
the optimizer/scheduler files load in real PyTorch.

The Trainer runs with the shim installed in a subprocess (tests/scripts/trainer_run.py); this process only
reads its JSON report and the files it wrote.
"""
import json
import os

import numpy as np
import pytest

from oracle import require_torch, run_torch, run_torch_json
from shim_runner import run_shim_json, script

TRAINER_RUN = script("trainer_run.py")
CHECKPOINT_FILES = {"model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth", "trainer_state.json",
                    "training_args.bin"}
N_EXAMPLES, STEPS = 64, 32  # 64 examples, batch 8, 4 epochs (trainer_run.py)


def _run(tmp_path_factory, scenario):
    output_dir = str(tmp_path_factory.mktemp(f"trainer_{scenario}") / "out")
    report = run_shim_json([TRAINER_RUN, "--scenario", scenario, "--output-dir", output_dir], timeout=900)
    report["output_dir"] = output_dir
    return report


@pytest.fixture(scope="module")
def steps_run(tmp_path_factory):
    """Default optim, save_strategy="steps" every 10 steps, then predict/evaluate/save_model and a resume."""
    return _run(tmp_path_factory, "steps")


@pytest.fixture(scope="module")
def epoch_run(tmp_path_factory):
    """optim="adamw_torch", save_strategy="epoch"."""
    return _run(tmp_path_factory, "epoch")


@pytest.fixture(scope="module")
def parity_runs(tmp_path_factory):
    """The same short run (dropout off, sequential sampling, shared initial weights) on real torch and on ours."""
    require_torch()
    output_dir = str(tmp_path_factory.mktemp("trainer_parity"))
    torch_report = json.loads(run_torch(f"""
        import runpy, sys
        sys.argv = [{TRAINER_RUN!r}, "--scenario", "parity", "--side", "torch", "--output-dir", {output_dir!r}]
        runpy.run_path({TRAINER_RUN!r}, run_name="__main__")
    """, timeout=600).strip().splitlines()[-1])
    shim_report = run_shim_json([TRAINER_RUN, "--scenario", "parity", "--output-dir", output_dir], timeout=600)
    params = {side: dict(np.load(os.path.join(output_dir, f"{side}_parity.npz"))) for side in ("torch", "shim")}
    return {"torch": torch_report, "shim": shim_report, "params": params}


@pytest.fixture(scope="module")
def checkpointing_run(tmp_path_factory):
    """A plain run and a gradient_checkpointing=True run from the same weights, dropout off."""
    return _run(tmp_path_factory, "checkpointing")


@pytest.fixture(params=["steps", "epoch"])
def any_run(request):
    return request.getfixturevalue(f"{request.param}_run")


def test_loss_decreases(any_run):
    losses = [loss for _, loss in any_run["losses"]]
    assert any_run["global_step"] == STEPS
    assert len(losses) == STEPS // 2  # logging_steps=2
    assert all(0 < loss < 5 for loss in losses)
    assert losses[0] > 0.6  # chance level for 2 balanced classes is ln 2
    assert losses[-1] < 0.5 * losses[0], losses
    assert 0 < any_run["training_loss"] < losses[0]


def test_default_optim_is_fused_adamw(steps_run):
    assert steps_run["optim"].endswith("ADAMW_TORCH_FUSED")
    assert steps_run["optimizer"].endswith("torch.optim.adamw.AdamW")
    assert steps_run["optimizer"].startswith("mindnlp_shim.")


def test_adamw_torch_trains(epoch_run):
    assert epoch_run["optim"].endswith("ADAMW_TORCH")
    assert epoch_run["optimizer"] == "mindnlp_shim.torch.optim.adamw.AdamW"


def test_checkpoints_every_save_steps(steps_run):
    assert set(steps_run["checkpoints"]) == {"checkpoint-10", "checkpoint-20", "checkpoint-30", "checkpoint-32"}
    for name, files in steps_run["checkpoints"].items():
        assert CHECKPOINT_FILES <= set(files), (name, files)


def test_checkpoints_every_epoch(epoch_run):
    assert set(epoch_run["checkpoints"]) == {"checkpoint-8", "checkpoint-16", "checkpoint-24", "checkpoint-32"}
    for name, files in epoch_run["checkpoints"].items():
        assert CHECKPOINT_FILES <= set(files), (name, files)


def test_evaluates_every_epoch_and_loads_best_model_at_end(epoch_run):
    assert [step for step, _ in epoch_run["eval_losses"]] == [8, 16, 24, 32]
    # greater_is_better=True on the loss: the first epoch is "best", its weights replace the final ones
    assert epoch_run["best_model_checkpoint"].endswith("checkpoint-8")
    assert epoch_run["best_vs_live_max_abs_diff"] == 0.0
    assert epoch_run["last_vs_live_max_abs_diff"] > 1e-3
    assert epoch_run["final_eval_loss"] == pytest.approx(epoch_run["eval_losses"][0][1], rel=1e-6)


def test_trainer_state_json_records_the_run(steps_run):
    with open(os.path.join(steps_run["output_dir"], "checkpoint-20", "trainer_state.json")) as f:
        state = json.load(f)
    assert state["global_step"] == 20
    assert state["max_steps"] == STEPS
    logged = [[h["step"], h["loss"]] for h in state["log_history"] if "loss" in h]
    assert logged == steps_run["losses"][:10]


def test_save_model_then_from_pretrained_gives_identical_logits(steps_run):
    assert {"model.safetensors", "config.json"} <= set(steps_run["final_files"])
    assert steps_run["reload_logits_absmax"] > 0.1  # a trained model, not all-zero logits
    assert steps_run["reload_max_abs_diff"] <= 1e-6


def test_predict(steps_run):
    predict = steps_run["predict"]
    assert predict["predictions_shape"] == [N_EXAMPLES, 2]
    labels = predict["label_ids"]
    assert len(labels) == N_EXAMPLES and set(labels) == {0, 1}
    metrics = predict["metrics"]
    assert 0 < metrics["test_loss"] < 0.5  # the trained model, on held-out data of the same rule
    assert metrics["test_accuracy"] >= 0.9
    assert steps_run["predict_vs_model_max_abs_diff"] <= 1e-6  # predictions are the model's logits


def test_evaluate(steps_run):
    evaluation = steps_run["evaluate"]
    assert evaluation["eval_loss"] == pytest.approx(steps_run["predict"]["metrics"]["test_loss"], rel=1e-6)
    assert evaluation["eval_accuracy"] == steps_run["predict"]["metrics"]["test_accuracy"]
    assert evaluation["epoch"] == 4.0


def test_resume_from_checkpoint_continues_with_identical_losses(steps_run):
    resume = steps_run["resume"]
    assert resume["global_step"] == STEPS
    # the resumed model starts from other random weights: equal losses prove it loaded checkpoint-20's model,
    # optimizer, scheduler and RNG state and skipped the batches already seen
    assert resume["losses"] == steps_run["losses"]
    assert set(resume["checkpoints"]) == {"checkpoint-10", "checkpoint-20", "checkpoint-30", "checkpoint-32"}


def test_optimizer_and_scheduler_files_load_in_real_torch(steps_run):
    require_torch()
    checkpoint = os.path.join(steps_run["output_dir"], "checkpoint-20")
    result = run_torch_json(f"""
        import json, os, torch
        folder = {checkpoint!r}
        opt_sd = torch.load(os.path.join(folder, "optimizer.pt"), weights_only=True)
        sched_sd = torch.load(os.path.join(folder, "scheduler.pt"), weights_only=True)
        state, groups = opt_sd["state"], opt_sd["param_groups"]
        ids = [i for g in groups for i in g["params"]]
        entries = [state[i] for i in ids]
        out = {{
            "keys": sorted(opt_sd), "ids": ids, "state_keys": sorted(state),
            "entry_keys": sorted({{k for e in entries for k in e}}),
            "all_tensors": all(isinstance(v, torch.Tensor) for e in entries for v in e.values()),
            "float32": all(e["exp_avg"].dtype == e["exp_avg_sq"].dtype == torch.float32 for e in entries),
            "steps": sorted({{float(e["step"]) for e in entries}}),
            "same_shapes": all(e["exp_avg"].shape == e["exp_avg_sq"].shape for e in entries),
            "group_lrs": [g["lr"] for g in groups], "betas": [list(g["betas"]) for g in groups],
            "sched_keys": sorted(sched_sd), "last_epoch": sched_sd["last_epoch"],
            "last_lr": sched_sd["_last_lr"], "base_lrs": sched_sd["base_lrs"],
        }}
        # real torch's AdamW and LambdaLR accept the files and step from them
        params = {{i: torch.nn.Parameter(torch.zeros_like(state[i]["exp_avg"])) for i in ids}}
        opt = torch.optim.AdamW([{{"params": [params[i] for i in g["params"]]}} for g in groups], lr=1.0)
        opt.load_state_dict(opt_sd)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0)
        sched.load_state_dict(sched_sd)
        for p in params.values():
            p.grad = torch.ones_like(p)
        opt.step()
        out["steps_after"] = sorted({{float(opt.state[p]["step"]) for p in params.values()}})
        out["moved"] = all(bool((p != 0).any()) for p in params.values())
        print(json.dumps(out))
    """)
    assert result["keys"] == ["param_groups", "state"]
    assert len(result["ids"]) == len(set(result["ids"])) == len(result["state_keys"]) == 41  # tiny BERT's params
    assert result["entry_keys"] == ["exp_avg", "exp_avg_sq", "step"]
    assert result["all_tensors"] and result["float32"] and result["same_shapes"]
    assert result["steps"] == [20.0]
    assert len(result["group_lrs"]) == 2  # the Trainer's decay / no-decay groups
    assert result["betas"] == [[0.9, 0.999], [0.9, 0.999]]
    assert {"base_lrs", "last_epoch", "_last_lr"} <= set(result["sched_keys"])
    assert result["last_epoch"] == 20
    assert result["base_lrs"] == [5e-3, 5e-3]
    assert result["last_lr"] == pytest.approx(result["group_lrs"])
    assert result["last_lr"][0] == pytest.approx(5e-3 * (STEPS - 20) / STEPS)  # linear decay, no warmup
    assert result["steps_after"] == [21.0] and result["moved"]


def test_short_run_matches_real_torch_step_by_step(parity_runs):
    ours, theirs = parity_runs["shim"], parity_runs["torch"]
    assert ours["optim"] == theirs["optim"]
    assert ours["steps"] == theirs["steps"] == list(range(1, 9))
    assert ours["learning_rates"] == theirs["learning_rates"]  # warmup then linear decay
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-4)
    np.testing.assert_allclose(ours["grad_norms"], theirs["grad_norms"], rtol=1e-4)
    assert max(theirs["grad_norms"]) > 1.0  # clipping was active on at least one step
    params = parity_runs["params"]
    assert sorted(params["shim"]) == sorted(params["torch"])
    for name, theirs_p in params["torch"].items():
        ours_p = params["shim"][name]
        if name.endswith("attention.self.key.bias"):
            # zero gradient in exact arithmetic (softmax ignores it); AdamW turns rounding noise into steps of up
            # to ~lr, differently on each side, so only the size of what it moved is bounded
            assert np.abs(ours_p).max() <= 8 * 5e-3 and np.abs(theirs_p).max() <= 8 * 5e-3
            continue
        error = np.linalg.norm(ours_p.astype(np.float64) - theirs_p) / np.linalg.norm(theirs_p)
        assert error < 1e-3, (name, error)


def test_resume_from_a_checkpoint_real_torch_wrote(parity_runs):
    """Real torch's checkpoint-4 (model, optimizer, scheduler, trainer state and its CPU RNG state, which the
    shim's generator restores) continues on ours as torch continued it."""
    resumed, theirs = parity_runs["shim"]["resumed_from_torch"], parity_runs["torch"]
    assert "error" not in resumed, resumed["error"]
    assert resumed["global_step"] == 8
    assert resumed["steps"] == theirs["steps"]
    assert resumed["losses"][:4] == theirs["losses"][:4]  # torch's own log, read from trainer_state.json
    assert resumed["learning_rates"] == theirs["learning_rates"]
    np.testing.assert_allclose(resumed["losses"][4:], theirs["losses"][4:], rtol=1e-4)
    np.testing.assert_allclose(resumed["grad_norms"][4:], theirs["grad_norms"][4:], rtol=1e-4)


def test_gradient_checkpointing_takes_the_plain_runs_steps(checkpointing_run):
    assert checkpointing_run["enabled"] == [False, True]
    plain, checkpointed = checkpointing_run["plain"], checkpointing_run["checkpointed"]
    assert checkpointed["global_step"] == plain["global_step"] == 4
    # recomputation replays the same ops on the same values: the same numbers, bit for bit
    assert checkpointed["losses"] == plain["losses"]
    assert checkpointed["grad_norms"] == plain["grad_norms"]
    assert checkpointing_run["param_max_abs_diff"] == 0.0
