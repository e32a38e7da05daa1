"""Observable behaviour of torch.utils.checkpoint, printed as one JSON line.

Runs unchanged on real PyTorch (`--side torch`, the oracle) and on the shim (`--side shim`); tests/
test_checkpointing.py compares the reports. Inputs are fixed NumPy arrays, so gradients are comparable across
the two sides; where randomness is involved (dropout) each side compares checkpointed with plain runs itself.
"""
import argparse
import functools
import json
import sys
import warnings

parser = argparse.ArgumentParser()
parser.add_argument("--side", choices=["shim", "torch"], required=True)
args = parser.parse_args()
if args.side == "shim":
    import mindnlp  # noqa: F401
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils.checkpoint import checkpoint, checkpoint_sequential  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim") == (args.side == "shim"), torch.__name__

RNG = np.random.RandomState(0)
X = RNG.randn(3, 4).astype(np.float32)
W = RNG.randn(4, 4).astype(np.float32)
E = RNG.randn(3, 4).astype(np.float32)


def leaf(array):
    return torch.tensor(array, requires_grad=True)


def grads_of(*tensors):
    return [None if t.grad is None else np.round(t.grad.numpy().astype(np.float64), 5).tolist() for t in tensors]


def error_of(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return [type(exc).__name__, str(exc)]
    return None


def user_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, sorted({str(w.message).split(". ")[0] for w in caught if issubclass(w.category, UserWarning)})


def block(x, w, scale=1.0, extra=None):
    h = torch.sin(x @ w) * scale
    if extra is not None:
        h = h + extra * extra
    return h.sin()


def plain_and_checkpointed(make_loss):
    """Gradients of make_loss(run) with run = direct call, and with run = checkpoint (both variants)."""
    out = {}
    for name, run in [("plain", lambda f, *a, **k: f(*a, **k)),
                      ("reentrant", lambda f, *a, **k: checkpoint(f, *a, use_reentrant=True, **k)),
                      ("non_reentrant", lambda f, *a, **k: checkpoint(f, *a, use_reentrant=False, **k))]:
        try:
            out[name] = make_loss(run)
        except Exception as exc:  # noqa: BLE001
            out[name] = [type(exc).__name__, str(exc)]
    return out


def gradients():
    seen = {}

    def simple(run):
        x, w = leaf(X), leaf(W)
        run(block, x, w).sum().backward()
        return grads_of(x, w)

    seen["positional"] = plain_and_checkpointed(simple)

    def with_kwargs(run):
        x, w, e = leaf(X), leaf(W), leaf(E)
        run(block, x, w, scale=2.0, extra=e).pow(2).sum().backward()
        return grads_of(x, w, e)

    seen["keyword_tensors"] = plain_and_checkpointed(with_kwargs)

    def partial_tensors(run):
        # transformers binds a layer's keyword arguments with functools.partial
        x, w, e = leaf(X), leaf(W), leaf(E)
        run(functools.partial(block, scale=0.5, extra=e), x, w).sum().backward()
        return grads_of(x, w, e)

    seen["partial_tensors"] = plain_and_checkpointed(partial_tensors)

    def closure_parameter(run):
        # only a closed-over parameter requires grad (a frozen input, as in a PEFT model without input grads)
        w = torch.nn.Parameter(torch.tensor(W))
        x = torch.tensor(X)
        out = run(lambda a: torch.sin(a @ w), x)
        if not out.requires_grad:
            return ["no grad", out.requires_grad]
        out.sum().backward()
        return grads_of(w)

    seen["closure_parameter"] = {k: v for k, v in plain_and_checkpointed(closure_parameter).items()}

    def nested_outputs(run):
        x, w = leaf(X), leaf(W)

        def fn(a, b, tag):
            h = torch.sin(a @ b)
            return {"h": h, "pair": (h * 2, tag, None), "count": 3, "ids": torch.tensor([1, 2])}

        out = run(fn, x, w, "tag")
        loss = out["h"].sum() + out["pair"][0].pow(2).sum()
        loss.backward()
        return {"grads": grads_of(x, w), "extras": [out["pair"][1], out["pair"][2], out["count"],
                                                    out["ids"].tolist(), out["ids"].requires_grad]}

    seen["nested_outputs"] = plain_and_checkpointed(nested_outputs)

    def unused_output(run):
        x, w = leaf(X), leaf(W)
        first, second = run(lambda a, b: (torch.sin(a @ b), (a * b[0]).exp()), x, w)
        first.sum().backward()
        return grads_of(x, w)

    seen["unused_output"] = plain_and_checkpointed(unused_output)

    def under_autocast(run):
        # the recomputation runs outside the autocast region, yet must compute as the forward did (float16)
        x, w = leaf(X), leaf(W)
        with torch.autocast("cpu", dtype=torch.float16):
            out = run(lambda a, b: (a @ b).sin() @ b, x, w)
        out.float().sum().backward()
        return {"dtype": str(out.dtype), "grads": grads_of(x, w)}

    seen["under_autocast"] = plain_and_checkpointed(under_autocast)

    def sequential(run):
        torch.manual_seed(0)
        layers = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4), torch.nn.Tanh())
        with torch.no_grad():
            for i, p in enumerate(layers.parameters()):
                p.copy_(torch.tensor(np.resize(W, tuple(p.shape)) * (0.5 + 0.1 * i)))
        x = leaf(X)
        if run is None:
            out = layers(x)
        else:
            out = checkpoint_sequential(layers, 2, x, use_reentrant=run)
        out.sum().backward()
        return grads_of(x, *layers.parameters())

    seen["checkpoint_sequential"] = {"plain": sequential(None), "reentrant": sequential(True),
                                     "non_reentrant": sequential(False)}
    return seen


