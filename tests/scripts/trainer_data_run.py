"""Data scenarios for tests/test_trainer_data.py (see tiny_trainer.py for the command line): transformers' data
collators, column handling, dataloader options, samplers, iterable datasets and seeds, each with the unmodified
Trainer on tiny random models (BERT, BERT masked LM, GPT-2, T5) and a word-level tokenizer built offline.
"""
import os

import numpy as np

import tiny_trainer as tt
from tiny_trainer import Trainer, torch

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # ids 0..4; words w5..w99 are ids 5..99
PAD_ID, CLS_ID, SEP_ID, MASK_ID = 0, 2, 3, 4


def tokenizer(folder):
    from transformers import BertTokenizerFast

    os.makedirs(folder, exist_ok=True)
    vocab = os.path.join(folder, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("\n".join(SPECIALS + [f"w{i}" for i in range(5, tt.VOCAB)]) + "\n")
    return BertTokenizerFast(vocab, do_lower_case=False)


def ragged_texts(seed, n):
    """Sentences of the learnable task as words ("w7 w12 ..."), of 4..14 words, with labels."""
    ids, lengths, labels = tt.token_rows(seed, n, length=15)
    return [" ".join(f"w{t}" for t in row[1:k]) for row, k in zip(ids, lengths)], labels.tolist()


def tokenized(tok, seed, n, with_labels=True, **columns):
    import datasets

    texts, labels = ragged_texts(seed, n)
    data = {"text": texts, **({"labels": labels} if with_labels else {}), **columns}
    return datasets.Dataset.from_dict(data).map(lambda row: tok(row["text"]), remove_columns=["text"])


class BatchRecorder(Trainer):
    """Keeps, per micro-batch, the keys, shapes and a few tensors of what training_step received."""

    def __init__(self, *a, keep=("input_ids", "attention_mask", "labels"), **kw):
        super().__init__(*a, **kw)
        self.seen, self.keep = [], keep

    def training_step(self, model, inputs, num_items_in_batch=None):
        self.seen.append({"keys": sorted(inputs), "shapes": {k: list(v.shape) for k, v in inputs.items()},
                          **{k: inputs[k].numpy().tolist() for k in self.keep if k in inputs}})
        return super().training_step(model, inputs, num_items_in_batch)


def collator_with_padding(output_dir):
    from transformers import DataCollatorWithPadding

    tok = tokenizer(output_dir)
    data = tokenized(tok, 0, 32)
    trainer = BatchRecorder(model=tt.bert(0), train_dataset=data, data_collator=DataCollatorWithPadding(tok),
                            args=tt.training_args(output_dir, num_train_epochs=1))
    trainer.train()
    return {"seen": trainer.seen, "losses": tt.values(trainer, "loss"),
            "lengths": [len(x) for x in data["input_ids"]]}


def masked_lm(output_dir):
    from transformers import BertConfig, BertForMaskedLM, DataCollatorForLanguageModeling

    tok = tokenizer(output_dir)
    data = tokenized(tok, 0, 32, with_labels=False)
    collator = DataCollatorForLanguageModeling(tok, mlm=True, mlm_probability=0.3)
    torch.manual_seed(5)
    first = collator([data[i] for i in range(8)])
    torch.manual_seed(5)
    again = collator([data[i] for i in range(8)])
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(**tt.CONFIG))
    trainer = BatchRecorder(model=model, train_dataset=data, data_collator=collator,
                            args=tt.training_args(output_dir, max_steps=4, learning_rate=1e-2))
    trainer.train()
    return {"seen": trainer.seen, "losses": tt.values(trainer, "loss"),
            "seeded_collations_equal": all(np.array_equal(first[k].numpy(), again[k].numpy()) for k in first),
            "originals": [data[i]["input_ids"] for i in range(len(data))]}


def gpt2(dropout=False):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    rate = 0.1 if dropout else 0.0
    return GPT2LMHeadModel(GPT2Config(vocab_size=tt.VOCAB, n_embd=32, n_layer=2, n_head=2, n_positions=32,
                                      resid_pdrop=rate, embd_pdrop=rate, attn_pdrop=rate, bos_token_id=CLS_ID,
                                      eos_token_id=SEP_ID, pad_token_id=PAD_ID))


