"""The model-zoo harness: tiny random transformers models run identically on real PyTorch and on the shim.

A zoo script (tests/scripts/zoo_<part>.py) lists its families and hands them to `main`:

    from zoo_common import Family, main

    FAMILIES = [
        Family("roberta", "RobertaForMaskedLM", lambda tf: tf.RobertaConfig(...), token_inputs(vocab=99)),
    ]
    if __name__ == "__main__":
        main(FAMILIES)

and runs in three phases, all families of a phase in one process (start-up is the expensive part):

    zoo_x.py --phase build  --workdir D   # real torch: build each seeded model, save it to D/<name>, measure
    zoo_x.py --phase shim   --workdir D   # the shim: load D/<name>, measure the same, save_pretrained D/shim_<name>
    zoo_x.py --phase verify --workdir D   # real torch: load D/shim_<name>, record its weights and eval logits

"Measure" is the same code on both sides (`measure`): the inputs, eval-mode outputs, train-mode outputs and loss,
every parameter's gradient, the parameters after one AdamW step, and `generate` tokens where the family
generates. `--trainer NAME ...` adds one transformers.Trainer step for those families in the build and shim phases
(zoo_trainer_step.py); `--trainer-only` runs nothing else (build still saves the model and its weights). Each
phase writes D/<phase>.npz keyed "<family>/<what>/..." and prints a JSON summary last; an exception in one family
is recorded as "<family>/error" and the others go on.

The test side (`run_phases`, `load_results`, `run_check` and the `check_*` functions) compares the phases; a test module
parametrizes the checks over its families (see tests/test_zoo_encoders.py). This module imports neither torch
nor transformers at import time: in the shim phase `import mindnlp` must come first.
"""
import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

# Tolerances of tests/test_model_families.py (float32 on both sides).
LOGITS_ATOL = 1e-4
LOSS_RTOL = 1e-5
GRAD_RTOL = 1e-3
# One AdamW step: the update is ~lr * sign(grad) per element, so elements whose gradient is rounding noise on
# both sides may move in opposite directions; compare the whole update by relative norm.
STEP_LR = 1e-3
STEP_EPS = 1e-6  # damps elements whose gradient is below ~1e-7 (float32 noise) instead of moving them by lr
STEP_RTOL = 1e-2
# A gradient below this fraction of the model's median gradient norm is rounding noise (e.g. a key bias, which
# softmax ignores): both sides must then be small, not equal.
NOISE_FRACTION = 1e-5

CHECKS = ("inputs", "logits", "loss", "grads", "step", "generate", "saved")


@dataclass
class Family:
    """One architecture: how to build it and what to feed it.

    model:   the transformers class name (looked up on `transformers` in each phase).
    config:  transformers module -> config (tiny, dropout 0: the step runs in train mode).
    inputs:  Context -> dict of model inputs (NumPy arrays or tensors), the labels included.
    outputs: the output attributes compared (the loss is always compared).
    generate: variant name -> `generate` keyword arguments; empty for models that do not generate.
    generate_inputs: input keys passed to `generate` (default: every input but "labels").
    tolerances: per check, other tolerances than the defaults (each with its measured reason beside it).
    trainer_dropout: config keywords that switch dropout on for the Trainer step (zoo_trainer_step.py), which
             then compares train-mode steps under the seeded RNG's dropout masks; empty: dropout stays 0.
    """
    name: str
    model: str
    config: Callable
    inputs: Callable
    outputs: tuple = ("logits",)
    generate: dict = field(default_factory=dict)
    generate_inputs: Optional[tuple] = None
    tolerances: dict = field(default_factory=dict)  # check name -> keyword arguments of its check_* function
    trainer_dropout: dict = field(default_factory=dict)


class Context:
    """What an input builder may use: the phase's torch and transformers, and a seeded NumPy generator."""

    def __init__(self, torch, transformers, seed):
        self.torch = torch
        self.transformers = transformers
        self.rng = np.random.RandomState(seed)


def token_inputs(vocab, batch=2, length=10, labels="mlm", num_labels=3, pad_from=7, pad_id=1):
    """An input builder for text models: random ids, the second row padded from `pad_from`.

    labels: "mlm" (per-token labels, -100 on padding), "class" (one class per row), or None."""

    def build(ctx):
        ids = ctx.rng.randint(5, vocab, size=(batch, length)).astype(np.int64)
        mask = np.ones_like(ids)
        mask[1:, pad_from:] = 0
        ids[1:, pad_from:] = pad_id
        out = {"input_ids": ids, "attention_mask": mask}
        if labels == "mlm":
            out["labels"] = np.where(mask == 1, ids, -100)
        elif labels == "class":
            out["labels"] = ctx.rng.randint(0, num_labels, size=(batch,)).astype(np.int64)
        return out

    return build


