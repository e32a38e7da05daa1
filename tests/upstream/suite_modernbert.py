"""ModernBERT under transformers' common model and config tests (tester: tiny_testers.EncoderTester): rotary
positions, a global layer and a sliding-window (4) layer, no token types."""
import unittest

from transformers import (ModernBertConfig, ModernBertModel, ModernBertForMaskedLM, ModernBertForMultipleChoice,
                          ModernBertForQuestionAnswering, ModernBertForSequenceClassification,
                          ModernBertForTokenClassification)

from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester, bert_like


class ModernBertModelTest(ModelTesterMixin, unittest.TestCase):
    all_model_classes = (ModernBertModel, ModernBertForMaskedLM, ModernBertForMultipleChoice,
                         ModernBertForQuestionAnswering, ModernBertForSequenceClassification,
                         ModernBertForTokenClassification)

    def setUp(self):
        config = bert_like(global_attn_every_n_layers=2, local_attention=4, pad_token_id=0, bos_token_id=2,
                           eos_token_id=3, cls_token_id=2, sep_token_id=3)
        self.model_tester = EncoderTester(self, ModernBertConfig, token_types=False, **config)
        self.config_tester = ConfigTester(self, config_class=ModernBertConfig, hidden_size=37)

    def test_config(self):
        self.config_tester.run_common_tests()
