"""GPT-NeoX under transformers' common model, config and training tests (testers: tiny_testers.py): rotary
embeddings on part of each head, parallel residual, and fused query/key/value projections. rotary_pct is 0.5
(4 of 8 dimensions): with 0.25 the rotary part is 2 dimensions, and the dynamic-NTK RoPE initialiser divides by
dim - 2 (ZeroDivisionError in the RoPE-scaling tests, a matter of the tester's sizes, not of the backend)."""
import unittest

from transformers import (GPTNeoXConfig, GPTNeoXForCausalLM, GPTNeoXForQuestionAnswering,
                          GPTNeoXForSequenceClassification, GPTNeoXForTokenClassification, GPTNeoXModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from hf_tests.test_training_mixin import TrainingTesterMixin
from tiny_testers import CausalLMTester


class GPTNeoXModelTest(ModelTesterMixin, GenerationTesterMixin, TrainingTesterMixin, unittest.TestCase):
    all_model_classes = (GPTNeoXModel, GPTNeoXForCausalLM, GPTNeoXForSequenceClassification,
                         GPTNeoXForQuestionAnswering, GPTNeoXForTokenClassification)

    def setUp(self):
        self.model_tester = CausalLMTester(self, GPTNeoXConfig, GPTNeoXForCausalLM, intermediate_size=37,
                                           max_position_embeddings=512, rotary_pct=0.5)
        self.config_tester = ConfigTester(self, config_class=GPTNeoXConfig, hidden_size=64)

    def test_config(self):
        self.config_tester.run_common_tests()
