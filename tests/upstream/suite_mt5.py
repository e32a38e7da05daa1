"""mT5 under transformers' common model and config tests (tester: tiny_testers.T5StyleTester, T5's shapes):
gated-GELU feed-forward, untied head, relative position buckets. As in the T5 suite, test_inputs_embeds leaves
out MT5ForSequenceClassification (it takes no inputs_embeds) and test_model_base_model_prefix is skipped."""
import unittest

from transformers import (MT5Config, MT5ForConditionalGeneration, MT5ForQuestionAnswering,
                          MT5ForSequenceClassification, MT5Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import T5StyleTester


class MT5ModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (MT5Model, MT5ForConditionalGeneration, MT5ForSequenceClassification,
                         MT5ForQuestionAnswering)
    is_encoder_decoder = True

    def setUp(self):
        self.model_tester = T5StyleTester(self, MT5Config)
        self.config_tester = ConfigTester(self, config_class=MT5Config, d_model=37)

    def test_config(self):
        self.config_tester.run_common_tests()

    def test_inputs_embeds(self):
        self.all_model_classes = tuple(c for c in type(self).all_model_classes
                                       if c is not MT5ForSequenceClassification)
        super().test_inputs_embeds()

    @unittest.skip(reason="mT5's head models hold encoder/decoder directly, with no separate base model under "
                          "base_model_prefix (upstream's T5 tester skips this test too)")
    def test_model_base_model_prefix(self):
        pass
