"""OPT under transformers' common model, config and training tests (testers: tiny_testers.py): learned positions
offset by 2 and taken from the attention mask's cumulative sum."""
import unittest

from transformers import (OPTConfig, OPTForCausalLM, OPTForQuestionAnswering, OPTForSequenceClassification,
                          OPTModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class OPTModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (OPTModel, OPTForCausalLM, OPTForSequenceClassification, OPTForQuestionAnswering)

    def setUp(self):
        self.model_tester = CausalLMTester(self, OPTConfig, OPTForCausalLM, ffn_dim=37, word_embed_proj_dim=32,
                                           max_position_embeddings=512)
        self.config_tester = ConfigTester(self, config_class=OPTConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
