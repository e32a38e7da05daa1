"""A Trainer run that tests/test_crash_safe_checkpoints.py kills with SIGKILL at random moments and resumes.

    python crash_safe_train.py --output-dir D --events F [--resume] [--stop-after K] [--kill-in-save STEP]
                               [--without-crash-safe-patch]

A tiny BERT trains with a checkpoint after every step (`save_steps=1`, `save_total_limit=2`, so rotation runs at
every save too). Events go to F as JSON lines, each flushed at once so that a SIGKILL loses none written:
{"start": global step the run starts from}, {"saved": step} after each checkpoint, {"done": step} at the end.
`--stop-after K` ends training normally K steps after the start; `--kill-in-save STEP` kills the process itself
in the middle of the save at STEP (model and optimizer written, RNG and trainer state not yet).
`--without-crash-safe-patch` leaves transformers' checkpoint code unpatched, to measure what the patch changes.
"""
import argparse
import json
import os
import signal

parser = argparse.ArgumentParser()
parser.add_argument("--output-dir", required=True)
parser.add_argument("--events", required=True)
parser.add_argument("--resume", action="store_true")
parser.add_argument("--stop-after", type=int, default=None)
parser.add_argument("--kill-in-save", type=int, default=None)
parser.add_argument("--without-crash-safe-patch", action="store_true")
ARGS = parser.parse_args()

if ARGS.without_crash_safe_patch:
    from mindnlp_shim import patches

    patches._PATCHES = {target: [m for m in names if m != "transformers_checkpoints"]
                        for target, names in patches._PATCHES.items()}

import mindnlp  # noqa: E402,F401  (installs the shim)
import datasets  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import (BertConfig, BertForSequenceClassification, Trainer, TrainerCallback,  # noqa: E402
                          TrainingArguments)

MAX_STEPS = 100_000  # never reached: runs end by a kill or by --stop-after


def event(**record):
    with open(ARGS.events, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()


class Events(TrainerCallback):
    def __init__(self):
        self.start = None

    def on_train_begin(self, args, state, control, **kwargs):
        self.start = state.global_step
        event(start=state.global_step, pid=os.getpid())

    def on_step_end(self, args, state, control, **kwargs):
        if ARGS.stop_after is not None and state.global_step >= self.start + ARGS.stop_after:
            control.should_training_stop = True

    def on_save(self, args, state, control, **kwargs):
        event(saved=state.global_step)


class KillInSave(Trainer):
    def _save_rng_state(self, output_dir):
        if self.state.global_step == ARGS.kill_in_save:
            os.kill(os.getpid(), signal.SIGKILL)
        return super()._save_rng_state(output_dir)


def data(n=64, length=12, seed=0):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 2, size=n)
    ids = rng.randint(5, 50, size=(n, length)) + 45 * labels[:, None]
    return datasets.Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": np.ones_like(ids).tolist(),
                                       "labels": labels.tolist()})


def main():
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(
        vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=32, num_labels=2))
    args = TrainingArguments(output_dir=ARGS.output_dir, max_steps=MAX_STEPS, per_device_train_batch_size=8,
                             learning_rate=1e-3, save_strategy="steps", save_steps=1, save_total_limit=2,
                             logging_steps=50, report_to=[], disable_tqdm=True, seed=0)
    trainer = KillInSave(model=model, args=args, train_dataset=data(), callbacks=[Events()])
    trainer.train(resume_from_checkpoint=True if ARGS.resume else None)
    event(done=trainer.state.global_step)


if __name__ == "__main__":
    main()
