"""GPT-2 under transformers' common model, config and training tests (tester structure as in suite_bert.py).

GPT2DoubleHeadsModel is left out: it needs multiple-choice inputs (mc_token_ids) that the common mixin only
builds through an upstream per-model `_prepare_for_class` override."""
import unittest

from transformers import (GPT2Config, GPT2ForQuestionAnswering, GPT2ForSequenceClassification,
                          GPT2ForTokenClassification, GPT2LMHeadModel, GPT2Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin, ids_tensor, random_attention_mask
from hf_tests.test_training_mixin import TrainingTesterMixin


class GPT2ModelTester:
    causal_lm_class = GPT2LMHeadModel

    def __init__(self, parent, batch_size=3, seq_length=7, vocab_size=99, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, max_position_embeddings=512, num_labels=3, is_training=True):
        self.parent = parent
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.max_position_embeddings = max_position_embeddings
        self.num_labels = num_labels
        self.is_training = is_training

    def get_config(self):
        last = self.vocab_size - 1  # bos, eos and pad share the last id, as GPT-2's own config does
        return GPT2Config(vocab_size=self.vocab_size, n_embd=self.hidden_size, n_layer=self.num_hidden_layers,
                          n_head=self.num_attention_heads, n_inner=37, activation_function="gelu_new",
                          resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1, n_positions=self.max_position_embeddings,
                          initializer_range=0.02, bos_token_id=last, eos_token_id=last, pad_token_id=last)

    def prepare_config_and_inputs_for_common(self):
        input_ids = ids_tensor([self.batch_size, self.seq_length], self.vocab_size - 1)  # no pad ids inside
        attention_mask = random_attention_mask([self.batch_size, self.seq_length])
        return self.get_config(), {"input_ids": input_ids, "attention_mask": attention_mask}


class GPT2ModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (GPT2Model, GPT2LMHeadModel, GPT2ForSequenceClassification, GPT2ForTokenClassification,
                         GPT2ForQuestionAnswering)

    def setUp(self):
        self.model_tester = GPT2ModelTester(self)
        self.config_tester = ConfigTester(self, config_class=GPT2Config, n_embd=37)

    def test_config(self):
        self.config_tester.run_common_tests()
