"""RoBERTa under transformers' common model and config tests (tester: tiny_testers.EncoderTester): positions
counted from after the padding id, one token type."""
import unittest

from transformers import (RobertaConfig, RobertaModel, RobertaForCausalLM, RobertaForMaskedLM,
                          RobertaForMultipleChoice, RobertaForQuestionAnswering, RobertaForSequenceClassification,
                          RobertaForTokenClassification)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester, bert_like


class RobertaModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (RobertaModel, RobertaForCausalLM, RobertaForMaskedLM, RobertaForMultipleChoice,
                         RobertaForQuestionAnswering, RobertaForSequenceClassification, RobertaForTokenClassification)

    def setUp(self):
        config = bert_like(pad_token_id=1, type_vocab_size=1)
        self.model_tester = EncoderTester(self, RobertaConfig, token_types=False, **config)
        self.config_tester = ConfigTester(self, config_class=RobertaConfig, hidden_size=37)

    def test_config(self):
        self.config_tester.run_common_tests()
