"""Mistral under transformers' common model, config and training tests (testers: tiny_testers.py): grouped-query
attention (4 query heads, 2 key/value heads) with a sliding window shorter than the sequence."""
import unittest

from transformers import (MistralConfig, MistralForCausalLM, MistralForQuestionAnswering,
                          MistralForSequenceClassification, MistralForTokenClassification, MistralModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class MistralModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (MistralModel, MistralForCausalLM, MistralForSequenceClassification,
                         MistralForQuestionAnswering, MistralForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, MistralConfig, MistralForCausalLM, num_key_value_heads=2,
                                           intermediate_size=37, max_position_embeddings=512, sliding_window=4)
        self.config_tester = ConfigTester(self, config_class=MistralConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
