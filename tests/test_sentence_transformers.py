"""sentence-transformers runs unmodified on the shim and learns like real PyTorch: on the bundled MiniLM,
`encode`, `similarity`, `util.cos_sim`/`dot_score` and `similarity_pairwise` match real torch's values, and
`SentenceTransformerTrainer` with MultipleNegativesRankingLoss and with CosineSimilarityLoss gives real torch's
loss at every step (same weights, data order and no dropout; see tests/scripts/sentence_transformers_run.py)."""
import json

import numpy as np
import pytest

from example_runs import needs_minilm
from oracle import require_torch, run_torch
from shim_runner import run_shim_json, script

RUN = script("sentence_transformers_run.py")


pytestmark = needs_minilm


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    require_torch()
    workdir = str(tmp_path_factory.mktemp("sentence_transformers"))
    theirs = run_torch(f"""
        import runpy, sys
        sys.argv = [{RUN!r}, "--side", "torch", "--workdir", {workdir!r}]
        runpy.run_path({RUN!r}, run_name="__main__")
    """, timeout=600)
    theirs = json.loads([line for line in theirs.splitlines() if line.strip()][-1])
    ours = run_shim_json([RUN, "--side", "shim", "--workdir", workdir], timeout=600)
    return ours, theirs


@pytest.mark.parametrize("key", ["embeddings", "similarity", "cos_sim", "pairwise", "dot"])
def test_encode_and_similarities_match_real_torch(reports, key):
    ours, theirs = (np.array(r[key]) for r in reports)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6)


def test_encode_to_numpy_has_the_embedding_shape(reports):
    assert reports[0]["numpy_encode_shape"] == reports[1]["numpy_encode_shape"] == [3, 384]


@pytest.mark.parametrize("loss", ["mnrl", "cosine"])
def test_training_losses_match_real_torch_step_by_step(reports, loss):
    ours, theirs = (r[loss] for r in reports)
    assert len(ours["losses"]) == len(theirs["losses"]) == 4
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-4, atol=1e-7)
    # the same batch every step: the model learns it (the loss falls several-fold) on both sides
    assert ours["losses"][-1] < ours["losses"][0] / 4
    np.testing.assert_allclose(ours["embedding_after"], theirs["embedding_after"], rtol=0, atol=2e-5)
