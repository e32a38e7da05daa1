"""Seconds per optimizer step: ours (transformers under the shim) vs a raw-MindSpore floor vs real torch.

One step = forward + backward + clip_grad_norm(1.0) + AdamW(lr 2e-5, wd 0.01) + linear LR schedule step +
zero_grad, batch 16, sequence 128, for a tiny BERT classifier, the pretrained MiniLM-L6 and a tiny Llama causal LM.
Every implementation runs in its own subprocess, one after another, on the
same weights and inputs. See benchmarks/README.md for the columns.

    python benchmarks/trainer_step.py                      # all three models, all three implementations
    python benchmarks/trainer_step.py --models tiny --impls raw,torch --steps 10
    python benchmarks/trainer_step.py --check              # dropout-free losses compared, no timing
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import _common
import _runner
from _runner import child_environment, print_markdown, run_child, split_choices

HERE = os.path.dirname(os.path.abspath(__file__))
IMPLS = ("ours", "raw", "torch")
CHILD_SCRIPTS = {"ours": "_shim_step.py", "torch": "_torch_step.py"}  # the same for every model
RAW_SCRIPTS = {"tiny": "_raw_mindspore_bert.py", "minilm": "_raw_mindspore_bert.py",
               "tiny-llama": "_raw_mindspore_llama.py"}
DEFAULT_STEPS = {"tiny": 10, "minilm": 8, "tiny-llama": 10}
CHECK_RELATIVE_TOLERANCE = 1e-4
CHECK_UPDATE_TOLERANCE = 1e-2
UPDATE_SLACK = 2e-7


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="tiny,minilm,tiny-llama", help="comma list from: tiny, minilm, tiny-llama")
    parser.add_argument("--impls", default="ours,raw,torch", help="comma list from: ours, raw, torch")
    parser.add_argument("--steps", type=int, help="timed steps per run (default: 10 for the tiny models, 8 for minilm)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps before timing")
    parser.add_argument("--check", action="store_true", help="compare dropout-free losses against real torch instead of timing")
    parser.add_argument("--timeout", type=float, default=180, help="seconds before a child run counts as failed")
    parser.add_argument("--verbose", action="store_true", help="show the children's stderr")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    args.models = split_choices(parser, args.models, DEFAULT_STEPS)
    args.impls = split_choices(parser, args.impls, IMPLS)
    return args


def make_tiny_checkpoint(flag, directory, timeout, verbose):
    """Real torch writes a tiny checkpoint from its own seeded initialisation (`_torch_step.py --make-tiny...`)."""
    made = subprocess.run(
        [sys.executable, os.path.join(HERE, "_torch_step.py"), flag, directory],
        cwd=HERE, env=child_environment(), capture_output=True, text=True, timeout=timeout,
    )
    if verbose or made.returncode != 0:
        sys.stderr.write(made.stderr)
    if made.returncode != 0:
        raise SystemExit(f"could not write the checkpoint of {flag} (needs real torch and transformers)")


def prepare_models(names, workdir, timeout, verbose):
    """Per model: its checkpoint directory, the extra weights file and the inputs file all implementations load.
    The BERT models share token ids from BERT's 30522-word vocabulary; the Llama gets causal-LM inputs."""
    prepared = {}
    bert_inputs = os.path.join(workdir, "bert-inputs.npz")
    if {"tiny", "minilm"} & set(names):
        _common.write_inputs(bert_inputs, _common.TINY_CONFIG["vocab_size"])
    for name in names:
        if name == "tiny":
            directory = os.path.join(workdir, "tiny-bert")
            make_tiny_checkpoint("--make-tiny", directory, timeout, verbose)
            prepared[name] = (directory, None, bert_inputs)
        elif name == "tiny-llama":
            directory = os.path.join(workdir, "tiny-llama")
            make_tiny_checkpoint("--make-tiny-llama", directory, timeout, verbose)
            inputs = os.path.join(workdir, "llama-inputs.npz")
            _common.write_lm_inputs(inputs, _common.TINY_LLAMA_CONFIG["vocab_size"])
            prepared[name] = (directory, None, inputs)
        else:
            directory = _common.minilm_dir()
            with open(os.path.join(directory, "config.json")) as f:
                hidden_size = json.load(f)["hidden_size"]
            head = os.path.join(workdir, "minilm-classifier.safetensors")
            _common.write_classifier(head, hidden_size)
            prepared[name] = (directory, head, bert_inputs)
    return prepared


def child_command(impl, model, model_dir, extra_weights, inputs, args, steps):
    script = RAW_SCRIPTS[model] if impl == "raw" else CHILD_SCRIPTS[impl]
    command = [script, "--model-dir", model_dir, "--inputs", inputs]
    if extra_weights:
        command += ["--extra-weights", extra_weights]
    if args.check:
        return command + ["--check"]
    return command + ["--warmup", str(args.warmup), "--steps", str(steps)]


def format_time(result):
    if result is None:
        return "-"
    if "error" in result:
        return "failed: " + short(result["error"])
    if "check_losses" in result:
        return "losses " + format_losses(result["check_losses"])
    return f"{result['median_s']:.3f} ({result['min_s']:.3f})"


def format_ratio(numerator, denominator):
    if not numerator or not denominator or "error" in numerator or "error" in denominator:
        return "-"
    return f"{numerator['median_s'] / denominator['median_s']:.2f}x"


def format_rss(results, impls):
    cells = []
    for impl in impls:
        rss = (results.get(impl) or {}).get("peak_rss_mb")
        cells.append(f"{impl} {rss:.0f}" if rss else f"{impl} -")
    return ", ".join(cells)


