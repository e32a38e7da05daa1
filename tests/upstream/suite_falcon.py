"""Falcon under transformers' common model, config and training tests (testers: tiny_testers.py): multi-query
attention (one key/value head) with attention and MLP in parallel."""
import unittest

from transformers import (FalconConfig, FalconForCausalLM, FalconForQuestionAnswering,
                          FalconForSequenceClassification, FalconForTokenClassification, FalconModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class FalconModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (FalconModel, FalconForCausalLM, FalconForSequenceClassification,
                         FalconForQuestionAnswering, FalconForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, FalconConfig, FalconForCausalLM, max_position_embeddings=512)
        self.config_tester = ConfigTester(self, config_class=FalconConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
