"""Phi-3 under transformers' common model, config and training tests (testers: tiny_testers.py): fused
query/key/value and gate/up projections, grouped-query attention."""
import unittest

from transformers import (Phi3Config, Phi3ForCausalLM, Phi3ForSequenceClassification, Phi3ForTokenClassification,
                          Phi3Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class Phi3ModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (Phi3Model, Phi3ForCausalLM, Phi3ForSequenceClassification, Phi3ForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, Phi3Config, Phi3ForCausalLM, num_key_value_heads=2,
                                           intermediate_size=37, max_position_embeddings=512,
                                           original_max_position_embeddings=512)
        self.config_tester = ConfigTester(self, config_class=Phi3Config, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