def print_table(rows, impls):
    header = ["model", "ours s/step", "raw MS s/step", "torch s/step", "ours/raw", "ours/torch", "peak RSS MB"]
    lines = [header]
    for model, results in rows:
        lines.append([
            model,
            format_time(results.get("ours")),
            format_time(results.get("raw")),
            format_time(results.get("torch")),
            format_ratio(results.get("ours"), results.get("raw")),
            format_ratio(results.get("ours"), results.get("torch")),
            format_rss(results, impls),
        ])
    print_markdown(lines)
    print("s/step: median (min) over the timed steps; ratios are of medians.")
    print_failures(rows, impls)
    for model, results in rows:
        for impl in impls:
            result = results.get(impl) or {}
            if "error" not in result and "losses" in result:
                print(f"{model} {impl}: {len(result['seconds'])} timed steps, wall {result['wall_s']:.0f} s, "
                      f"losses {format_losses(result['losses'])}")


def print_check(rows, impls):
    lines = [["model", "impl", "loss before step 1", "before step 2", "after step 2",
              "loss rel diff", "update rel diff", "verdict"]]
    all_ok = True
    for model, results in rows:
        reference = (results.get("torch") or {}).get("check_losses")
        for impl in impls:
            result = results.get(impl) or {}
            if "error" in result:
                lines.append([model, impl, "failed: " + short(result["error"]), "", "", "", "", "FAIL"])
                all_ok = all_ok and impl == "ours"  # ours may fail until the shim is complete
                continue
            losses = result["check_losses"]
            cells = [f"{loss:.7f}" for loss in losses]
            if reference is None or impl == "torch":
                lines.append([model, impl] + cells + ["(reference)" if impl == "torch" else "no reference", "", ""])
                continue
            loss_diff, update_diff = compare_losses(losses, reference)
            ok = loss_diff <= CHECK_RELATIVE_TOLERANCE and update_diff <= CHECK_UPDATE_TOLERANCE
            all_ok = all_ok and ok
            lines.append([model, impl] + cells + [f"{loss_diff:.2e}", f"{update_diff:.2e}", "ok" if ok else "MISMATCH"])
    print_markdown(lines)
    print(f"Dropout off, same batch every step. loss rel diff: max over the three losses of |loss - torch| / |torch| "
          f"(tolerance {CHECK_RELATIVE_TOLERANCE:g}). update rel diff: how far the loss change made by the optimizer "
          f"steps differs from torch's, relative to torch's change, with {UPDATE_SLACK:g} absolute slack for float32 "
          f"rounding of the losses (tolerance {CHECK_UPDATE_TOLERANCE:g}).")
    print_failures(rows, impls)
    return all_ok


def compare_losses(losses, reference):
    loss_diff = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(losses, reference))
    update_diff = 0.0
    for a, b in zip(losses[1:], reference[1:]):
        ours, theirs = a - losses[0], b - reference[0]
        update_diff = max(update_diff, max(0.0, abs(ours - theirs) - UPDATE_SLACK) / max(abs(theirs), 1e-12))
    return loss_diff, update_diff


def short(text, limit=90):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def print_failures(rows, impls):
    for model, results in rows:
        for impl in impls:
            error = (results.get(impl) or {}).get("error")
            if error and len(error) > 90:
                print(f"{model} {impl} failed: {error}")


def format_losses(losses):
    return " ".join(f"{loss:.4f}" for loss in losses)


def json_report(rows, args, load_start):
    """The table's figures: per model, each implementation's child result and the two ratios of medians."""
    models = {}
    for model, results in rows:
        entry = {"results": results}
        for name, denominator in (("ours_over_raw", "raw"), ("ours_over_torch", "torch")):
            ours, other = results.get("ours"), results.get(denominator)
            if ours and other and "median_s" in ours and "median_s" in other:
                entry[name] = ours["median_s"] / other["median_s"]
        models[model] = entry
    return {"benchmark": "trainer_step", "date": time.strftime("%Y-%m-%d %H:%M:%S"), "check": args.check,
            "load_average_start": load_start, "load_average_end": _runner.load_average(), "cpus": os.cpu_count(),
            "settings": {"batch": _common.BATCH, "seq_len": _common.SEQ_LEN, "warmup": args.warmup,
                         "steps": {model: args.steps or DEFAULT_STEPS[model] for model in args.models}},
            "models": models}


def main():
    args = parse_arguments()
    started, load_start = time.perf_counter(), _runner.load_average()
    print(f"batch {_common.BATCH}, seq {_common.SEQ_LEN}; cpus {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.2f}; python {sys.executable}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="trainer_step_") as workdir:
        prepared = prepare_models(args.models, workdir, args.timeout, args.verbose)
        for model in args.models:
            model_dir, extra_weights, inputs = prepared[model]
            steps = args.steps or DEFAULT_STEPS[model]
            results = {}
            for impl in args.impls:
                command = child_command(impl, model, model_dir, extra_weights, inputs, args, steps)
                results[impl] = run_child(command, args.timeout, args.verbose)
                print(f"  {model} {impl}: {format_time(results[impl])}", flush=True)
            rows.append((model, results))
    print()
    if args.check:
        ok = print_check(rows, args.impls)
    else:
        print_table(rows, args.impls)
        ok = True
    print(f"total {time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.2f}")
    if args.json:
        _runner.write_json(args.json, json_report(rows, args, load_start))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
