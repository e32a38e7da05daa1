"""XLM-RoBERTa under transformers' common model and config tests (tester: tiny_testers.EncoderTester): RoBERTa's
layout under its own classes and config."""
import unittest

from transformers import (XLMRobertaConfig, XLMRobertaModel, XLMRobertaForCausalLM, XLMRobertaForMaskedLM,
                          XLMRobertaForMultipleChoice, XLMRobertaForQuestionAnswering,
                          XLMRobertaForSequenceClassification, XLMRobertaForTokenClassification)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester, bert_like


class XLMRobertaModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (XLMRobertaModel, XLMRobertaForCausalLM, XLMRobertaForMaskedLM, XLMRobertaForMultipleChoice,
                         XLMRobertaForQuestionAnswering, XLMRobertaForSequenceClassification,
                         XLMRobertaForTokenClassification)

    def setUp(self):
        config = bert_like(pad_token_id=1, type_vocab_size=1)
        self.model_tester = EncoderTester(self, XLMRobertaConfig, token_types=False, **config)
        self.config_tester = ConfigTester(self, config_class=XLMRobertaConfig, hidden_size=37)

    def test_config(self):
        self.config_tester.run_common_tests()
