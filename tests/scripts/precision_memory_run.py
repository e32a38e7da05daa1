"""Precision and memory options of the unmodified transformers Trainer on the shim, on a tiny random BERT.

    precision_memory_run.py trainer RUN...  # the same short run for each RUN of TRAINER_RUNS (fp32, fp16, bf16,
                                            # gradient_checkpointing, activation_checkpointing_options); JSON
                                            # report of losses and of what accelerate/transformers set up
    precision_memory_run.py amp_loop     # a hand-written loop with torch.autocast(float16) + GradScaler against the
                                         # float32 loop (on the CPU target: real float16 matmuls)

The data set is learnable (class 0 sentences use token ids 5..49, class 1 ids 50..94), dropout is on.
"""
import functools
import json
import os
import sys
import tempfile

import mindnlp  # noqa: F401  (installs the shim)
import datasets  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim"), torch.__name__

N, LENGTH, NUM_LABELS = 64, 16, 2
CONFIG = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
              max_position_embeddings=32, num_labels=NUM_LABELS)


def make_dataset(seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, NUM_LABELS, size=N)
    ids = rng.randint(5, 50, size=(N, LENGTH)) + 45 * labels[:, None]
    ids[:, 0] = 2
    lengths = rng.randint(LENGTH // 2, LENGTH + 1, size=N)
    mask = (np.arange(LENGTH)[None, :] < lengths[:, None]).astype(np.int64)
    return {"input_ids": (ids * mask).tolist(), "attention_mask": mask.tolist(), "labels": labels.tolist()}


def new_model():
    torch.manual_seed(0)
    return BertForSequenceClassification(BertConfig(**CONFIG))


class ForwardProbe:
    """Records, for each training forward of the first attention block, the autocast state and grad mode it
    ran under (a checkpointed layer runs twice per step: once unrecorded, once recomputed in backward)."""

    def __init__(self, model):
        self.calls = []
        self.calls_by_layer = [0] * len(model.bert.encoder.layer)
        model.bert.encoder.layer[0].attention.register_forward_hook(self._hook)
        for i, layer in enumerate(model.bert.encoder.layer):
            layer.attention.register_forward_hook(functools.partial(self._count, i))

    def _count(self, index, module, inputs, output):
        self.calls_by_layer[index] += module.training

    def _hook(self, module, inputs, output):
        if module.training:
            self.calls.append({"autocast_cpu": torch.is_autocast_enabled("cpu"),
                               "autocast_dtype": str(torch.get_autocast_dtype("cpu")),
                               "grad_enabled": torch.is_grad_enabled(),
                               "dtype": str(output[0].dtype)})


def train(output_dir, **overrides):
    model = new_model()
    probe = ForwardProbe(model)
    kwargs = dict(output_dir=output_dir, max_steps=16, per_device_train_batch_size=8, learning_rate=5e-3,
                  logging_steps=1, seed=0, report_to=[], disable_tqdm=True, save_strategy="no")
    kwargs.update(overrides)
    trainer = Trainer(model=model, args=TrainingArguments(**kwargs),
                      train_dataset=datasets.Dataset.from_dict(make_dataset(0)))
    result = trainer.train()
    accelerator = trainer.accelerator
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    return {"losses": losses, "training_loss": result.training_loss, "global_step": trainer.state.global_step,
            "mixed_precision": accelerator.mixed_precision, "native_amp": accelerator.native_amp,
            "scaler": None if accelerator.scaler is None else type(accelerator.scaler).__module__,
            "gradient_checkpointing": bool(getattr(model, "is_gradient_checkpointing", False)),
            "forward_calls": len(probe.calls), "forward_calls_by_layer": probe.calls_by_layer,
            "forward_states": sorted({json.dumps(c) for c in probe.calls}),
            "param_dtypes": sorted({str(p.dtype) for p in model.parameters()})}


TRAINER_RUNS = {"fp32": {}, "fp16": {"fp16": True}, "bf16": {"bf16": True, "use_cpu": True},
                "gradient_checkpointing": {"gradient_checkpointing": True},
                # transformers 5.23's own names; reentrant variant, every other layer, offloading
                "activation_checkpointing_options": {
                    "activation_checkpointing": True,
                    "activation_checkpointing_kwargs": {"use_reentrant": True, "every_n_layers": 2, "offload": True}}}


def run_trainer(names):
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            report[name] = train(os.path.join(tmp, name), **TRAINER_RUNS[name])
    return report


def run_amp_loop():
    """The torch.amp recipe by hand: forward under autocast(float16), GradScaler(...) around backward/step."""
    data = make_dataset(0)
    ids, mask, labels = (torch.tensor(data[k]) for k in ("input_ids", "attention_mask", "labels"))

    def loop(use_amp, init_scale, steps=16, growth_interval=2000):
        model = new_model()
        model.train()
        optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
        scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval, enabled=use_amp)
        torch.manual_seed(1)
        losses, scales, skipped_steps, param_changed, logits_dtypes = [], [], [], [], set()
        watched = model.classifier.weight
        for step in range(steps):
            batch = slice(8 * (step % 8), 8 * (step % 8) + 8)
            with torch.autocast("cpu", dtype=torch.float16, enabled=use_amp):
                out = model(input_ids=ids[batch], attention_mask=mask[batch], labels=labels[batch])
            logits_dtypes.add(str(out.logits.dtype))
            optimizer.zero_grad()
            scaler.scale(out.loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            before = watched.detach().numpy().copy()
            scaler.step(optimizer)
            param_changed.append(not np.array_equal(before, watched.detach().numpy()))
            scale = scaler.get_scale()
            scaler.update()
            scales.append(scale)
            if scaler.get_scale() < scale:
                skipped_steps.append(step)  # an overflow backs the scale off, and the step must not have run
            losses.append(float(out.loss.item()))
        return {"losses": losses, "scales": scales, "skipped_steps": skipped_steps, "param_changed": param_changed,
                "logits_dtypes": sorted(logits_dtypes), "param_dtypes": sorted({str(p.dtype) for p in model.parameters()})}

    # the overflowing run starts with a scale far too large for float16 gradients: the first steps must be
    # skipped while the scale backs off, then it grows again after 3 clean steps
    return {"fp32": loop(False, 1.0), "fp16": loop(True, 2.0 ** 16),
            "fp16_overflowing": loop(True, 2.0 ** 24, steps=10, growth_interval=3)}


if __name__ == "__main__":
    scenario = sys.argv[1]
    out = run_trainer(sys.argv[2:]) if scenario == "trainer" else run_amp_loop()
    sys.stdout.flush()
    print(json.dumps(out, default=float))
