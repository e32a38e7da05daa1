"""Qwen2 under transformers' common model, config and training tests (testers: tiny_testers.py): grouped-query
attention with biased query/key/value projections."""
import unittest

from transformers import (Qwen2Config, Qwen2ForCausalLM, Qwen2ForQuestionAnswering, Qwen2ForSequenceClassification,
                          Qwen2ForTokenClassification, Qwen2Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class Qwen2ModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (Qwen2Model, Qwen2ForCausalLM, Qwen2ForSequenceClassification, Qwen2ForQuestionAnswering,
                         Qwen2ForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, Qwen2Config, Qwen2ForCausalLM, num_key_value_heads=2,
                                           intermediate_size=37, max_position_embeddings=512)
        self.config_tester = ConfigTester(self, config_class=Qwen2Config, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