def causal_lm(output_dir):
    """mlm=False: labels are the inputs with padding as -100. Also: 16 examples per step as 1x16 and 4x4
    micro-batches give the same parameters (the causal LM loss is normalised by the step's token count)."""
    from transformers import DataCollatorForLanguageModeling

    tok = tokenizer(output_dir)
    data = tokenized(tok, 0, 32, with_labels=False)
    collator = DataCollatorForLanguageModeling(tok, mlm=False)
    report = {}
    for batch, accumulation in [(16, 1), (4, 4)]:
        trainer = BatchRecorder(model=gpt2(), train_dataset=data, data_collator=collator,
                                args=tt.training_args(os.path.join(output_dir, f"{batch}x{accumulation}"),
                                                      max_steps=2, optim="sgd", learning_rate=0.5,
                                                      lr_scheduler_type="constant",
                                                      per_device_train_batch_size=batch,
                                                      gradient_accumulation_steps=accumulation,
                                                      train_sampling_strategy="sequential"))
        trainer.train()
        report[f"{batch}x{accumulation}"] = {"losses": tt.values(trainer, "loss"),
                                             "params": tt.params_numpy(trainer.model), "seen": trainer.seen}
    report["max_param_diff"] = tt.max_param_diff(report["16x1"].pop("params"), report["4x4"].pop("params"))
    report["update_size"] = tt.max_param_diff(tt.params_numpy(gpt2()), tt.params_numpy(trainer.model))
    report["4x4"].pop("seen")
    return report


def seq2seq(output_dir):
    from transformers import DataCollatorForSeq2Seq, T5Config, T5ForConditionalGeneration

    tok = tokenizer(output_dir)
    texts, _ = ragged_texts(0, 24)
    targets = [" ".join(t.split()[:3]) for t in texts]  # "copy the first three words"
    import datasets

    data = datasets.Dataset.from_dict({"text": texts, "target": targets}).map(
        lambda row: {**tok(row["text"]), "labels": tok(row["target"])["input_ids"]}, remove_columns=["text", "target"])
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(T5Config(vocab_size=tt.VOCAB, d_model=32, d_ff=64, d_kv=16, num_layers=2,
                                                num_heads=2, decoder_start_token_id=PAD_ID, pad_token_id=PAD_ID,
                                                eos_token_id=SEP_ID))
    trainer = BatchRecorder(model=model, train_dataset=data, data_collator=DataCollatorForSeq2Seq(tok, model=model),
                            keep=("labels", "decoder_input_ids"),
                            args=tt.training_args(output_dir, max_steps=3, learning_rate=1e-2))
    trainer.train()
    return {"seen": trainer.seen, "losses": tt.values(trainer, "loss"),
            "label_lengths": [len(x) for x in data["labels"]]}


def columns(output_dir):
    """remove_unused_columns on and off, default_data_collator, and label_names for a model whose labels are
    called "target"."""
    from transformers import default_data_collator

    base = tt.classification_data(0, n=16)
    extra = base.add_column("idx", list(range(16))).add_column("note", [f"row {i}" for i in range(16)])
    removed = BatchRecorder(model=tt.bert(0), train_dataset=extra, data_collator=default_data_collator,
                            args=tt.training_args(os.path.join(output_dir, "removed"), max_steps=2))
    removed.train()

    collator_saw = []

    def keep_idx(features):
        collator_saw.append({"keys": sorted(features[0]), "idx": [f["idx"] for f in features]})
        return default_data_collator([{k: v for k, v in f.items() if k in ("input_ids", "attention_mask", "labels")}
                                      for f in features])

    kept = BatchRecorder(model=tt.bert(0), train_dataset=extra, data_collator=keep_idx,
                         args=tt.training_args(os.path.join(output_dir, "kept"), max_steps=2,
                                               remove_unused_columns=False, train_sampling_strategy="sequential"))
    kept.train()

    class TargetModel(torch.nn.Module):
        """A classifier whose forward names its labels `target` (the Trainer is told with label_names)."""

        def __init__(self):
            super().__init__()
            self.inner = tt.bert(0)

        def forward(self, input_ids, attention_mask=None, target=None):
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, labels=target)
            return {"loss": out.loss, "logits": out.logits} if target is not None else {"logits": out.logits}

    targeted = base.rename_column("labels", "target")
    test = tt.classification_data(1, n=12).rename_column("labels", "target")
    named = Trainer(model=TargetModel(), train_dataset=targeted, eval_dataset=test,
                    args=tt.training_args(os.path.join(output_dir, "label_names"), max_steps=2,
                                          label_names=["target"]))
    named.train()
    prediction = named.predict(test)
    return {"removed_keys": removed.seen[0]["keys"], "kept_collator": collator_saw[:2],
            "kept_losses": tt.values(kept, "loss"), "label_names_losses": tt.values(named, "loss"),
            "predicted_label_ids": np.asarray(prediction.label_ids).tolist(), "targets": list(test["target"]),
            "predict_metrics": prediction.metrics}


