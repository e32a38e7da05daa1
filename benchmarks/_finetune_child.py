"""Child process: a short Trainer fine-tune of MiniLM-L6 on the bundled sentiment data, reporting memory.

The same code runs on both implementations: `--impl ours` does `import mindnlp` first, so `torch` and
everything transformers imports resolve to the shim; `--impl torch` imports real torch and nothing else.
Prints one JSON line: resident set size after the imports, after loading the model, after each step and at the
end, the peak (VmHWM), per-step seconds and the training loss.
"""
import argparse
import os
import sys
import tempfile
import time

from _common import REPO_ROOT, SENTIMENT_DIR as DATA_DIR, status_mb  # (this script's folder is first on sys.path)



def parse_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=("ours", "torch"), required=True)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=128)
    return parser.parse_args()


def fine_tune(args):
    memory = {"rss_start_mb": status_mb("VmRSS")}
    if args.impl == "ours":
        sys.path.insert(1, REPO_ROOT)  # measure the checkout this file belongs to
        import mindnlp  # noqa: F401  (before torch and transformers)
    import datasets
    import torch
    from transformers import (AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainerCallback,
                              TrainingArguments)

    import _common

    if args.impl == "torch":
        torch.set_num_threads(max(1, len(os.sched_getaffinity(0))))  # as the shim does for MindSpore
    memory["rss_after_imports_mb"] = status_mb("VmRSS")

    model_dir = _common.minilm_dir()
    data = datasets.load_dataset("csv", data_files={"train": os.path.join(DATA_DIR, "train.csv")})["train"]
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    data = data.map(lambda batch: tokenizer(batch["text"], truncation=True, max_length=args.max_length),
                    batched=True)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir, num_labels=2)
    memory["rss_after_model_mb"] = status_mb("VmRSS")

    step_seconds, step_rss = [], []

    class StepRecorder(TrainerCallback):
        """Seconds and resident memory after each optimizer step (does memory level off or keep growing?)."""

        def on_step_begin(self, *unused, **kwargs):
            self.start = time.perf_counter()

        def on_step_end(self, *unused, **kwargs):
            step_seconds.append(time.perf_counter() - self.start)
            step_rss.append(status_mb("VmRSS"))

    with tempfile.TemporaryDirectory(prefix="finetune_memory_") as output_dir:
        training_args = TrainingArguments(
            output_dir=output_dir, max_steps=args.steps, per_device_train_batch_size=args.batch_size,
            learning_rate=5e-5, weight_decay=0.01, save_strategy="no", eval_strategy="no", logging_steps=args.steps,
            report_to=[], seed=42, disable_tqdm=True)
        trainer = Trainer(model=model, args=training_args, train_dataset=data, processing_class=tokenizer,
                          callbacks=[StepRecorder()])
        result = trainer.train()
    memory["rss_end_mb"] = status_mb("VmRSS")
    memory["peak_rss_mb"] = status_mb("VmHWM")
    return dict(memory, impl=args.impl, torch_module=torch.__name__, steps=len(step_seconds),
                step_seconds=step_seconds, rss_per_step_mb=step_rss, train_loss=result.training_loss)


def main():
    import json

    args = parse_arguments()
    try:
        result = fine_tune(args)
    except Exception as exc:  # the parent reports it
        first_line = (str(exc).strip().splitlines() or [""])[0]
        result = {"impl": args.impl, "error": f"{type(exc).__name__}: {first_line}"[:300]}
    sys.stdout.write(json.dumps(result) + "\n")
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
