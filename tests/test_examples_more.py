"""examples/masked_lm.py, causal_lm.py, lora.py and hyperparameter_search.py, run as a user would, briefly:
2 optimizer steps (per trial) and 16 eval texts, on the bundled model and data, offline."""
import math
import os
import re

import pytest

from example_runs import needs_minilm, run_example_briefly


def _check_language_model(summary, output_dir):
    train_loss, eval_loss = float(summary["train loss:"]), float(summary["eval loss:"])
    # two steps barely move a fresh head over a 30522-token vocabulary: near log(30522) = 10.3, far from 0
    assert 5 < train_loss < 12 and 5 < eval_loss < 12, summary
    assert float(summary["perplexity:"]) == pytest.approx(math.exp(eval_loss), rel=1e-3)
    assert summary["model saved to:"] == os.path.join(output_dir, "final")
    assert os.path.isfile(os.path.join(output_dir, "final", "model.safetensors"))


@needs_minilm
@pytest.mark.slow  # a short fine-tune (~20 s); the Trainer on the bundled MiniLM is in the default run
def test_masked_lm_prints_losses_and_perplexity(tmp_path):
    summary, output_dir = run_example_briefly("masked_lm.py", tmp_path)
    _check_language_model(summary, output_dir)


@needs_minilm
@pytest.mark.slow  # a short training run (~15 s); GPT-2's loss, gradients and generate are checked in the default run
def test_causal_lm_trains_from_scratch_and_generates(tmp_path):
    summary, output_dir = run_example_briefly("causal_lm.py", tmp_path, "--new-tokens", "5", "--prompt", "The room was")
    _check_language_model(summary, output_dir)
    assert re.fullmatch(r"GPT-2 from scratch, 2 layers, width 128, \d+ parameters", summary["model:"]), summary
    # greedy generation continues the (lower-cased) prompt with 5 tokens from the vocabulary
    sample = summary["greedy sample:"]
    assert sample.startswith("the room was ") and len(sample.split()) > 3, sample


@needs_minilm
def test_lora_trains_saves_reloads_and_merges(tmp_path):
    summary, output_dir = run_example_briefly("lora.py", tmp_path)
    trainable, total = re.fullmatch(r"(\d+) of (\d+) \(.*\)", summary["trainable params:"]).groups()
    assert 0 < int(trainable) < 0.01 * int(total)  # only the adapters and the head train
    assert 0 < float(summary["train loss:"]) < 2
    assert 0 <= float(summary["eval accuracy:"]) <= 1
    adapter_dir = os.path.join(output_dir, "adapter")
    assert summary["adapter saved to:"].startswith(adapter_dir)
    assert os.path.isfile(os.path.join(adapter_dir, "adapter_model.safetensors"))
    assert float(summary["reload max diff:"].split()[0]) <= 1e-6
    assert float(summary["merge max diff:"].split()[0]) <= 1e-5
    assert "BertForSequenceClassification" in summary["merge max diff:"]  # merge_and_unload gives the plain model
    assert os.path.isfile(os.path.join(output_dir, "merged", "model.safetensors"))


@needs_minilm
@pytest.mark.slow  # four short fine-tunes (~25 s); the Trainer parts it uses are in the default run
def test_hyperparameter_search_runs_two_optuna_trials(tmp_path):
    pytest.importorskip("optuna")
    summary, _ = run_example_briefly("hyperparameter_search.py", tmp_path)
    match = re.fullmatch(r"2 x 2 steps, eval accuracy ([0-9.]+), ([0-9.]+)", summary["trials:"])
    assert match, summary["trials:"]
    accuracies = [float(a) for a in match.groups()]
    best = re.fullmatch(r"trial (\S+), eval accuracy ([0-9.]+)", summary["best run:"])
    assert best, summary["best run:"]
    assert float(best.group(2)) == max(accuracies)  # direction="maximize"
    assert re.fullmatch(r"learning_rate=[0-9.e-]+, per_device_train_batch_size=(8|16)", summary["best params:"])
