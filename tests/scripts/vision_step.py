"""A tiny random ViT image classifier, run identically on real PyTorch and on the shim, for
tests/test_vision_model.py: the image processor, one forward/backward, and a short Trainer run.

    vision_step.py --phase build --workdir D   # real torch: build and save the seeded model, then measure
    vision_step.py --phase shim  --workdir D   # the shim: load that checkpoint, measure the same things

Each phase writes its arrays to D/<phase>.npz and prints a JSON summary (processor class, tensor types, Trainer
losses and metrics) as its last line.
"""
import argparse
import json
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--phase", choices=["build", "shim"], required=True)
parser.add_argument("--workdir", required=True)
args = parser.parse_args()

if args.phase == "shim":
    import mindnlp  # noqa: F401  (from here on `torch` is the shim)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402
from transformers import (Trainer, TrainingArguments, ViTConfig, ViTForImageClassification,  # noqa: E402
                          ViTImageProcessor)

ON_SHIM = args.phase == "shim"
assert torch.__name__.startswith("mindnlp_shim") == ON_SHIM, torch.__name__

SIDE = 16  # image side after the processor; 4x4 patches of 4x4 pixels
CONFIG = dict(image_size=SIDE, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2,
              num_attention_heads=4, intermediate_size=64, num_labels=3, hidden_dropout_prob=0.0,
              attention_probs_dropout_prob=0.0)


def path(*parts):
    return os.path.join(args.workdir, *parts)


def to_numpy(t):
    return np.array(t.detach().float().cpu().numpy(), dtype=np.float32, copy=True)


def processor():
    # constructed directly: no hub. Without torchvision transformers picks the PIL/NumPy implementation.
    return ViTImageProcessor(size={"height": SIDE, "width": SIDE})


def step_images():
    """Three PIL images of other sizes than the model's (the processor resizes them) and one NumPy HWC array."""
    rng = np.random.RandomState(0)
    images = [Image.fromarray(rng.randint(0, 256, (h, w, 3), dtype=np.uint8)) for h, w in ((20, 24), (16, 16),
                                                                                          (33, 17))]
    images.append(rng.randint(0, 256, (18, 22, 3), dtype=np.uint8))
    return images, np.array([0, 2, 1, 2])


def classification_images(seed, n):
    """A learnable task: the bright stripe is at the top (label 0), in the middle (1) or at the bottom (2)."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 3, size=n)
    images = rng.randint(0, 90, size=(n, 24, 24, 3)).astype(np.uint8)
    for image, label in zip(images, labels):
        image[8 * label:8 * label + 8] += 150
    return [Image.fromarray(image) for image in images], labels


def step(model, out, pixel_values, labels):
    """Logits, loss and every parameter's gradient of one forward/backward in train mode (dropout is 0)."""
    model.train()
    model.zero_grad()
    result = model(pixel_values=pixel_values, labels=torch.tensor(labels))
    result.loss.backward()
    out["logits"] = to_numpy(result.logits)
    out["loss"] = np.array(result.loss.item(), dtype=np.float64)
    for name, p in model.named_parameters():
        out[f"grad/{name}"] = to_numpy(p.grad) if p.grad is not None else np.zeros(tuple(p.shape), np.float32)
    model.eval()
    with torch.no_grad():
        out["eval_logits"] = to_numpy(model(pixel_values=pixel_values).logits)
    model.zero_grad()


def train(model, proc, summary):
    """A few Trainer steps in a fixed order, then evaluate with an accuracy metric."""
    train_images, train_labels = classification_images(1, 48)
    eval_images, eval_labels = classification_images(2, 24)

    def rows(images, labels):
        pixels = proc(images=images, return_tensors="pt")["pixel_values"]
        return [{"pixel_values": pixels[i], "labels": int(labels[i])} for i in range(len(labels))]

    def accuracy(eval_pred):
        logits, label_ids = eval_pred
        return {"accuracy": float((np.argmax(logits, axis=-1) == label_ids).mean())}

    trainer = Trainer(model=model, train_dataset=rows(train_images, train_labels),
                      eval_dataset=rows(eval_images, eval_labels), compute_metrics=accuracy,
                      args=TrainingArguments(output_dir=path(f"trainer_{args.phase}"), max_steps=12,
                                             per_device_train_batch_size=8, per_device_eval_batch_size=12,
                                             learning_rate=3e-3, logging_steps=1, seed=0, report_to=[],
                                             disable_tqdm=True, save_strategy="no",
                                             train_sampling_strategy="sequential"))
    start = time.perf_counter()
    trainer.train()
    summary["train_seconds"] = time.perf_counter() - start
    summary["losses"] = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    summary["grad_norms"] = [h["grad_norm"] for h in trainer.state.log_history if "grad_norm" in h]
    metrics = trainer.evaluate()
    summary["eval_loss"], summary["eval_accuracy"] = metrics["eval_loss"], metrics["eval_accuracy"]
    prediction = trainer.predict(rows(eval_images, eval_labels))
    summary["predictions_shape"] = list(prediction.predictions.shape)
    summary["predict_accuracy"] = prediction.metrics["test_accuracy"]


def main():
    torch.manual_seed(0)
    if not ON_SHIM:  # real torch owns the initial weights: both sides start from this checkpoint
        ViTForImageClassification(ViTConfig(**CONFIG)).save_pretrained(path("vit"))
    model = ViTForImageClassification.from_pretrained(path("vit"))
    out, summary = {}, {"phase": args.phase}
    for name, tensor in model.state_dict().items():
        out[f"state/{name}"] = to_numpy(tensor)

    proc = processor()
    images, labels = step_images()
    encoded = proc(images=images, return_tensors="pt")
    pixel_values = encoded["pixel_values"]
    summary["processor_class"] = type(proc).__name__
    summary["pixel_values_is_torch_tensor"] = isinstance(pixel_values, torch.Tensor)
    summary["pixel_values_dtype"] = str(pixel_values.dtype)
    out["pixel_values"] = to_numpy(pixel_values)
    out["pixel_values_numpy"] = np.asarray(proc(images=images, return_tensors="np")["pixel_values"])
    step(model, out, pixel_values, labels)
    train(model, proc, summary)

    np.savez(path(f"{args.phase}.npz"), **out)
    sys.stdout.flush()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
