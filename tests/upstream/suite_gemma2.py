"""Gemma 2 under transformers' common model, config and training tests (testers: tiny_testers.py): soft-capped
attention scores and logits, sliding-window and global layers alternating, scaled embeddings, grouped-query
attention."""
import unittest

from transformers import (Gemma2Config, Gemma2ForCausalLM, Gemma2ForSequenceClassification,
                          Gemma2ForTokenClassification, Gemma2Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class Gemma2ModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (Gemma2Model, Gemma2ForCausalLM, Gemma2ForSequenceClassification,
                         Gemma2ForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, Gemma2Config, Gemma2ForCausalLM, num_key_value_heads=2, head_dim=8,
                                           intermediate_size=37, max_position_embeddings=512, sliding_window=4,
                                           query_pre_attn_scalar=8, attn_logit_softcapping=50.0,
                                           final_logit_softcapping=30.0)
        self.config_tester = ConfigTester(self, config_class=Gemma2Config, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
