"""Checks that the sentiment data bundled with the main example is well formed."""
from pathlib import Path

import datasets
import pytest

DATA_DIR = Path(__file__).resolve().parent.parent / "examples" / "data" / "sentiment"


@pytest.fixture(scope="module")
def splits():
    return datasets.load_dataset(
        "csv",
        data_files={"train": str(DATA_DIR / "train.csv"), "test": str(DATA_DIR / "test.csv")},
    )


def test_columns(splits):
    for name in ("train", "test"):
        assert splits[name].column_names == ["text", "label"]


def test_sizes(splits):
    assert splits["train"].num_rows >= 300
    assert splits["test"].num_rows >= 80


@pytest.mark.parametrize("name", ["train", "test"])
def test_labels_are_binary_and_balanced(splits, name):
    labels = splits[name]["label"]
    assert set(labels) <= {0, 1}
    share_positive = sum(labels) / len(labels)
    # Each class must make up between 40% and 60% of the split.
    assert 0.4 <= share_positive <= 0.6


@pytest.mark.parametrize("name", ["train", "test"])
def test_text_is_never_empty(splits, name):
    for text in splits[name]["text"]:
        assert isinstance(text, str) and text.strip()


@pytest.mark.parametrize("name", ["train", "test"])
def test_no_duplicate_text_within_split(splits, name):
    texts = splits[name]["text"]
    assert len(set(texts)) == len(texts)


def test_train_and_test_share_no_text(splits):
    shared = set(splits["train"]["text"]) & set(splits["test"]["text"])
    assert not shared, f"texts in both splits: {sorted(shared)[:5]}"
