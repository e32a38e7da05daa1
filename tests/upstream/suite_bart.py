"""BART under transformers' common model and config tests (testers: tiny_testers.py). BartForCausalLM (the
decoder alone) is left out: it takes decoder-only inputs that an encoder-decoder tester does not build. Like the
T5 suite, test_inputs_embeds leaves out BartForSequenceClassification, whose forward raises NotImplementedError
for inputs_embeds (it pools at the EOS positions of input_ids)."""
import unittest

from transformers import (BartConfig, BartForConditionalGeneration, BartForQuestionAnswering,
                          BartForSequenceClassification, BartModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import Seq2SeqTester


class BartModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (BartModel, BartForConditionalGeneration, BartForSequenceClassification,
                         BartForQuestionAnswering)
    is_encoder_decoder = True

    def setUp(self):
        self.model_tester = Seq2SeqTester(self, BartConfig, d_model=32, encoder_layers=2, decoder_layers=2,
                                          encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=37,
                                          decoder_ffn_dim=37, max_position_embeddings=64)
        self.config_tester = ConfigTester(self, config_class=BartConfig, d_model=37)

    def test_config(self):
        self.config_tester.run_common_tests()

    def test_inputs_embeds(self):
        self.all_model_classes = tuple(c for c in type(self).all_model_classes
                                       if c is not BartForSequenceClassification)
        super().test_inputs_embeds()
