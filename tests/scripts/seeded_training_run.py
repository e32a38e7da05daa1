"""A seeded Trainer run whose every random number comes from torch's CPU generator: a tiny BERT created from
its config (random initialisation under the seed), a shuffled DataLoader, dropout on. Prints one JSON line:
the exact loss of every optimizer step of the run and, with `--resume-from`, of a second run resumed from that
checkpoint folder (e.g. one the other side wrote).

    python seeded_training_run.py --output-dir D --steps N --save-steps K [--side torch] [--resume-from CKPT]

`--side torch` runs on real PyTorch; otherwise `import mindnlp` installs the shim first.
"""
import argparse
import json
import os

_parser = argparse.ArgumentParser()
_parser.add_argument("--output-dir", required=True)
_parser.add_argument("--steps", type=int, required=True)
_parser.add_argument("--save-steps", type=int, required=True)
_parser.add_argument("--resume-from", default=None, help="a checkpoint folder to resume after the plain run")
_parser.add_argument("--side", choices=["shim", "torch"], default="shim")
ARGS = _parser.parse_args()

if ARGS.side == "shim":
    import mindnlp  # noqa: F401
import datasets  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim") == (ARGS.side == "shim"), torch.__name__

SEED, ROWS, LENGTH, VOCAB = 1234, 48, 16, 100
CONFIG = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
              max_position_embeddings=32, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
              classifier_dropout=0.1)


def dataset():
    """Learnable rows: class 0 uses token ids 5..49, class 1 ids 50..94 (fixed length: no padding)."""
    rng = np.random.RandomState(7)
    labels = rng.randint(0, 2, size=ROWS)
    ids = rng.randint(5, 50, size=(ROWS, LENGTH)) + 45 * labels[:, None]
    ids[:, 0] = 2
    return datasets.Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": np.ones_like(ids).tolist(),
                                       "labels": labels.tolist()})


class RecordingTrainer(Trainer):
    """Records each step's exact loss (the Trainer's own log rounds it to 4 digits)."""

    losses = []

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        result = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        loss = result[0] if return_outputs else result
        if model.training:
            self.losses.append(float(loss.detach().double().item()))
        return result


def model_init():
    return BertForSequenceClassification(BertConfig(**CONFIG))


def run(output_dir, resume_from=None):
    args = TrainingArguments(output_dir=output_dir, per_device_train_batch_size=8, learning_rate=2e-3,
                             max_steps=ARGS.steps, warmup_steps=2, logging_steps=1, save_strategy="steps",
                             save_steps=ARGS.save_steps, seed=SEED, report_to=[], disable_tqdm=True,
                             use_cpu=True, dataloader_num_workers=0, max_grad_norm=1.0)
    RecordingTrainer.losses = []
    trainer = RecordingTrainer(model_init=model_init, args=args, train_dataset=dataset())
    trainer.train(resume_from_checkpoint=resume_from)
    return {"losses": RecordingTrainer.losses, "global_step": trainer.state.global_step,
            "checkpoints": sorted(d for d in os.listdir(output_dir) if d.startswith("checkpoint-"))}


def main():
    report = {"plain": run(os.path.join(ARGS.output_dir, ARGS.side))}
    if ARGS.resume_from:
        report["resumed"] = run(os.path.join(ARGS.output_dir, ARGS.side + "_resumed"), ARGS.resume_from)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
