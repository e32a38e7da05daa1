"""Resume scenarios for tests/test_trainer_resume.py (see tiny_trainer.py for the command line).

Every run trains the same tiny BERT (dropout on) on 40 examples in batches of 8 (5 steps per epoch) with
`constant_with_warmup` (2 warmup steps), whose schedule does not depend on max_steps, so an interrupted run
and the uninterrupted one follow the same learning rates. Each run records its per-step losses and learning
rates, the batches it trained on, and one draw from Python's, NumPy's and torch's RNG at each step start.

    baseline             N=12 steps without interruption
    resume_max_steps     max_steps=7 (saves checkpoint-7, mid-epoch), then a new Trainer with other initial
                         weights resumes with resume_from_checkpoint=True to max_steps=12
    resume_path          a callback stops and saves at step 5 (an epoch boundary), then a new Trainer resumes
                         with resume_from_checkpoint=<path>
    ignore_data_skip     like resume_max_steps, resumed with ignore_data_skip=True
"""
import os
import shutil

import tiny_trainer as tt
from tiny_trainer import TrainerCallback

N_STEPS, N_EXAMPLES = 12, 40
SCHEDULE = dict(lr_scheduler_type="constant_with_warmup", warmup_steps=2, learning_rate=2e-3)


def _trainer(output_dir, model_seed, max_steps, callbacks=(), **overrides):
    probe = tt.RngProbe()
    trainer = tt.RecordingTrainer(
        model=tt.bert(model_seed), train_dataset=tt.classification_data(0, n=N_EXAMPLES),
        args=tt.training_args(output_dir, max_steps=max_steps, **SCHEDULE, **overrides),
        callbacks=[probe, *callbacks])
    trainer.probe = probe
    return trainer


def _record(trainer):
    return {"losses": tt.history(trainer, "loss"), "learning_rates": tt.history(trainer, "learning_rate"),
            "grad_norms": tt.history(trainer, "grad_norm"), "batches": trainer.batches,
            "rng_draws": trainer.probe.draws, "global_step": trainer.state.global_step}


def baseline(output_dir):
    trainer = _trainer(output_dir, 0, N_STEPS)
    trainer.train()
    return _record(trainer)


def resume_max_steps(output_dir):
    first = _trainer(output_dir, 0, 7, save_strategy="steps", save_steps=7)
    first.train()
    report = {"first": _record(first), "checkpoints": tt.checkpoints(output_dir)}
    # other initial weights: matching losses prove the checkpoint's weights were loaded
    second = _trainer(output_dir, 123, N_STEPS, save_strategy="steps", save_steps=7)
    second.train(resume_from_checkpoint=True)
    report["second"] = _record(second)
    report["checkpoints_after"] = sorted(tt.checkpoints(output_dir))
    return report


class StopAndSaveAt(TrainerCallback):
    """Interrupts a run the way a user does: saves a checkpoint at `step` and stops there."""

    def __init__(self, step):
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == self.step:
            control.should_save = True
            control.should_training_stop = True


def resume_path(output_dir):
    first = _trainer(output_dir, 0, N_STEPS, callbacks=[StopAndSaveAt(5)])
    first.train()
    report = {"first": _record(first), "checkpoints": tt.checkpoints(output_dir)}
    checkpoint = os.path.join(output_dir, "checkpoint-5")
    moved = os.path.join(os.path.dirname(output_dir), "resume_path_checkpoint")  # outside the new output_dir
    shutil.move(checkpoint, moved)
    second = _trainer(output_dir + "-second", 7, N_STEPS)
    second.train(resume_from_checkpoint=moved)
    report["second"] = _record(second)
    return report


def ignore_data_skip(output_dir):
    first = _trainer(output_dir, 0, 7, save_strategy="steps", save_steps=7)
    first.train()
    second = _trainer(output_dir, 123, N_STEPS, ignore_data_skip=True)
    second.train(resume_from_checkpoint=os.path.join(output_dir, "checkpoint-7"))
    return {"first": _record(first), "second": _record(second)}


if __name__ == "__main__":
    tt.main({"baseline": baseline, "resume_max_steps": resume_max_steps, "resume_path": resume_path,
             "ignore_data_skip": ignore_data_skip})
