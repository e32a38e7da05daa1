"""Model testers shared by the decoder, encoder-decoder and encoder suites (copied beside them by package.py).

They follow the documented tester structure (as suite_llama.py and suite_t5.py spell out for one model each):
a tiny config, `prepare_config_and_inputs_for_common()` returning (config, inputs), and the sizes the mixins
read. A suite names its config class and the config's own keywords; the sizes are common to all."""
import torch

from hf_tests.test_modeling_common import ids_tensor, random_attention_mask

SIZES = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4)


class CausalLMTester:
    """A decoder-only model: pad 0, bos 1, eos 2; input ids from 1 up (no padding id inside a row)."""

    def __init__(self, parent, config_class, causal_lm_class, batch_size=3, seq_length=7, num_labels=3,
                 **config_kwargs):
        self.parent = parent
        self.config_class = config_class
        self.causal_lm_class = causal_lm_class
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.num_labels = num_labels
        self.is_training = True
        self.config_kwargs = dict(SIZES, pad_token_id=0, bos_token_id=1, eos_token_id=2, **config_kwargs)
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads"):
            setattr(self, name, self.config_kwargs[name])

    def get_config(self):
        return self.config_class(**self.config_kwargs)

    def prepare_config_and_inputs_for_common(self):
        input_ids = ids_tensor([self.batch_size, self.seq_length], self.vocab_size - 1) + 1
        attention_mask = random_attention_mask([self.batch_size, self.seq_length])
        return self.get_config(), {"input_ids": input_ids, "attention_mask": attention_mask}


class Seq2SeqTester:
    """An encoder-decoder whose sequence-classification head pools at the end token: every encoder row ends in
    one EOS token and holds no other (ids from 3 up). Encoder and decoder inputs have the same length, so
    `seq_length` serves both in the mixin's label and attention-shape checks. batch_size 7, because
    test_eager_matches_sdpa_inference pads smaller batches to 7 rows of random ids, whose varying numbers of EOS
    tokens the classification head rejects."""

    def __init__(self, parent, config_class, batch_size=7, seq_length=7, num_labels=3, **config_kwargs):
        self.parent = parent
        self.config_class = config_class
        self.batch_size = batch_size
        self.seq_length = self.encoder_seq_length = self.decoder_seq_length = seq_length
        self.num_labels = num_labels
        self.is_training = True
        self.pad_token_id, self.bos_token_id, self.eos_token_id = 1, 0, 2
        # the config takes its own names for the sizes (d_model, encoder_layers ...): only the vocabulary is shared
        self.config_kwargs = dict(vocab_size=SIZES["vocab_size"], pad_token_id=1, bos_token_id=0, eos_token_id=2,
                                  decoder_start_token_id=2, **config_kwargs)
        for name, value in SIZES.items():
            setattr(self, name, value)

    def get_config(self):
        return self.config_class(**self.config_kwargs)

    def prepare_config_and_inputs_for_common(self):
        shape = [self.batch_size, self.seq_length]
        input_ids = ids_tensor(shape, self.vocab_size - 3) + 3
        input_ids[:, -1] = self.eos_token_id
        decoder_input_ids = ids_tensor(shape, self.vocab_size - 3) + 3
        inputs = {"input_ids": input_ids, "attention_mask": random_attention_mask(shape),
                  "decoder_input_ids": decoder_input_ids, "decoder_attention_mask": random_attention_mask(shape)}
        return self.get_config(), inputs


class T5StyleTester:
    """A T5-layout encoder-decoder (T5, mT5): pad 0 (also the decoder start), EOS 1; every encoder row ends in its
    one EOS token, as the sequence-classification head requires. batch_size 7 for the same reason as
    Seq2SeqTester (upstream's T5 tester uses 13)."""

    def __init__(self, parent, config_class, batch_size=7, seq_length=7, d_kv=8, d_ff=37, num_labels=3):
        self.parent = parent
        self.config_class = config_class
        self.batch_size = batch_size
        self.seq_length = self.encoder_seq_length = self.decoder_seq_length = seq_length
        for name, value in SIZES.items():
            setattr(self, name, value)
        self.d_kv = d_kv
        self.d_ff = d_ff
        self.num_labels = num_labels
        self.is_training = True
        self.eos_token_id, self.pad_token_id = 1, 0

    def get_config(self):
        return self.config_class(
            vocab_size=self.vocab_size, d_model=self.hidden_size, d_ff=self.d_ff, d_kv=self.d_kv,
            num_layers=self.num_hidden_layers, num_decoder_layers=self.num_hidden_layers,
            num_heads=self.num_attention_heads, relative_attention_num_buckets=8, dropout_rate=0.1,
            initializer_factor=0.002, eos_token_id=self.eos_token_id, pad_token_id=self.pad_token_id,
            bos_token_id=self.pad_token_id, decoder_start_token_id=self.pad_token_id)

    def prepare_config_and_inputs_for_common(self):
        shape = [self.batch_size, self.seq_length]
        input_ids = ids_tensor(shape, self.vocab_size - 2) + 2  # ids >= 2: no pad, no EOS
        input_ids[:, -1] = self.eos_token_id
        decoder_input_ids = ids_tensor(shape, self.vocab_size - 2) + 2
        inputs = {"input_ids": input_ids, "attention_mask": random_attention_mask(shape),
                  "decoder_input_ids": decoder_input_ids, "decoder_attention_mask": random_attention_mask(shape)}
        return self.get_config(), inputs


class EncoderTester:
    """A bidirectional encoder with BERT's heads (masked LM, sequence/token classification, question answering,
    multiple choice): ids from 4 up, so no row holds the pad, bos, eos, cls or sep id of any of these families
    (RoBERTa derives positions from the padding id), a random attention mask, and token type ids for models
    that take them. A suite passes the config's own keywords; the sizes the mixin reads are SIZES."""

    def __init__(self, parent, config_class, batch_size=3, seq_length=7, num_labels=3, num_choices=4,
                 token_types=True, **config_kwargs):
        self.parent = parent
        self.config_class = config_class
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.num_labels = num_labels
        self.num_choices = num_choices
        self.token_types = token_types
        self.is_training = True
        self.config_kwargs = config_kwargs
        for name, value in SIZES.items():
            setattr(self, name, value)

    def get_config(self):
        return self.config_class(**self.config_kwargs)

    def prepare_config_and_inputs_for_common(self):
        shape = [self.batch_size, self.seq_length]
        inputs = {"input_ids": ids_tensor(shape, self.vocab_size - 4) + 4,
                  "attention_mask": random_attention_mask(shape)}
        if self.token_types:
            inputs["token_type_ids"] = ids_tensor(shape, 2)
        return self.get_config(), inputs


def add_pretraining_labels(tester, inputs_dict, row_label=None):
    """The labels of a pre-training head, which the mixin's `_prepare_for_class` does not build: zeros per token
    under "labels" and, when `row_label` names one (BERT's next sentence, ALBERT's sentence order), per row."""
    shape = (tester.batch_size, tester.seq_length)
    inputs_dict["labels"] = torch.zeros(shape, dtype=torch.long)
    if row_label is not None:
        inputs_dict[row_label] = torch.zeros(shape[0], dtype=torch.long)
    return inputs_dict


def bert_like(**extra):
    """The config keywords of a BERT-layout encoder at SIZES (dropout left at the configs' defaults)."""
    return dict(SIZES, intermediate_size=37, max_position_embeddings=64, **extra)
