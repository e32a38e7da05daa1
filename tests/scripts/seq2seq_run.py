"""Seq2Seq scenarios for tests/test_seq2seq_trainer.py (see tiny_trainer.py for the command line): the unmodified
`Seq2SeqTrainer` with `Seq2SeqTrainingArguments(predict_with_generate=True)` and `DataCollatorForSeq2Seq` trains a
tiny random T5 to write the distinct words of a short text in sorted order ("t7 t3 t7 t5" -> "t3 t5 t7"), then
evaluates and predicts by generation. (Copying or reversing needs hundreds of steps at this size: T5 has no
absolute positions; this task needs none and is learnt in two dozen steps.)

The T5's weights are drawn by NumPy and examples are taken in order with dropout off, so real torch
(`--side torch`) runs exactly the same training.
"""
import numpy as np
from tokenizers import Tokenizer, models, pre_tokenizers, processors

import tiny_trainer as tt
from tiny_trainer import torch

PAD, EOS = 0, 1
SYMBOLS = [f"t{i}" for i in range(3, 9)]  # the words: ids 3..8
GEN_MAX_LENGTH = 8  # decoder start + up to 5 words + </s>, and room to spare
SHORT_MAX_LENGTH = 4  # shorter than most targets: generation is cut there
TRAIN_STEPS, BATCH = 24, 16


def tokenizer():
    """A word-level tokenizer built in memory: <pad>=0, </s>=1 (appended to every text), <unk>=2."""
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": PAD, "</s>": EOS, "<unk>": 2, **{w: 3 + i for i, w in enumerate(SYMBOLS)}}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", EOS)])
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")


def sorted_words(text):
    return " ".join(sorted(set(text.split()), key=lambda word: int(word[1:])))


def task_data(tok, seed, n):
    """Texts of 2..5 words; the target is their distinct words in sorted order."""
    import datasets

    rng = np.random.RandomState(seed)
    texts = [" ".join(rng.choice(SYMBOLS, size=rng.randint(2, 6))) for _ in range(n)]
    return datasets.Dataset.from_dict({"text": texts}).map(
        lambda row: {**tok(row["text"]), "labels": tok(sorted_words(row["text"]))["input_ids"]},
        remove_columns=["text"])


def t5(vocab_size):
    """A 2-layer T5 with d_model 32 and no dropout; every weight drawn by NumPy (torch's scale per kind)."""
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    model = T5ForConditionalGeneration(T5Config(
        vocab_size=vocab_size, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        relative_attention_num_buckets=32, dropout_rate=0.0, decoder_start_token_id=PAD, pad_token_id=PAD,
        eos_token_id=EOS))
    rng = np.random.RandomState(1234)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            if "layer_norm" in name:
                continue  # ones
            std = 1.0 if name == "shared.weight" else param.shape[-1] ** -0.5
            param.copy_(torch.tensor(rng.normal(0.0, std, param.shape).astype(np.float32)))
    return model


class GenerateRecorder:
    """Stands in for `model.generate` on the instance: records the keyword arguments of every call."""

    def __init__(self, model):
        self.generate, self.calls = model.generate, []

    def __call__(self, *args, **kwargs):
        self.calls.append({k: v for k, v in kwargs.items() if isinstance(v, (int, float, bool, str))})
        return self.generate(*args, **kwargs)


def exact_match_metric(tok, seen):
    """compute_metrics over decoded predictions; keeps what it received in `seen`."""

    def compute(eval_pred):
        predictions, labels = eval_pred.predictions, eval_pred.label_ids
        seen.append({"shape": list(predictions.shape), "dtype": str(predictions.dtype)})
        decoded = tok.batch_decode(predictions, skip_special_tokens=True)
        references = tok.batch_decode(np.where(labels == -100, PAD, labels), skip_special_tokens=True)
        return {"exact_match": float(np.mean([p == r for p, r in zip(decoded, references)]))}

    return compute


def direct_generate(model, collator, rows, **kwargs):
    """`model.generate` called by hand on the collated rows (one batch), padded like the Trainer pads."""
    batch = collator([{k: row[k] for k in ("input_ids", "attention_mask")} for row in rows])
    model.eval()
    with torch.no_grad():
        out = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], **kwargs)
    return out.numpy().tolist()


