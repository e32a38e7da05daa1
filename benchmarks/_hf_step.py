"""The transformers training step, written once against the torch API.

`_torch_step.py` runs it on real torch and `_shim_step.py` runs it under `import mindnlp`; whichever `torch`
is importable when `measure` is called is the one measured.
"""
import json
import os

import numpy as np

import _common


def load_model(torch, model_dir, extra_weights):
    """BERT checkpoints as a 2-label sequence classifier; Llama checkpoints as a causal LM (loss over next tokens)."""
    from transformers import BertForSequenceClassification, LlamaForCausalLM

    with open(os.path.join(model_dir, "config.json")) as f:
        model_type = json.load(f)["model_type"]
    if model_type == "llama":
        model = LlamaForCausalLM.from_pretrained(model_dir)
    else:
        model = BertForSequenceClassification.from_pretrained(model_dir, num_labels=_common.NUM_LABELS)
    if extra_weights:
        # The checkpoint has no classifier; from_pretrained drew one from this process's RNG. Replace it with the
        # shared one and confirm it landed, so every implementation starts from identical weights.
        from safetensors.numpy import load_file

        arrays = load_file(extra_weights)
        model.load_state_dict({name: torch.from_numpy(array) for name, array in arrays.items()}, strict=False)
        state = model.state_dict()
        for name, array in arrays.items():
            if not np.array_equal(state[name].detach().cpu().numpy(), array):
                raise RuntimeError(f"load_state_dict did not set {name}")
    return model


def make_step(torch, model, batch, total_steps):
    """A callable doing one optimizer step (or only the forward, with update=False); returns the loss.
    `batch` is a list of batches (dicts of arrays), used in turn."""
    from transformers import get_linear_schedule_with_warmup

    optimizer = torch.optim.AdamW(
        model.parameters(), lr=_common.LR, betas=_common.BETAS, eps=_common.ADAM_EPS, weight_decay=_common.WEIGHT_DECAY
    )
    scheduler = get_linear_schedule_with_warmup(optimizer, _common.WARMUP_SCHEDULE_STEPS, total_steps)
    # One batch, or several (short sentences with dynamic padding) taken in turn, one per call.
    batches = [{name: torch.from_numpy(array) for name, array in one.items()} for one in batch]
    calls = [0]

    def next_inputs():
        inputs = batches[calls[0] % len(batches)]
        calls[0] += 1
        return inputs

    def step(update=True):
        inputs = next_inputs()
        if not update:
            with torch.no_grad():
                return model(**inputs).loss.item()
        loss = model(**inputs).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), _common.MAX_GRAD_NORM)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        return loss.item()

    return step


def measure(torch, args):
    """The child's body: load, then either time train-mode steps or report dropout-free losses (--check)."""
    batch = _common.read_batches(args.inputs)
    model = load_model(torch, args.model_dir, args.extra_weights)
    if args.check:
        model.eval()
        return {"check_losses": _common.check_losses(make_step(torch, model, batch, _common.CHECK_STEPS))}
    model.train()
    step = make_step(torch, model, batch, args.warmup + args.steps)
    return _common.timing_result(*_common.time_steps(step, args.warmup, args.steps))