def dataloader_options(output_dir):
    """dataloader_drop_last on and off (44 examples, batches of 8); dataloader_num_workers=2 gives the same
    batches as loading in the main process."""
    report = {}
    data = tt.classification_data(0, n=44)
    for drop in (False, True):
        trainer = BatchRecorder(model=tt.bert(0), train_dataset=data,
                                args=tt.training_args(os.path.join(output_dir, f"drop_{drop}"), num_train_epochs=1,
                                                      dataloader_drop_last=drop))
        trainer.train()
        report[f"drop_last_{drop}"] = {"global_step": trainer.state.global_step,
                                       "batch_sizes": [s["shapes"]["input_ids"][0] for s in trainer.seen]}
    return report


def worker_processes(output_dir):
    report = {}
    data = tt.classification_data(0, n=24)
    for workers in (0, 2):
        trainer = tt.RecordingTrainer(model=tt.bert(0), train_dataset=data,
                                      args=tt.training_args(os.path.join(output_dir, f"workers_{workers}"),
                                                            num_train_epochs=1, dataloader_num_workers=workers))
        trainer.train()
        report[f"workers_{workers}"] = {"batches": trainer.batches, "losses": tt.values(trainer, "loss")}
    return report


def group_by_length(output_dir):
    """train_sampling_strategy="group_by_length": batches of similar lengths (less padding than random ones),
    the longest example in the first batch; and a short training run on them."""
    from transformers import DataCollatorWithPadding

    tok = tokenizer(output_dir)
    data = tokenized(tok, 0, 160)
    report = {"lengths": [len(x) for x in data["input_ids"]]}
    for strategy in ("group_by_length", "random"):
        trainer = BatchRecorder(model=tt.bert(0), train_dataset=data, data_collator=DataCollatorWithPadding(tok),
                                keep=(), args=tt.training_args(os.path.join(output_dir, strategy), max_steps=2,
                                                               train_sampling_strategy=strategy))
        batches = list(trainer.get_train_dataloader())
        report[strategy] = {"padded_lengths": [int(b["input_ids"].shape[1]) for b in batches],
                            "real_lengths": [b["attention_mask"].numpy().sum(axis=1).tolist() for b in batches],
                            "sampler": tt.qualified_name(trainer._get_train_sampler())}
        if strategy == "group_by_length":
            trainer.train()
            report[strategy]["trained_shapes"] = [s["shapes"]["input_ids"] for s in trainer.seen]
            report[strategy]["losses"] = tt.values(trainer, "loss")
    return report


class Stream(torch.utils.data.IterableDataset):
    """An endless stream of examples of the learnable task: only max_steps can end the training."""

    def __iter__(self):
        rng = np.random.RandomState(0)
        while True:
            label = int(rng.randint(0, 2))
            ids = rng.randint(5, 50, size=tt.LENGTH) + 45 * label
            ids[0] = CLS_ID
            yield {"input_ids": torch.tensor(ids), "labels": torch.tensor(label)}


def iterable_datasets(output_dir):
    report = {}
    stream = Trainer(model=tt.bert(0), train_dataset=Stream(),
                     args=tt.training_args(os.path.join(output_dir, "torch"), max_steps=5))
    stream.train()
    report["torch_iterable"] = {"global_step": stream.state.global_step, "losses": tt.values(stream, "loss")}
    hf_stream = tt.classification_data(0, n=24).to_iterable_dataset()
    hf = Trainer(model=tt.bert(0), train_dataset=hf_stream,
                 args=tt.training_args(os.path.join(output_dir, "datasets"), max_steps=4))
    hf.train()
    report["datasets_iterable"] = {"global_step": hf.state.global_step, "losses": tt.values(hf, "loss")}
    return report


def seeds(output_dir):
    """Dropout on and shuffled batches: the same seed twice gives the same run; another seed another run;
    another data_seed the same initial model but another batch order."""
    report = {}
    for label, seed, data_seed in [("seed7", 7, None), ("seed7_again", 7, None), ("seed8", 8, None),
                                   ("seed7_data3", 7, 3)]:
        tt.torch.manual_seed(1000)  # the model's own init is the Trainer's business here: model_init below
        trainer = tt.RecordingTrainer(model_init=lambda: tt.BertForSequenceClassification(
            tt.BertConfig(**tt.CONFIG, num_labels=2)), train_dataset=tt.classification_data(0),
            args=tt.training_args(os.path.join(output_dir, label), max_steps=4, seed=seed, data_seed=data_seed))
        initial = {k: v.detach().numpy().copy() for k, v in trainer.model.state_dict().items()}
        trainer.train()
        report[label] = {"losses": tt.values(trainer, "loss"), "batches": trainer.batches,
                         "init_checksum": float(sum(np.abs(v).sum() for v in initial.values()))}
    return report


SCENARIOS = {f.__name__: f for f in [
    collator_with_padding, masked_lm, causal_lm, seq2seq, columns, dataloader_options, worker_processes,
    group_by_length, iterable_datasets, seeds]}

if __name__ == "__main__":
    tt.main(SCENARIOS)