def behaviour():
    seen = {}
    calls = []

    def traced(a):
        h = torch.sin(a * 2)
        calls.append([torch.is_grad_enabled(), h.requires_grad])
        return h

    x = leaf(X)
    out = checkpoint(traced, x, use_reentrant=False)
    seen["after_forward"] = list(calls)
    out.sum().backward()
    seen["after_backward"] = list(calls)  # one unrecorded run, one recorded recomputation

    with torch.no_grad():
        seen["under_no_grad"] = checkpoint(traced, x, use_reentrant=False).requires_grad

    seen["missing_use_reentrant"] = user_warnings(lambda: checkpoint(traced, x).requires_grad)
    seen["reentrant_without_grad_inputs"] = user_warnings(
        lambda: checkpoint(traced, torch.tensor(X), use_reentrant=True).requires_grad)
    seen["kwargs_with_reentrant"] = error_of(lambda: checkpoint(block, leaf(X), leaf(W), scale=2.0,
                                                                use_reentrant=True))
    seen["context_fn_with_reentrant"] = error_of(
        lambda: checkpoint(traced, x, use_reentrant=True, context_fn=lambda: (None, None)))

    # an input written in place after the forward: recomputing would differentiate another function
    for variant, reentrant in (("reentrant", True), ("non_reentrant", False)):
        writes = (("inplace_op", lambda t: t.add_(1)), ("index_assignment", lambda t: t.__setitem__(0, 5.0)))
        for write, apply in writes:
            def written_after_forward():
                a = leaf(X)
                b = a * 2
                out = checkpoint(torch.exp, b, use_reentrant=reentrant)
                apply(b)
                out.sum().backward()

            error = error_of(written_after_forward)
            seen[f"input_written_after_forward_{variant}_{write}"] = error and [
                error[0], "modified by an inplace operation" in error[1]]

        def written_before_forward():
            a = leaf(X)
            b = a * 2
            b.add_(1)
            out = checkpoint(torch.exp, b, use_reentrant=reentrant)
            other = b.clone()
            other.add_(1)  # a copy written after the forward is not the input
            out.sum().backward()
            return grads_of(a)

        seen[f"input_written_before_forward_{variant}"] = written_before_forward()

    entered = []

    class Marker:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append([self.name, torch.is_grad_enabled()])

        def __exit__(self, *exc):
            return False

    out = checkpoint(traced, x, use_reentrant=False, context_fn=lambda: (Marker("forward"), Marker("recompute")))
    seen["context_fn_forward"] = list(entered)
    out.sum().backward()
    seen["context_fn_all"] = list(entered)
    return seen


def dropout_replay():
    """Dropout inside the region: the recomputation must draw the same mask, and must not move the RNG."""
    drop = torch.nn.Dropout(0.5)

    def fn(a, b):
        return drop(torch.sin(a @ b)) * 3

    results = {}
    for name in ("plain", "reentrant", "non_reentrant"):
        torch.manual_seed(7)
        x, w = leaf(X), leaf(W)
        out = fn(x, w) if name == "plain" else checkpoint(fn, x, w, use_reentrant=(name == "reentrant"))
        out.sum().backward()
        after = torch.rand(3).numpy().tolist()  # what the RNG gives next
        results[name] = {"grads": grads_of(x, w), "rng_next": after,
                         "zeros": int((out.detach().numpy() == 0).sum())}
    return results


def tiny_bert():
    """A 2-layer BERT with dropout 0.3: gradients with gradient_checkpointing_enable() equal those without."""
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32, num_labels=2, hidden_dropout_prob=0.3,
                        attention_probs_dropout_prob=0.3)
    torch.manual_seed(0)
    model = BertForSequenceClassification(config).train()
    rng = np.random.RandomState(1)
    ids = torch.tensor(rng.randint(5, 100, size=(4, 16)))
    mask = torch.ones(4, 16, dtype=torch.long)
    mask[0, 10:] = 0
    labels = torch.tensor([0, 1, 1, 0])
    calls = []
    model.bert.encoder.layer[1].intermediate.register_forward_hook(lambda m, i, o: calls.append(torch.is_grad_enabled()))

    def step():
        model.zero_grad()
        torch.manual_seed(123)
        out = model(input_ids=ids, attention_mask=mask, labels=labels)
        out.loss.backward()
        return float(out.loss.item()), {n: p.grad.numpy().copy() for n, p in model.named_parameters()
                                        if p.grad is not None}

    loss, reference = step()
    report = {"loss": loss, "calls_plain": list(calls), "params_with_grad": len(reference)}
    for kwargs in ({}, {"use_reentrant": True}):
        calls.clear()
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs or None)
        name = "reentrant" if kwargs else "default"
        ck_loss, grads = step()
        report[name] = {"loss": ck_loss, "calls": list(calls), "same_params": sorted(grads) == sorted(reference),
                        "max_abs_diff": max(float(np.abs(grads[k] - reference[k]).max()) for k in reference),
                        "enabled": bool(model.is_gradient_checkpointing)}
        model.gradient_checkpointing_disable()
    torch.manual_seed(124)
    report["other_seed_loss"] = float(model(input_ids=ids, attention_mask=mask, labels=labels).loss.item())
    return report


if __name__ == "__main__":
    report = {"gradients": gradients(), "behaviour": behaviour(), "dropout_replay": dropout_replay(),
              "tiny_bert": tiny_bert()}
    sys.stdout.flush()
    print(json.dumps(report, default=str))
