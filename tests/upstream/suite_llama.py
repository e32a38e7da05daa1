"""Llama under transformers' common model, config and training tests (tester structure as in suite_bert.py):
grouped-query attention (4 query heads, 2 key/value heads), RoPE, RMSNorm, SiLU."""
import unittest

from transformers import (LlamaConfig, LlamaForCausalLM, LlamaForQuestionAnswering,
                          LlamaForSequenceClassification, LlamaForTokenClassification, LlamaModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin, ids_tensor, random_attention_mask
from hf_tests.test_training_mixin import TrainingTesterMixin


class LlamaModelTester:
    causal_lm_class = LlamaForCausalLM

    def __init__(self, parent, batch_size=3, seq_length=7, vocab_size=99, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, intermediate_size=37, max_position_embeddings=512,
                 num_labels=3, is_training=True):
        self.parent = parent
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.intermediate_size = intermediate_size
        self.max_position_embeddings = max_position_embeddings
        self.num_labels = num_labels
        self.is_training = is_training

    def get_config(self):
        return LlamaConfig(vocab_size=self.vocab_size, hidden_size=self.hidden_size,
                           num_hidden_layers=self.num_hidden_layers, num_attention_heads=self.num_attention_heads,
                           num_key_value_heads=self.num_key_value_heads, intermediate_size=self.intermediate_size,
                           hidden_act="silu", max_position_embeddings=self.max_position_embeddings,
                           initializer_range=0.02, pad_token_id=0, bos_token_id=1, eos_token_id=2)

    def prepare_config_and_inputs_for_common(self):
        input_ids = ids_tensor([self.batch_size, self.seq_length], self.vocab_size - 1) + 1  # no pad ids inside
        attention_mask = random_attention_mask([self.batch_size, self.seq_length])
        return self.get_config(), {"input_ids": input_ids, "attention_mask": attention_mask}


class LlamaModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (LlamaModel, LlamaForCausalLM, LlamaForSequenceClassification, LlamaForQuestionAnswering,
                         LlamaForTokenClassification)

    def setUp(self):
        self.model_tester = LlamaModelTester(self)
        self.config_tester = ConfigTester(self, config_class=LlamaConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
