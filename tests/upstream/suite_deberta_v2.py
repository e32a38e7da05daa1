"""DeBERTa-v2 under transformers' common model and config tests (tester: tiny_testers.EncoderTester):
disentangled attention with log-bucketed relative positions (content->position and position->content), no
absolute position embeddings."""
import unittest

from transformers import (DebertaV2Config, DebertaV2Model, DebertaV2ForMaskedLM, DebertaV2ForMultipleChoice,
                          DebertaV2ForQuestionAnswering, DebertaV2ForSequenceClassification,
                          DebertaV2ForTokenClassification)

from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import EncoderTester, bert_like


class DebertaV2ModelTest(ModelTesterMixin, unittest.TestCase):
    all_model_classes = (DebertaV2Model, DebertaV2ForMaskedLM, DebertaV2ForMultipleChoice,
                         DebertaV2ForQuestionAnswering, DebertaV2ForSequenceClassification,
                         DebertaV2ForTokenClassification)

    def setUp(self):
        config = bert_like(relative_attention=True, position_buckets=8, max_relative_positions=16,
                           pos_att_type=["p2c", "c2p"], position_biased_input=False, pad_token_id=0)
        self.model_tester = EncoderTester(self, DebertaV2Config, **config)
        self.config_tester = ConfigTester(self, config_class=DebertaV2Config, hidden_size=37)

    def test_config(self):
        self.config_tester.run_common_tests()