def train_and_generate(output_dir):
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    tok = tokenizer()
    train_data, eval_data = task_data(tok, 0, TRAIN_STEPS * BATCH), task_data(tok, 1, 16)  # fresh rows every step
    model = t5(len(tok))
    collator = DataCollatorForSeq2Seq(tok, model=model)
    seen = []
    args = Seq2SeqTrainingArguments(
        output_dir=output_dir, predict_with_generate=True, generation_max_length=GEN_MAX_LENGTH,
        generation_num_beams=1, max_steps=TRAIN_STEPS, per_device_train_batch_size=BATCH, per_device_eval_batch_size=16,
        learning_rate=1e-2, lr_scheduler_type="constant", logging_steps=1, seed=0, report_to=[], disable_tqdm=True,
        save_strategy="no", train_sampling_strategy="sequential")
    trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=train_data, eval_dataset=eval_data,
                             data_collator=collator, processing_class=tok, compute_metrics=exact_match_metric(tok, seen))
    first_batch = collator([train_data[i] for i in range(4)])
    rows = [eval_data[i] for i in range(len(eval_data))]

    # generation_max_length / generation_num_beams from the arguments of a second trainer on the same model; on
    # the untrained model beam search and greedy search give different tokens
    short = Seq2SeqTrainer(model=model, args=Seq2SeqTrainingArguments(
        output_dir=output_dir, predict_with_generate=True, generation_max_length=SHORT_MAX_LENGTH,
        generation_num_beams=3, per_device_eval_batch_size=16, report_to=[], disable_tqdm=True),
        data_collator=collator, processing_class=tok)
    recorder = GenerateRecorder(model)
    model.generate = recorder
    untrained = short.predict(eval_data)
    report_untrained = {"predictions": untrained.predictions.tolist(), "calls": recorder.calls[-1],
                        "direct_beams": direct_generate(model, collator, rows, max_length=SHORT_MAX_LENGTH,
                                                        num_beams=3),
                        "direct_greedy": direct_generate(model, collator, rows, max_length=SHORT_MAX_LENGTH,
                                                         num_beams=1)}
    trainer.train()
    report = {"losses": tt.values(trainer, "loss"), "grad_norms": tt.values(trainer, "grad_norm"),
              "collated_keys": sorted(first_batch), "collated_labels": first_batch["labels"].numpy().tolist(),
              "collated_decoder_input_ids": first_batch["decoder_input_ids"].numpy().tolist(),
              "untrained_short_beams": report_untrained,
              "generation_config_max_length": model.generation_config.max_length}
    report["evaluate"] = trainer.evaluate()
    report["evaluate_seen"], report["evaluate_calls"] = seen[-1], recorder.calls[-1]

    prediction = trainer.predict(eval_data)
    report["predict"] = {"predictions": prediction.predictions.tolist(), "label_ids": prediction.label_ids.tolist(),
                         "metrics": prediction.metrics, "calls": recorder.calls[-1]}
    report["direct_greedy"] = direct_generate(trainer.model, collator, rows, max_length=GEN_MAX_LENGTH, num_beams=1)
    report["decoded_predictions"] = tok.batch_decode(prediction.predictions, skip_special_tokens=True)
    report["decoded_targets"] = [tok.decode(row["labels"], skip_special_tokens=True) for row in rows]

    from_args = short.predict(eval_data)
    report["short_beams"] = {"predictions": from_args.predictions.tolist(), "calls": recorder.calls[-1],
                             "direct": direct_generate(trainer.model, collator, rows, max_length=SHORT_MAX_LENGTH,
                                                       num_beams=3)}
    keywords = trainer.predict(eval_data, max_length=SHORT_MAX_LENGTH, num_beams=3)
    report["keyword_beams"] = {"predictions": keywords.predictions.tolist(), "calls": recorder.calls[-1]}
    report["direct_beams_full"] = direct_generate(trainer.model, collator, rows, max_length=GEN_MAX_LENGTH,
                                                  num_beams=3)
    return report


SCENARIOS = {"train_and_generate": train_and_generate}

if __name__ == "__main__":
    tt.main(SCENARIOS)
