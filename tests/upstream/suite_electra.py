"""ELECTRA under transformers' common model and config tests (tester: tiny_testers.EncoderTester): embeddings (16)
projected to the hidden size; ElectraForPreTraining (the discriminator) gets its per-token labels, which the common
helper does not build."""
import unittest

from transformers import (ElectraConfig, ElectraModel, ElectraForCausalLM, ElectraForMaskedLM, ElectraForPreTraining,
                          ElectraForMultipleChoice, ElectraForQuestionAnswering, ElectraForSequenceClassification,
                          ElectraForTokenClassification)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester, add_pretraining_labels, bert_like


class ElectraModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (ElectraModel, ElectraForCausalLM, ElectraForMaskedLM, ElectraForPreTraining,
                         ElectraForMultipleChoice, ElectraForQuestionAnswering, ElectraForSequenceClassification,
                         ElectraForTokenClassification)

    def setUp(self):
        self.model_tester = EncoderTester(self, ElectraConfig, **bert_like(embedding_size=16, pad_token_id=0))
        self.config_tester = ConfigTester(self, config_class=ElectraConfig, hidden_size=37)

    def _prepare_for_class(self, inputs_dict, model_class, return_labels=False):
        inputs_dict = super()._prepare_for_class(inputs_dict, model_class, return_labels=return_labels)
        if return_labels and model_class is ElectraForPreTraining:
            add_pretraining_labels(self.model_tester, inputs_dict)
        return inputs_dict

    def test_config(self):
        self.config_tester.run_common_tests()
