"""Marian under transformers' common model and config tests (testers: tiny_testers.py): BART's layout with
sinusoidal positions and scaled embeddings. MarianForCausalLM (the decoder alone) is left out, as for BART: it
takes decoder-only inputs that an encoder-decoder tester does not build."""
import unittest

from transformers import MarianConfig, MarianModel, MarianMTModel

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin
from tiny_testers import Seq2SeqTester


class MarianModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (MarianModel, MarianMTModel)
    is_encoder_decoder = True

    def setUp(self):
        self.model_tester = Seq2SeqTester(self, MarianConfig, d_model=32, encoder_layers=2, decoder_layers=2,
                                          encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=37,
                                          decoder_ffn_dim=37, max_position_embeddings=64)
        self.config_tester = ConfigTester(self, config_class=MarianConfig, d_model=37)

    def test_config(self):
        self.config_tester.run_common_tests()
