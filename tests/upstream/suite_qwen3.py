"""Qwen3 under transformers' common model, config and training tests (testers: tiny_testers.py): grouped-query
attention with RMSNorm on each head's queries and keys."""
import unittest

from transformers import (Qwen3Config, Qwen3ForCausalLM, Qwen3ForQuestionAnswering, Qwen3ForSequenceClassification,
                          Qwen3ForTokenClassification, Qwen3Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class Qwen3ModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (Qwen3Model, Qwen3ForCausalLM, Qwen3ForSequenceClassification, Qwen3ForQuestionAnswering,
                         Qwen3ForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, Qwen3Config, Qwen3ForCausalLM, num_key_value_heads=2, head_dim=8,
                                           intermediate_size=37, max_position_embeddings=512)
        self.config_tester = ConfigTester(self, config_class=Qwen3Config, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
