"""One rank of a 2-process Trainer run of a tiny BERT (from a config), runnable on the shim (SHIM=1, launched by
`python -m mindnlp.run`) and on real torch (launched by `python -m torch.distributed.run`).

Fixed weights (NumPy-drawn), dropout off, a sequential sampler, gradient accumulation 2 (DDP's no_sync), a
checkpoint at step 2. Writes OUT/<tag>_rank<r>.npz (final parameters) and OUT/<tag>_rank<r>.json (what the
rank saw and how the Trainer was set up).

    distributed_trainer_run.py OUT TAG [--resume CHECKPOINT_DIR]
"""
import json
import os
import sys

if os.environ.get("SHIM") == "1":
    import mindnlp  # noqa: F401

import numpy as np
import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

STEPS, ACCUM, BATCH, SEQ = 3, 2, 2, 8
N_EXAMPLES = STEPS * ACCUM * BATCH * 2  # every example once over the 2 ranks


def build_model():
    config = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32, type_vocab_size=2, num_labels=2,
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertForSequenceClassification(config)
    rng = np.random.RandomState(0)
    weights = {}
    for name, value in model.state_dict().items():
        if not value.is_floating_point():
            continue
        draw = rng.normal(0.0, 0.05, size=tuple(value.shape)).astype(np.float32)
        weights[name] = torch.tensor(draw + (1.0 if name.endswith("LayerNorm.weight") else 0.0))
    model.load_state_dict(weights, strict=False)
    return model


class Examples(torch.utils.data.Dataset):
    """Fixed token ids and labels; records which indices this rank loaded."""

    def __init__(self):
        rng = np.random.RandomState(1)
        self.ids = rng.randint(1, 64, size=(N_EXAMPLES, SEQ))
        self.labels = rng.randint(0, 2, size=N_EXAMPLES)
        self.seen = []

    def __len__(self):
        return N_EXAMPLES

    def __getitem__(self, i):
        self.seen.append(int(i))
        return {"input_ids": torch.tensor(self.ids[i]), "attention_mask": torch.ones(SEQ, dtype=torch.int64),
                "labels": torch.tensor(int(self.labels[i]))}


def main(out, tag, resume=None):
    args = TrainingArguments(
        output_dir=os.path.join(out, f"{tag}_output"), per_device_train_batch_size=BATCH,
        gradient_accumulation_steps=ACCUM, max_steps=STEPS, learning_rate=1e-2, weight_decay=0.01,
        lr_scheduler_type="linear", warmup_steps=1, train_sampling_strategy="sequential", save_strategy="steps",
        save_steps=2, logging_steps=1, report_to=[], seed=0, dataloader_num_workers=0, use_cpu=True,
        disable_tqdm=True, save_only_model=False)
    data = Examples()
    model = build_model()
    if args.process_index == 0:
        np.savez(os.path.join(out, f"{tag}_initial.npz"),
                 **{n: p.detach().numpy().copy() for n, p in model.named_parameters()})
    trainer = Trainer(model=model, args=args, train_dataset=data)
    trainer.train(resume_from_checkpoint=resume)
    rank = args.process_index
    model = trainer.model
    np.savez(os.path.join(out, f"{tag}_rank{rank}.npz"),
             **{n: p.detach().numpy().copy() for n, p in model.named_parameters()})
    report = {
        "rank": rank, "world_size": args.world_size, "env_rank": int(os.environ["RANK"]),
        "wrapped": type(trainer.model_wrapped).__name__, "distributed_type": str(trainer.accelerator.distributed_type),
        "is_world_process_zero": trainer.is_world_process_zero(), "should_save": args.should_save,
        "should_log": args.should_log, "seen": data.seen, "global_step": trainer.state.global_step,
        "losses": [h["loss"] for h in trainer.state.log_history if "loss" in h],
    }
    with open(os.path.join(out, f"{tag}_rank{rank}.json"), "w") as fh:
        json.dump(report, fh)


if __name__ == "__main__":
    resume = sys.argv[sys.argv.index("--resume") + 1] if "--resume" in sys.argv else None
    main(sys.argv[1], sys.argv[2], resume)
