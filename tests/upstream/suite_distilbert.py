"""DistilBERT under transformers' common model and config tests (tester: tiny_testers.EncoderTester): its config's
own names for the sizes, no token types."""
import unittest

from transformers import (DistilBertConfig, DistilBertModel, DistilBertForMaskedLM, DistilBertForMultipleChoice,
                          DistilBertForQuestionAnswering, DistilBertForSequenceClassification,
                          DistilBertForTokenClassification)

from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester


class DistilBertModelTest(ModelTesterMixin, unittest.TestCase):
    all_model_classes = (DistilBertModel, DistilBertForMaskedLM, DistilBertForMultipleChoice,
                         DistilBertForQuestionAnswering, DistilBertForSequenceClassification,
                         DistilBertForTokenClassification)

    def setUp(self):
        self.model_tester = EncoderTester(self, DistilBertConfig, token_types=False, vocab_size=99, dim=32,
                                          n_layers=2, n_heads=4, hidden_dim=37, max_position_embeddings=64,
                                          pad_token_id=0)
        self.config_tester = ConfigTester(self, config_class=DistilBertConfig, dim=37)

    def test_config(self):
        self.config_tester.run_common_tests()
