"""T5 under transformers' common model and config tests (tester structure as in suite_bert.py).

Encoder and decoder inputs have the same length, so `seq_length` serves both in the mixin's label and
attention-shape checks. Every input row ends in one EOS token and has no other, which
T5ForSequenceClassification requires. Like upstream's own T5 tester, this one leaves T5ForSequenceClassification
out of test_inputs_embeds and skips test_model_base_model_prefix."""
import unittest

from transformers import (T5Config, T5ForConditionalGeneration, T5ForQuestionAnswering,
                          T5ForSequenceClassification, T5Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin, ids_tensor, random_attention_mask


class T5ModelTester:
    # batch_size 7: test_eager_matches_sdpa_inference runs batches of 7 and pads smaller input batches with random
    # ids, whose rows then hold varying numbers of EOS tokens, which T5ForSequenceClassification rejects
    # (upstream's T5 tester uses 13)
    def __init__(self, parent, batch_size=7, seq_length=7, vocab_size=99, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, d_kv=8, d_ff=37, num_labels=3, is_training=True):
        self.parent = parent
        self.batch_size = batch_size
        self.seq_length = self.encoder_seq_length = self.decoder_seq_length = seq_length
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.d_kv = d_kv
        self.d_ff = d_ff
        self.num_labels = num_labels
        self.is_training = is_training
        self.eos_token_id, self.pad_token_id = 1, 0

    def get_config(self):
        return T5Config(vocab_size=self.vocab_size, d_model=self.hidden_size, d_ff=self.d_ff, d_kv=self.d_kv,
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


class T5ModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (T5Model, T5ForConditionalGeneration, T5ForSequenceClassification, T5ForQuestionAnswering)
    is_encoder_decoder = True

    def setUp(self):
        self.model_tester = T5ModelTester(self)
        self.config_tester = ConfigTester(self, config_class=T5Config, d_model=37)

    def test_config(self):
        self.config_tester.run_common_tests()

    def test_inputs_embeds(self):
        # As upstream's own T5 tester does: T5ForSequenceClassification takes no inputs_embeds (its forward
        # raises NotImplementedError for them), so the test covers the other classes.
        self.all_model_classes = tuple(c for c in type(self).all_model_classes if c is not T5ForSequenceClassification)
        super().test_inputs_embeds()

    @unittest.skip(reason="T5's head models hold encoder/decoder directly, with no separate base model under "
                          "base_model_prefix (upstream's T5 tester skips this test too)")
    def test_model_base_model_prefix(self):
        pass
