"""T5 under transformers' common model and config tests (tester: tiny_testers.T5StyleTester, shared with mT5).

Encoder and decoder inputs have the same length, so `seq_length` serves both in the mixin's label and
attention-shape checks. Every input row ends in one EOS token and has no other, which
T5ForSequenceClassification requires. Like upstream's own T5 tester, this one leaves T5ForSequenceClassification
out of test_inputs_embeds and skips test_model_base_model_prefix."""
import unittest

from transformers import (T5Config, T5ForConditionalGeneration, T5ForQuestionAnswering,
                          T5ForSequenceClassification, T5Model)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import T5StyleTester


class T5ModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (T5Model, T5ForConditionalGeneration, T5ForSequenceClassification, T5ForQuestionAnswering)
    is_encoder_decoder = True

    def setUp(self):
        self.model_tester = T5StyleTester(self, T5Config)
        self.config_tester = ConfigTester(self, config_class=T5Config, d_model=37)

    def test_config(self):
        self.config_tester.run_common_tests()

    def test_inputs_embeds(self):
        # As upstream's own T5 tester does: T5ForSequenceClassification takes no inputs_embeds (its forward
        # raises NotImplementedError for them), so the test covers the other classes.
        self.all_model_classes = tuple(c for c in type(self).all_model_classes if c is not T5ForSequenceClassification)
        super().test_inputs_embeds()

    @unittest.skip(reason="T5's head models hold encoder/decoder directly, with no separate base model under "
                          "base_model_prefix (upstream's T5 tester skips this test too)")
    def test_model_base_model_prefix(self):
        pass
