"""ALBERT under transformers' common model and config tests (tester: tiny_testers.EncoderTester): factorised
embeddings (16) below the hidden size, layers sharing one group's weights; AlbertForPreTraining gets both of its
heads' labels (masked tokens and sentence order), which the common helper does not build."""
import unittest

from transformers import (AlbertConfig, AlbertModel, AlbertForPreTraining, AlbertForMaskedLM, AlbertForMultipleChoice,
                          AlbertForQuestionAnswering, AlbertForSequenceClassification, AlbertForTokenClassification)

from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester, add_pretraining_labels, bert_like


class AlbertModelTest(ModelTesterMixin, unittest.TestCase):
    all_model_classes = (AlbertModel, AlbertForPreTraining, AlbertForMaskedLM, AlbertForMultipleChoice,
                         AlbertForQuestionAnswering, AlbertForSequenceClassification, AlbertForTokenClassification)

    def setUp(self):
        self.model_tester = EncoderTester(self, AlbertConfig, **bert_like(embedding_size=16, pad_token_id=0))
        self.config_tester = ConfigTester(self, config_class=AlbertConfig, hidden_size=37)

    def _prepare_for_class(self, inputs_dict, model_class, return_labels=False):
        inputs_dict = super()._prepare_for_class(inputs_dict, model_class, return_labels=return_labels)
        if return_labels and model_class is AlbertForPreTraining:
            add_pretraining_labels(self.model_tester, inputs_dict, "sentence_order_label")
        return inputs_dict

    def test_config(self):
        self.config_tester.run_common_tests()
