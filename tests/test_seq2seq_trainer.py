"""Seq2Seq on the shim: the unmodified `Seq2SeqTrainer` with `Seq2SeqTrainingArguments(predict_with_generate=True,
generation_max_length=..., generation_num_beams=...)` and `DataCollatorForSeq2Seq` trains a tiny random T5 (d_model
32, 2+2 layers, 9 token vocabulary) to write the distinct words of a text in sorted order, and evaluates and
predicts by generation with an exact-match metric over decoded predictions.

Scenario: tests/scripts/seq2seq_run.py, once on the shim and once on real torch (the same NumPy-drawn weights,
examples in order, dropout off), each in one child process.
"""
import numpy as np
import pytest

from oracle import require_torch
from trainer_scenarios import result, run_scenarios

SCENARIO = "train_and_generate"
PAD, EOS = 0, 1
GEN_MAX_LENGTH, SHORT_MAX_LENGTH, N_EVAL = 8, 4, 16
EXACT_LOSS_STEPS = 8  # the first steps agree to float32 rounding; later ones drift (lr 1e-2, no schedule)


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    return result(run_scenarios("seq2seq_run.py", [SCENARIO], tmp_path_factory.mktemp("seq2seq_shim")), SCENARIO)


@pytest.fixture(scope="module")
def torch_side(tmp_path_factory):
    require_torch()
    reports = run_scenarios("seq2seq_run.py", [SCENARIO], tmp_path_factory.mktemp("seq2seq_torch"), side="torch")
    return result(reports, SCENARIO)


def _padded(rows, width, pad=PAD):
    return [row + [pad] * (width - len(row)) for row in rows]


def test_collator_pads_labels_with_ignore_index_and_shifts_them_into_decoder_inputs(shim):
    assert shim["collated_keys"] == ["attention_mask", "decoder_input_ids", "input_ids", "labels"]
    labels, decoder_inputs = shim["collated_labels"], shim["collated_decoder_input_ids"]
    assert any(-100 in row for row in labels)  # rows of different lengths: the short ones padded with -100
    for label_row, decoder_row in zip(labels, decoder_inputs):
        # T5 starts the decoder with pad and replaces -100 by pad
        assert decoder_row == [PAD] + [PAD if t == -100 else t for t in label_row[:-1]]


def test_training_loss_falls_clearly(shim):
    losses = shim["losses"]
    assert len(losses) == 24
    assert losses[0] > 2.5  # ~ln(9) for the random model
    assert np.mean(losses[-3:]) < 0.1 * losses[0], losses


def test_first_training_losses_match_real_torch(shim, torch_side):
    np.testing.assert_allclose(shim["losses"][:EXACT_LOSS_STEPS], torch_side["losses"][:EXACT_LOSS_STEPS], rtol=1e-5)
    np.testing.assert_allclose(shim["grad_norms"][:EXACT_LOSS_STEPS], torch_side["grad_norms"][:EXACT_LOSS_STEPS],
                               rtol=1e-4)
    np.testing.assert_allclose(shim["losses"], torch_side["losses"], rtol=2e-2)


def test_evaluate_generates_token_ids_and_computes_exact_match(shim):
    calls, seen, metrics = shim["evaluate_calls"], shim["evaluate_seen"], shim["evaluate"]
    assert calls["max_length"] == GEN_MAX_LENGTH and calls["num_beams"] == 1  # from the arguments
    # compute_metrics receives generated ids, not logits: one row per example, padded (upstream) to the
    # width of the model's generation config
    assert seen == {"shape": [N_EVAL, shim["generation_config_max_length"]], "dtype": "int64"}
    assert metrics["eval_exact_match"] >= 0.75 and metrics["eval_loss"] < 0.3  # the task was learnt
    assert metrics["eval_exact_match"] == shim["predict"]["metrics"]["test_exact_match"]


def test_predict_returns_what_generate_gives(shim):
    predictions, direct = shim["predict"]["predictions"], shim["direct_greedy"]
    assert shim["predict"]["calls"]["max_length"] == GEN_MAX_LENGTH
    assert len(predictions) == N_EVAL and len(direct[0]) <= GEN_MAX_LENGTH
    assert predictions == _padded(direct, len(predictions[0]))
    assert all(row[0] == PAD for row in predictions)  # the decoder start token, then the words
    assert sum(EOS in row for row in predictions) >= N_EVAL * 3 // 4  # and </s> where the model stopped
    # the metric is exact match of the decoded predictions
    decoded, targets = shim["decoded_predictions"], shim["decoded_targets"]
    assert shim["predict"]["metrics"]["test_exact_match"] == np.mean([p == t for p, t in zip(decoded, targets)])
    assert sum(p != t for p, t in zip(decoded, targets)) <= N_EVAL // 4


def test_generation_max_length_and_num_beams_are_honoured(shim):
    untrained = shim["untrained_short_beams"]
    for run in (untrained, shim["short_beams"], shim["keyword_beams"]):
        assert run["calls"]["max_length"] == SHORT_MAX_LENGTH and run["calls"]["num_beams"] == 3
        assert all(set(row[SHORT_MAX_LENGTH:]) <= {PAD} for row in run["predictions"])  # cut at max_length
    assert [len(row) for row in untrained["direct_beams"]] == [SHORT_MAX_LENGTH] * N_EVAL
    width = len(untrained["predictions"][0])
    assert untrained["predictions"] == _padded(untrained["direct_beams"], width)
    assert untrained["direct_beams"] != untrained["direct_greedy"]  # beam search really ran
    assert shim["short_beams"]["predictions"] == _padded(shim["short_beams"]["direct"], width)
    # predict(max_length=..., num_beams=...) keywords give what the arguments give
    assert shim["keyword_beams"]["predictions"] == shim["short_beams"]["predictions"]


def test_generated_tokens_and_metrics_match_real_torch(shim, torch_side):
    assert shim["predict"]["predictions"] == torch_side["predict"]["predictions"]
    assert shim["untrained_short_beams"]["predictions"] == torch_side["untrained_short_beams"]["predictions"]
    assert shim["short_beams"]["predictions"] == torch_side["short_beams"]["predictions"]
    assert shim["direct_beams_full"] == torch_side["direct_beams_full"]
    assert shim["evaluate"]["eval_exact_match"] == torch_side["evaluate"]["eval_exact_match"]
    # (the loss of the weights after all 24 steps: within the later steps' drift, as the losses are above; the
    # trajectories agree to 1e-6 over the first 8 steps and part by up to 1% at the end, either way of rounding
    # the log-softmax)
    assert shim["evaluate"]["eval_loss"] == pytest.approx(torch_side["evaluate"]["eval_loss"], rel=1e-2)
    assert shim["evaluate_seen"] == torch_side["evaluate_seen"]
