"""Checkpoint folders damaged by something other than a killed save, and a deletion cut short; for
tests/test_crash_safe_checkpoints.py. Prints one JSON report as its last line.

    python checkpoint_damage_run.py --output-dir D [--without-crash-safe-patch]

- damaged: a 4-step run (checkpoint-3 and checkpoint-4 kept), then copies of checkpoint-4 damaged in one way
  each (checkpoint-5 .. checkpoint-9) and leftovers of interrupted writes; get_last_checkpoint, an explicit
  resume from a damaged folder, and resume_from_checkpoint=True, which then trains on to step 10.
- rotation: three checkpoints, then `rotate_checkpoints(save_total_limit=1)` with a `shutil.rmtree` that
  deletes one file and then fails, as a process killed mid-deletion would.
"""
import argparse
import json
import logging
import os
import shutil
import sys
import traceback

parser = argparse.ArgumentParser()
parser.add_argument("--output-dir", required=True)
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
import transformers.trainer  # noqa: E402
from transformers import (BertConfig, BertForSequenceClassification, Trainer, TrainerCallback,  # noqa: E402
                          TrainingArguments)
from transformers.trainer_utils import get_last_checkpoint  # noqa: E402


class Start(TrainerCallback):
    def __init__(self):
        self.step = None

    def on_train_begin(self, args, state, control, **kwargs):
        self.step = state.global_step


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def trainer(output_dir, max_steps, **overrides):
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(
        vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=32, num_labels=2))
    rng = np.random.RandomState(0)
    ids = rng.randint(5, 95, size=(32, 12))
    data = datasets.Dataset.from_dict({"input_ids": ids.tolist(), "labels": (ids[:, 1] > 50).astype(int).tolist()})
    args = TrainingArguments(**{**dict(output_dir=output_dir, max_steps=max_steps, per_device_train_batch_size=8,
                                       save_strategy="steps", save_steps=1, report_to=[], disable_tqdm=True,
                                       seed=0), **overrides})
    start = Start()
    return Trainer(model=model, args=args, train_dataset=data, callbacks=[start]), start


def listing(folder):
    return sorted(os.listdir(folder))


def damaged(folder):
    first, _ = trainer(folder, 4, save_total_limit=2)
    first.train()
    report = {"after_first_run": listing(folder)}
    good = os.path.join(folder, "checkpoint-4")

    def copy(step, damage):
        target = os.path.join(folder, f"checkpoint-{step}")
        shutil.copytree(good, target)
        damage(target)

    copy(5, lambda d: os.remove(os.path.join(d, "trainer_state.json")))
    copy(6, lambda d: os.truncate(os.path.join(d, "model.safetensors"), 50_000))
    copy(7, lambda d: open(os.path.join(d, "checkpoint-is-incomplete.txt"), "w").close())
    copy(8, lambda d: os.remove(os.path.join(d, "scheduler.pt")))
    copy(9, lambda d: os.truncate(os.path.join(d, "optimizer.pt"), 1000))
    os.makedirs(os.path.join(folder, ".checkpoint-10.partial-0123456789ab", "checkpoint-10"))
    open(os.path.join(folder, ".checkpoint-10.partial-0123456789ab", "checkpoint-10", "config.json"), "w").close()
    open(os.path.join(good, ".optimizer.pt.0123456789ab.tmp"), "wb").close()
    open(os.path.join(folder, ".training_args.bin.abcdef012345.tmp"), "wb").close()
    report["damaged"] = listing(folder)

    records = Records()
    logging.getLogger("transformers").addHandler(records)
    report["get_last_checkpoint"] = os.path.basename(get_last_checkpoint(folder) or "")
    report["warnings"] = list(records.messages)

    explicit, _ = trainer(folder, 6)
    try:
        explicit.train(resume_from_checkpoint=os.path.join(folder, "checkpoint-5"))
        report["explicit_error"] = None
    except Exception as error:  # noqa: BLE001  (the test reads which error it was)
        report["explicit_error"] = f"{type(error).__name__}: {error}"
    report["after_explicit"] = listing(folder)

    resumed, start = trainer(folder, 10, save_total_limit=2)  # re-saves every damaged step
    resumed.train(resume_from_checkpoint=True)
    report["resumed_from"] = start.step
    report["resumed_to"] = resumed.state.global_step
    report["after_resume"] = {name: listing(os.path.join(folder, name)) if os.path.isdir(os.path.join(folder, name))
                              else None for name in listing(folder)}
    return report


def rotation(folder):
    first, _ = trainer(folder, 3)
    first.train()
    report = {"before": listing(folder)}
    real_rmtree = shutil.rmtree

    def killed_midway(path, *args, **kwargs):  # deletes one file, then the "process dies"
        os.remove(os.path.join(path, sorted(os.listdir(path))[0]))
        raise KeyboardInterrupt("killed while deleting")

    shutil.rmtree = killed_midway
    try:
        transformers.trainer.rotate_checkpoints(output_dir=folder, save_total_limit=1)
    except KeyboardInterrupt:
        pass
    finally:
        shutil.rmtree = real_rmtree
    report["after_cut_deletion"] = {name: listing(os.path.join(folder, name)) for name in listing(folder)}
    report["get_last_checkpoint"] = os.path.basename(get_last_checkpoint(folder) or "")
    resumed, start = trainer(folder, 4)
    resumed.train(resume_from_checkpoint=True)
    report["resumed_from"] = start.step
    report["after_resume"] = listing(folder)
    return report


def main():
    report = {}
    for name, scenario in [("damaged", damaged), ("rotation", rotation)]:
        try:
            report[name] = scenario(os.path.join(ARGS.output_dir, name))
        except BaseException:  # noqa: BLE001  (one broken scenario must not hide the other's result)
            report[name] = {"error": traceback.format_exc()}
    sys.stdout.flush()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
