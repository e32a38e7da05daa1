"""One `transformers.Trainer` step on a zoo family, the same on real PyTorch and on the shim (zoo_common runs it
in the build and shim phases for the families named by `--trainer`).

The Trainer gets the family's inputs split into rows (a list dataset), batch size 2 = every row, so the one step
sees the same batch as the raw AdamW step; the sampler's shuffle comes from the seeded generator, which the shim
draws as torch does. The arguments follow the raw step: learning rate STEP_LR, epsilon STEP_EPS (it damps
elements whose gradient is float32 noise), weight decay 0.01; the rest is the Trainer's own (linear schedule,
gradient clipping at norm 1, no decay on biases and norms). A family with `trainer_dropout` loads with those
config keywords, so its step runs with dropout on: the seeded generator (the Trainer sets the seed) draws the
same masks on both sides. Recorded: the Trainer's training loss and every parameter after the step.
"""
import os
import tempfile

import numpy as np

from zoo_common import LOSS_RTOL, STEP_EPS, STEP_LR, STEP_RTOL, Context, _as_tensors, _keys, _no_error, _to_numpy, \
    rel

TRAINER_SEED = 0


def _rows(torch, inputs):
    """The batch as a list of per-row dicts; values that are not tensors (flags such as return_loss) ride along
    in every row."""
    batch = next(v.shape[0] for v in inputs.values() if isinstance(v, torch.Tensor))
    return [{k: (v[i] if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()} for i in range(batch)]


def _collate(torch):
    def collate(rows):
        return {k: (torch.stack([r[k] for r in rows]) if isinstance(v, torch.Tensor) else v)
                for k, v in rows[0].items()}

    return collate


def trainer_step(torch, transformers, family, directory, out):
    """Load the family's checkpoint, run Trainer.train() for one step, record the loss and the parameters."""
    inputs = _as_tensors(torch, family.inputs(Context(torch, transformers, seed=1234)))
    model = getattr(transformers, family.model).from_pretrained(directory, **family.trainer_dropout)
    with tempfile.TemporaryDirectory() as output_dir:
        args = transformers.TrainingArguments(
            output_dir=os.path.join(output_dir, "run"), max_steps=1, per_device_train_batch_size=2,
            learning_rate=STEP_LR, adam_epsilon=STEP_EPS, weight_decay=0.01, report_to=[], use_cpu=True,
            seed=TRAINER_SEED, save_strategy="no", logging_strategy="no", disable_tqdm=True,
            dataloader_num_workers=0)
        trainer = transformers.Trainer(model=model, args=args, train_dataset=_rows(torch, inputs),
                                       data_collator=_collate(torch))
        result = trainer.train()
    out[f"{family.name}/trainer_loss"] = np.array(result.training_loss, dtype=np.float64)
    for pname, p in model.named_parameters():
        out[f"{family.name}/trainer/{pname}"] = _to_numpy(p)


def check_trainer(res, family, rtol=STEP_RTOL, loss_rtol=LOSS_RTOL):
    """The Trainer's loss equals torch's, and its step moves the parameters as torch's does (relative norm of the
    whole update, the tolerance of the raw AdamW step)."""
    _no_error(res, family.name)
    name = family.name
    ours_loss, theirs_loss = (float(res[p][f"{name}/trainer_loss"]) for p in ("shim", "build"))
    assert np.isfinite(theirs_loss) and theirs_loss > 0, theirs_loss
    assert abs(ours_loss - theirs_loss) <= loss_rtol * abs(theirs_loss), (ours_loss, theirs_loss)
    theirs_all, ours_all = [], []
    for key in _keys(res, f"{name}/trainer/"):
        start = res["build"][f"{name}/state/{key.split('/trainer/', 1)[1]}"]
        theirs_all.append((res["build"][key] - start).ravel())
        ours_all.append((res["shim"][key] - start).ravel())
    theirs, ours = np.concatenate(theirs_all), np.concatenate(ours_all)
    assert np.abs(theirs).max() > 0.5 * STEP_LR, np.abs(theirs).max()  # the step moved the weights
    assert rel(ours, theirs) < rtol, rel(ours, theirs)
