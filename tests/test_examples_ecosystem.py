"""examples/sft.py (trl) and examples/sentence_embeddings.py (sentence-transformers), run as a user would,
briefly: 2 optimizer steps on the bundled model and data, offline."""
import os

import pytest

from example_runs import needs_minilm, run_example_briefly


@needs_minilm
def test_sft_example_trains_with_trl_and_scores_completions(tmp_path):
    pytest.importorskip("trl")
    summary, output_dir = run_example_briefly("sft.py", tmp_path)
    assert summary["model:"].startswith("Llama from scratch, 2 layers, width 128"), summary
    assert summary["trainer:"] == "trl SFTTrainer, completion-only loss, gradient checkpointing on", summary
    # two steps barely move a fresh model over a 30522-token vocabulary: near log(30522) = 10.3
    assert 5 < float(summary["train loss:"]) < 12, summary
    accuracy, _, rest = summary["completion accuracy:"].partition(" on ")
    assert 0 <= float(accuracy) <= 1 and rest == "16 test reviews", summary
    assert summary["model saved to:"] == os.path.join(output_dir, "final")
    assert os.path.isfile(os.path.join(output_dir, "final", "model.safetensors"))


@needs_minilm
@pytest.mark.parametrize("loss,loss_class", [
    # the example script behind `slow` (~30 s each): sentence-transformers' parity with real torch, encoding and
    # fine-tuning, is in the default run (tests/test_sentence_transformers.py)
    pytest.param("mnrl", "MultipleNegativesRankingLoss", marks=pytest.mark.slow),
    pytest.param("cosine", "CosineSimilarityLoss", marks=pytest.mark.slow)])
def test_sentence_embeddings_example_searches_and_fine_tunes(tmp_path, loss, loss_class):
    summary, output_dir = run_example_briefly("sentence_embeddings.py", tmp_path, "--loss", loss,
                                              "--train-samples", "48")
    assert summary["model:"].endswith("embedding size 384"), summary
    # the pretrained MiniLM already puts a review about rude staff first for the default query
    neighbours = [summary[f"neighbour {rank}:"].partition("  ") for rank in (1, 2, 3)]
    scores = [float(score) for score, _, _ in neighbours]
    assert 1.0 >= scores[0] >= scores[1] >= scores[2] > 0.2, summary
    assert "rude" in neighbours[0][2].lower(), summary
    assert summary["loss:"] == loss_class
    assert float(summary["train loss:"]) > 0
    before, after = summary["vote accuracy:"].split(" before, ")
    assert float(before) >= 0.75 and 0 <= float(after.split(" after")[0]) <= 1, summary
    assert summary["model saved to:"] == os.path.join(output_dir, "final")
    assert os.path.isfile(os.path.join(output_dir, "final", "model.safetensors"))
