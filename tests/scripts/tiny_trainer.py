"""Shared pieces of the Trainer feature runs (tests/scripts/trainer_*_run.py): a tiny random BERT, learnable
synthetic data, TrainingArguments defaults that keep runs short and quiet, recorders, and `main()`, which runs
the scenarios named on the command line and prints one JSON report as its last line.

    python <run script> --output-dir D --scenarios a,b [--side torch]

`--side torch` runs the same code on real PyTorch (only for scenarios that are compared with it); otherwise
`import mindnlp` installs the shim before anything imports torch. Each scenario's result is a JSON-able dict;
a scenario that raises reports {"error": <traceback>} and the others still run.
"""
import argparse
import json
import os
import random
import sys
import traceback

_parser = argparse.ArgumentParser()
_parser.add_argument("--scenarios", required=True, help="comma-separated scenario names")
_parser.add_argument("--output-dir", required=True)
_parser.add_argument("--side", choices=["shim", "torch"], default="shim")
ARGS, _ = _parser.parse_known_args()
SIDE = ARGS.side

if SIDE == "shim":
    import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import datasets  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import (BertConfig, BertForSequenceClassification, Trainer, TrainerCallback,  # noqa: E402
                          TrainingArguments)

assert torch.__name__.startswith("mindnlp_shim") == (SIDE == "shim"), torch.__name__

LENGTH, VOCAB = 16, 100
CONFIG = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
              max_position_embeddings=32)
NO_DROPOUT = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
CHECKPOINT_FILES = ["model.safetensors", "optimizer.pt", "rng_state.pth", "scheduler.pt", "trainer_state.json",
                    "training_args.bin"]


def token_rows(seed, n, length=LENGTH, ragged=True):
    """Class 0 rows use token ids 5..49, class 1 ids 50..94 (so the task is learnable); id 2 opens each row.
    Returns (ids, lengths, labels) with ids unpadded lists when `ragged`."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 2, size=n)
    ids = rng.randint(5, 50, size=(n, length)) + 45 * labels[:, None]
    ids[:, 0] = 2
    lengths = rng.randint(length // 2, length + 1, size=n) if ragged else np.full(n, length)
    return ids, lengths, labels


def classification_data(seed, n=40, padded=True):
    """A `datasets.Dataset` of input_ids/attention_mask/labels; padded to LENGTH, or ragged (no mask) when not."""
    ids, lengths, labels = token_rows(seed, n)
    if not padded:
        return datasets.Dataset.from_dict({"input_ids": [row[:k].tolist() for row, k in zip(ids, lengths)],
                                           "labels": labels.tolist()})
    mask = (np.arange(LENGTH)[None, :] < lengths[:, None]).astype(np.int64)
    return datasets.Dataset.from_dict({"input_ids": (ids * mask).tolist(), "attention_mask": mask.tolist(),
                                       "labels": labels.tolist()})


def bert(seed=0, dropout=True, **config):
    torch.manual_seed(seed)
    return BertForSequenceClassification(BertConfig(**{**CONFIG, "num_labels": 2, **({} if dropout else NO_DROPOUT),
                                                       **config}))


def training_args(output_dir, **overrides):
    kwargs = dict(output_dir=output_dir, per_device_train_batch_size=8, per_device_eval_batch_size=16,
                  learning_rate=5e-3, logging_steps=1, seed=0, report_to=[], disable_tqdm=True, save_strategy="no")
    kwargs.update(overrides)
    return TrainingArguments(**kwargs)


def history(trainer, key):
    """[[step, value], ...] for every log_history entry that has `key`."""
    return [[h["step"], h[key]] for h in trainer.state.log_history if key in h]


def values(trainer, key):
    return [v for _, v in history(trainer, key)]


def checkpoints(output_dir):
    return {d: sorted(os.listdir(os.path.join(output_dir, d))) for d in sorted(os.listdir(output_dir))
            if d.startswith("checkpoint-")}


def unwrapped_optimizer(trainer):
    return getattr(trainer.optimizer, "optimizer", trainer.optimizer)  # accelerate wraps it


def qualified_name(obj):
    """The class by the module object that defines it: under the shim that module's own name (mindnlp_shim.torch.*),
    while the class's `__module__` says torch's."""
    return defining_name(type(obj))


def defining_name(cls):
    import inspect

    return f"{inspect.getmodule(cls).__name__}.{cls.__name__}"


def params_numpy(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def max_param_diff(a, b):
    return max(float(np.abs(a[k] - b[k]).max()) for k in a)


def batch_signature(inputs):
    """Which examples a batch holds, in order: the sum of each row's token ids (distinct per row here)."""
    return np.asarray(inputs["input_ids"].numpy()).sum(axis=1).tolist()


class RecordingTrainer(Trainer):
    """Records the batches it trains on (one signature per micro-batch), in order."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.batches = []

    def training_step(self, model, inputs, num_items_in_batch=None):
        self.batches.append(batch_signature(inputs))
        return super().training_step(model, inputs, num_items_in_batch)


class RngProbe(TrainerCallback):
    """At every step start, draws one number from Python's, NumPy's and torch's global generators, so two runs
    can show they continued from the same RNG states."""

    def __init__(self):
        self.draws = []

    def on_step_begin(self, args, state, control, **kwargs):
        self.draws.append([state.global_step + 1, random.random(), float(np.random.random()),
                           float(torch.rand(1).item())])


def error_report():
    return {"error": traceback.format_exc()}


def main(scenarios):
    os.makedirs(ARGS.output_dir, exist_ok=True)
    report = {}
    for name in ARGS.scenarios.split(","):
        folder = os.path.join(ARGS.output_dir, name)
        try:
            report[name] = scenarios[name](folder)
        except Exception:  # one broken scenario must not hide the others' results
            report[name] = error_report()
    sys.stdout.flush()
    print(json.dumps(report, default=_jsonable))


def _jsonable(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)
