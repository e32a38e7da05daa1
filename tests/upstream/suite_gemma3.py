"""Gemma 3 (text only: Gemma3TextConfig) under transformers' common model, config and training tests (testers:
tiny_testers.py): query/key RMSNorm, sliding-window and global layers with their own RoPE bases."""
import unittest

from transformers import Gemma3ForCausalLM, Gemma3TextConfig, Gemma3TextForSequenceClassification, Gemma3TextModel

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class Gemma3TextModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (Gemma3TextModel, Gemma3ForCausalLM, Gemma3TextForSequenceClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, Gemma3TextConfig, Gemma3ForCausalLM, num_key_value_heads=2,
                                           head_dim=8, intermediate_size=37, max_position_embeddings=512,
                                           sliding_window=4, query_pre_attn_scalar=8)
        self.config_tester = ConfigTester(self, config_class=Gemma3TextConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
