"""Mixtral under transformers' common model, config and training tests (testers: tiny_testers.py): 4 experts with
top-2 routing (the experts run through torch.nn.functional.grouped_mm), grouped-query attention, and the router's
load-balancing loss. head_dim is given: MixtralConfig stores None for it, and transformers' dynamic/YaRN RoPE
initialisers multiply it (the RoPE-scaling tests raised TypeError without it, on real torch as on the shim)."""
import unittest

from transformers import (MixtralConfig, MixtralForCausalLM, MixtralForQuestionAnswering,
                          MixtralForSequenceClassification, MixtralForTokenClassification, MixtralModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class MixtralModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (MixtralModel, MixtralForCausalLM, MixtralForSequenceClassification,
                         MixtralForQuestionAnswering, MixtralForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, MixtralConfig, MixtralForCausalLM, num_key_value_heads=2,
                                           intermediate_size=37, max_position_embeddings=512, num_local_experts=4,
                                           num_experts_per_tok=2, router_aux_loss_coef=0.02, head_dim=8)
        self.config_tester = ConfigTester(self, config_class=MixtralConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