def image_inputs(side, channels=3, batch=2, num_labels=3):
    """An input builder for image classifiers: normalised random pixels and one class per image."""

    def build(ctx):
        pixels = ctx.rng.uniform(-1.0, 1.0, size=(batch, channels, side, side)).astype(np.float32)
        return {"pixel_values": pixels, "labels": ctx.rng.randint(0, num_labels, size=(batch,)).astype(np.int64)}

    return build


# ---------------------------------------------------------------------------------------------------------------
# The phases (child processes)

def _to_numpy(t):
    return np.array(t.detach().float().cpu().numpy(), dtype=np.float32, copy=True)


def _as_tensors(torch, inputs):
    """NumPy arrays become tensors; tensors and plain Python values (flags such as return_loss) pass through."""
    return {k: (torch.from_numpy(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v)
            for k, v in inputs.items()}


def _load(transformers, family, directory):
    return getattr(transformers, family.model).from_pretrained(directory)


def _outputs(family, result, prefix, out):
    for key in family.outputs:
        value = getattr(result, key)
        out[f"{prefix}/{key}"] = _to_numpy(value)


def measure(torch, transformers, family, directory, out):
    """The same measurements on either side, from the checkpoint in `directory`."""
    name = family.name
    torch.manual_seed(0)
    inputs = family.inputs(Context(torch, transformers, seed=1234))
    inputs = _as_tensors(torch, inputs)
    for key, value in inputs.items():
        if not isinstance(value, torch.Tensor):
            continue
        out[f"{name}/input/{key}"] = _to_numpy(value) if value.is_floating_point() else value.cpu().numpy()
    model = _load(transformers, family, directory)

    model.eval()
    with torch.no_grad():
        _outputs(family, model(**{k: v for k, v in inputs.items() if k != "labels"}), f"{name}/eval", out)

    model.train()
    model.zero_grad()
    result = model(**inputs)
    result.loss.backward()
    _outputs(family, result, f"{name}/train", out)
    out[f"{name}/loss"] = np.array(result.loss.item(), dtype=np.float64)
    for pname, p in model.named_parameters():
        if p.grad is not None:
            out[f"{name}/grad/{pname}"] = _to_numpy(p.grad)

    optimizer = torch.optim.AdamW(model.parameters(), lr=STEP_LR, eps=STEP_EPS, weight_decay=0.01)
    optimizer.step()
    for pname, p in model.named_parameters():
        out[f"{name}/stepped/{pname}"] = _to_numpy(p)

    if family.generate:
        model = _load(transformers, family, directory)
        model.eval()
        keys = family.generate_inputs or tuple(k for k in inputs if k != "labels")
        for variant, kwargs in family.generate.items():
            with torch.no_grad():
                tokens = model.generate(**{k: inputs[k] for k in keys}, **kwargs)
            out[f"{name}/generate/{variant}"] = tokens.cpu().numpy().astype(np.int64)


def _state(model, prefix, out):
    for key, tensor in model.state_dict().items():
        out[f"{prefix}/{key}"] = _to_numpy(tensor)


def _eval_logits(torch, transformers, family, model, out, prefix):
    inputs = _as_tensors(torch, family.inputs(Context(torch, transformers, seed=1234)))
    model.eval()
    with torch.no_grad():
        _outputs(family, model(**{k: v for k, v in inputs.items() if k != "labels"}), prefix, out)


def _run_family(phase, torch, transformers, family, workdir, out, trainer=False, trainer_only=False):
    """One family's phase. trainer: also one Trainer step (zoo_trainer_step.py) in build and shim;
    trainer_only: build saves the model and runs only the Trainer step, shim only the Trainer step, verify
    nothing."""
    directory = os.path.join(workdir, family.name)
    if trainer or trainer_only:
        from zoo_trainer_step import trainer_step
    if phase == "build":
        torch.manual_seed(0)
        model = getattr(transformers, family.model)(family.config(transformers)).float()
        model.save_pretrained(directory)
        _state(model, f"{family.name}/state", out)
        if not trainer_only:
            measure(torch, transformers, family, directory, out)
        if trainer or trainer_only:
            trainer_step(torch, transformers, family, directory, out)
    elif phase == "shim":
        if not trainer_only:
            measure(torch, transformers, family, directory, out)
            model = _load(transformers, family, directory)
            _state(model, f"{family.name}/state", out)
            model.save_pretrained(os.path.join(workdir, f"shim_{family.name}"))
        if trainer or trainer_only:
            trainer_step(torch, transformers, family, directory, out)
    elif not trainer_only:
        model = _load(transformers, family, os.path.join(workdir, f"shim_{family.name}"))
        _state(model, f"{family.name}/state", out)
        _eval_logits(torch, transformers, family, model, out, f"{family.name}/eval")


def main(families, argv=None):
    """Parse --phase/--workdir/--only and run the phase for every family (or those named by --only)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--phase", choices=["build", "shim", "verify"], required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--trainer", nargs="*", default=(), help="families that also take one Trainer step")
    parser.add_argument("--trainer-only", action="store_true", help="only the Trainer step (no verify phase)")
    args = parser.parse_args(argv)
    if args.phase == "shim":
        import mindnlp  # noqa: F401  (from here on `torch` is the shim)
    import torch
    import transformers

    assert torch.__name__.startswith("mindnlp_shim") == (args.phase == "shim"), torch.__name__
    out, errors, seconds = {}, {}, {}
    for family in families:
        if args.only and family.name not in args.only:
            continue
        start = time.perf_counter()
        try:
            _run_family(args.phase, torch, transformers, family, args.workdir, out,
                        trainer=family.name in args.trainer, trainer_only=args.trainer_only)
        except Exception as exc:  # one broken family must not hide the others' results
            errors[family.name] = f"{type(exc).__name__}: {exc}"
            out[f"{family.name}/error"] = np.array(traceback.format_exc()[-4000:])
        seconds[family.name] = round(time.perf_counter() - start, 2)
    np.savez(os.path.join(args.workdir, f"{args.phase}.npz"), **out)
    sys.stdout.flush()
    print(json.dumps({"phase": args.phase, "keys": len(out), "errors": errors, "seconds": seconds}))


# ---------------------------------------------------------------------------------------------------------------
# The test side

PHASES = ("build", "shim", "verify")


def run_phases(script_path, workdir, timeout=900, args=(), phases=PHASES):
    """Run build (real torch), shim and verify (real torch) of a zoo script, or the `phases` named, with the
    extra command-line `args` (e.g. --only, --trainer); return their JSON summaries."""
    from oracle import run_torch
    from shim_runner import run_shim_json

    summaries = {}
    for phase in phases:
        argv = [script_path, "--phase", phase, "--workdir", workdir, *args]
        if phase == "shim":
            summaries[phase] = run_shim_json(argv, timeout=timeout)
            continue
        stdout = run_torch(f"""
            import runpy, sys
            sys.path.insert(0, {os.path.dirname(script_path)!r})
            sys.argv = {argv!r}
            runpy.run_path({script_path!r}, run_name="__main__")
        """, timeout=timeout)
        summaries[phase] = json.loads([line for line in stdout.splitlines() if line.strip()][-1])
    return summaries


def load_results(workdir, phases=PHASES):
    return {phase: dict(np.load(os.path.join(workdir, f"{phase}.npz"))) for phase in phases}


def rel(ours, theirs):
    """Relative norm of the difference (float64)."""
    theirs = theirs.astype(np.float64)
    return float(np.linalg.norm(ours.astype(np.float64) - theirs) / np.linalg.norm(theirs))


def _no_error(res, name):
    for phase in res:
        error = res[phase].get(f"{name}/error")
        assert error is None, f"{phase} phase failed for {name}:\n{error}"


def _keys(res, prefix, phase="shim"):
    theirs = sorted(k for k in res["build"] if k.startswith(prefix))
    ours = sorted(k for k in res[phase] if k.startswith(prefix))
    assert theirs, f"nothing recorded under {prefix}"
    assert ours == theirs, (prefix, sorted(set(ours) ^ set(theirs))[:10])
    return theirs


def check_inputs(res, family, atol=1e-6):
    """The inputs (including anything a processor computed with return_tensors="pt") equal torch's: integer
    inputs exactly, floating ones within `atol`."""
    _no_error(res, family.name)
    for key in _keys(res, f"{family.name}/input/"):
        theirs = res["build"][key]
        assert res["shim"][key].dtype == theirs.dtype, key
        np.testing.assert_allclose(res["shim"][key], theirs, rtol=0, atol=atol if theirs.dtype.kind == "f" else 0,
                                   err_msg=key)


def check_logits(res, family, atol=LOGITS_ATOL):
    """Eval-mode and train-mode outputs within float32 tolerance."""
    _no_error(res, family.name)
    for mode in ("eval", "train"):
        for key in _keys(res, f"{family.name}/{mode}/"):
            ours, theirs = res["shim"][key], res["build"][key]
            assert ours.shape == theirs.shape, (key, ours.shape, theirs.shape)
            assert np.abs(theirs).max() > 1e-3, key  # random weights still give non-trivial outputs
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol, err_msg=key)


def check_loss(res, family, rtol=LOSS_RTOL):
    _no_error(res, family.name)
    ours, theirs = float(res["shim"][f"{family.name}/loss"]), float(res["build"][f"{family.name}/loss"])
    assert np.isfinite(theirs) and theirs > 0
    assert abs(ours - theirs) <= rtol * abs(theirs), (ours, theirs)


def _noise_floor(res, name):
    norms = [np.linalg.norm(res["build"][k]) for k in res["build"] if k.startswith(f"{name}/grad/")]
    return NOISE_FRACTION * float(np.median(norms))


def check_grads(res, family, rtol=GRAD_RTOL):
    """The same parameters get gradients on both sides, and each matches by relative norm."""
    _no_error(res, family.name)
    names = _keys(res, f"{family.name}/grad/")
    floor = _noise_floor(res, family.name)
    errors = {}
    for key in names:
        ours, theirs = res["shim"][key], res["build"][key]
        assert ours.shape == theirs.shape, key
        if np.linalg.norm(theirs) <= floor:  # rounding noise on torch's side: ours must be as small
            assert np.linalg.norm(ours) <= 10 * floor, (key, np.linalg.norm(ours), floor)
            continue
        errors[key] = rel(ours, theirs)
    assert errors, "every gradient is noise"
    worst = max(errors, key=errors.get)
    assert errors[worst] < rtol, (worst, errors[worst])


def check_step(res, family, rtol=STEP_RTOL):
    """One AdamW step from the same weights moves every parameter the same way (relative norm of the update)."""
    _no_error(res, family.name)
    name = family.name
    before, theirs_all, ours_all = [], [], []
    for key in _keys(res, f"{name}/stepped/"):
        pname = key.split("/stepped/", 1)[1]
        start = res["build"][f"{name}/state/{pname}"]
        theirs_all.append((res["build"][key] - start).ravel())
        ours_all.append((res["shim"][key] - start).ravel())
        before.append(start.ravel())
    theirs, ours = np.concatenate(theirs_all), np.concatenate(ours_all)
    assert np.abs(theirs).max() > 0.5 * STEP_LR  # the step moved the weights
    assert rel(ours, theirs) < rtol, rel(ours, theirs)


def check_generate(res, family):
    """Torch's tokens; and torch's are not one token repeated (a random model that always answers the same
    token would make this check unable to fail: give it larger initial weights)."""
    _no_error(res, family.name)
    for key in _keys(res, f"{family.name}/generate/"):
        assert np.unique(res["build"][key]).size > 2, (key, res["build"][key])
        np.testing.assert_array_equal(res["shim"][key], res["build"][key], err_msg=key)


def check_saved(res, family, atol=LOGITS_ATOL):
    """What the shim loaded equals torch's weights; what it saved loads in real torch with the same weights
    and gives torch's eval outputs."""
    _no_error(res, family.name)
    for key in _keys(res, f"{family.name}/state/"):
        np.testing.assert_array_equal(res["shim"][key], res["build"][key], err_msg=f"shim loaded {key}")
    for key in _keys(res, f"{family.name}/state/", phase="verify"):
        np.testing.assert_array_equal(res["verify"][key], res["build"][key], err_msg=f"torch loaded {key}")
    for key in _keys(res, f"{family.name}/eval/", phase="verify"):
        np.testing.assert_allclose(res["verify"][key], res["build"][key], rtol=0, atol=atol, err_msg=key)


CHECK_FUNCTIONS = {"inputs": check_inputs, "logits": check_logits, "loss": check_loss, "grads": check_grads,
                   "step": check_step, "generate": check_generate, "saved": check_saved}


def run_check(res, family, check):
    """Run one check on one family with the family's tolerances for it."""
    CHECK_FUNCTIONS[check](res, family, **family.tolerances.get(check, {}))


def applicable_checks(family):
    """The checks that apply to a family: `generate` only where it generates."""
    return tuple(c for c in CHECKS if c != "generate" or family.generate)
