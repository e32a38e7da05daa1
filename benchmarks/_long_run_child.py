"""Child process: a long run, reporting resident memory per window (does memory stay flat after warm-up?).

Workloads, each the same code on both implementations (`--impl ours` does `import mindnlp` first; `--impl torch`
imports real torch and nothing else):

- `train`: a tiny BERT (hidden 64, 2 layers, random weights from seed 0) trained with the unmodified Trainer on
  the bundled sentiment data (batch 16, every row padded to 24 tokens), evaluating and writing a checkpoint every
  `--eval-every` steps with `save_total_limit=1`; RSS after every `--window`-th optimizer step.
- `generate`: a tiny GPT-2 (hidden 64, 2 layers, random weights from seed 0), `--calls` greedy `generate` calls
  of 16 new tokens after an 8-token prompt (the prompt changes each call); RSS after every `--window`-th call.

Prints one JSON line: the RSS samples (MB) with the step or call each was taken at, the peak (VmHWM), the wall
time and a figure that shows the run did its work (the final training loss, or the last call's tokens).
"""
import argparse
import gc
import json
import os
import sys
import tempfile
import time

from _common import REPO_ROOT, SENTIMENT_DIR as DATA_DIR, status_mb  # (this script's folder is first on sys.path)

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=("ours", "torch"), required=True)
    parser.add_argument("--workload", choices=("train", "generate"), required=True)
    parser.add_argument("--steps", type=int, default=1500, help="optimizer steps (train)")
    parser.add_argument("--eval-every", type=int, default=250,
                        help="steps between evaluation and checkpoint (0: neither)")
    parser.add_argument("--max-grad-norm", type=float, default=1.0, help="the Trainer's clipping (0: none)")
    parser.add_argument("--calls", type=int, default=300, help="generate calls")
    parser.add_argument("--window", type=int, default=50, help="steps or calls between RSS samples")
    return parser.parse_args()


def import_torch(impl):
    if impl == "ours":
        sys.path.insert(1, REPO_ROOT)  # measure the checkout this file belongs to
        import mindnlp  # noqa: F401  (before torch and transformers)
    import torch

    if impl == "torch":
        torch.set_num_threads(max(1, len(os.sched_getaffinity(0))))  # as the shim does for MindSpore
    return torch


def train(args, torch):
    import datasets
    from transformers import (BertConfig, BertForSequenceClassification, AutoTokenizer, Trainer, TrainerCallback,
                              TrainingArguments)

    sys.path.insert(0, HERE)
    import _common

    tokenizer = AutoTokenizer.from_pretrained(_common.minilm_dir())
    files = {"train": os.path.join(DATA_DIR, "train.csv"), "test": os.path.join(DATA_DIR, "test.csv")}
    data = datasets.load_dataset("csv", data_files=files)
    data = data.map(lambda batch: tokenizer(batch["text"], truncation=True, padding="max_length", max_length=24),
                    batched=True, remove_columns=["text"])
    torch.manual_seed(0)
    config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256,
                        vocab_size=tokenizer.vocab_size, max_position_embeddings=64, num_labels=2)
    model = BertForSequenceClassification(config)
    samples = []

    class MemoryRecorder(TrainerCallback):
        def on_step_end(self, unused_args, state, *unused, **kwargs):
            if state.global_step % args.window == 0:
                samples.append([state.global_step, status_mb("VmRSS")])

    with tempfile.TemporaryDirectory(prefix="long_run_memory_") as output_dir:
        training_args = TrainingArguments(
            output_dir=output_dir, max_steps=args.steps, per_device_train_batch_size=16,
            per_device_eval_batch_size=16, learning_rate=1e-4, max_grad_norm=args.max_grad_norm,
            eval_strategy="steps" if args.eval_every else "no", eval_steps=args.eval_every or None,
            save_strategy="steps" if args.eval_every else "no", save_steps=args.eval_every or 500, save_total_limit=1,
            logging_steps=args.eval_every or 500,
            report_to=[], seed=0, disable_tqdm=True, use_cpu=True, dataloader_num_workers=0)
        trainer = Trainer(model=model, args=training_args, train_dataset=data["train"], eval_dataset=data["test"],
                          callbacks=[MemoryRecorder()])
        result = trainer.train()
    return {"samples": samples, "train_loss": result.training_loss}


def generate(args, torch):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_embd=64, n_layer=2, n_head=2, vocab_size=1024, n_positions=64)
    model = GPT2LMHeadModel(config).eval()
    generator = torch.Generator().manual_seed(1)
    samples, tokens = [], None
    for call in range(1, args.calls + 1):
        prompt = torch.randint(3, config.vocab_size, (1, 8), generator=generator)
        with torch.no_grad():
            out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=16,
                                 min_new_tokens=16, do_sample=False, pad_token_id=0)
        tokens = out[0, 8:].tolist()
        if call % args.window == 0:
            samples.append([call, status_mb("VmRSS")])
    return {"samples": samples, "last_tokens": tokens}


def main():
    args = parse_arguments()
    started = time.perf_counter()
    try:
        torch = import_torch(args.impl)
        work = generate if args.workload == "generate" else train
        result = work(args, torch)
        result.update(impl=args.impl, workload=args.workload, torch_module=torch.__name__,
                      peak_rss_mb=status_mb("VmHWM"), seconds=time.perf_counter() - started)
    except Exception as exc:  # the parent reports it
        first_line = (str(exc).strip().splitlines() or [""])[0]
        result = {"impl": args.impl, "error": f"{type(exc).__name__}: {first_line}"[:300]}
    gc.collect()
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
