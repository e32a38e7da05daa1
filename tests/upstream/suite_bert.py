"""BERT under transformers' common model and config tests.

The tester follows the structure transformers documents for model testers (tests/models/*/test_modeling_*.py
are not in the sdist): a tiny config, `prepare_config_and_inputs_for_common()` returning (config, inputs),
and the sizes the mixin reads (batch_size, seq_length, num_hidden_layers, ...)."""
import unittest

from transformers import (BertConfig, BertForMaskedLM, BertForMultipleChoice, BertForNextSentencePrediction,
                          BertForPreTraining, BertForQuestionAnswering, BertForSequenceClassification,
                          BertForTokenClassification, BertLMHeadModel, BertModel)

from hf_tests.generation.test_utils import GenerationTesterMixin
from hf_tests.test_configuration_common import ConfigTester
from hf_tests.test_modeling_common import ModelTesterMixin, ids_tensor, random_attention_mask
from tiny_testers import add_pretraining_labels


class BertModelTester:
    def __init__(self, parent, batch_size=3, seq_length=7, vocab_size=99, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=37, max_position_embeddings=64, type_vocab_size=2,
                 num_labels=3, num_choices=4, is_training=True):
        self.parent = parent
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.max_position_embeddings = max_position_embeddings
        self.type_vocab_size = type_vocab_size
        self.num_labels = num_labels
        self.num_choices = num_choices
        self.is_training = is_training

    def get_config(self):
        return BertConfig(vocab_size=self.vocab_size, hidden_size=self.hidden_size,
                          num_hidden_layers=self.num_hidden_layers, num_attention_heads=self.num_attention_heads,
                          intermediate_size=self.intermediate_size, hidden_act="gelu", hidden_dropout_prob=0.1,
                          attention_probs_dropout_prob=0.1, max_position_embeddings=self.max_position_embeddings,
                          type_vocab_size=self.type_vocab_size, initializer_range=0.02, is_decoder=False)

    def prepare_config_and_inputs_for_common(self):
        input_ids = ids_tensor([self.batch_size, self.seq_length], self.vocab_size)
        token_type_ids = ids_tensor([self.batch_size, self.seq_length], self.type_vocab_size)
        attention_mask = random_attention_mask([self.batch_size, self.seq_length])
        inputs = {"input_ids": input_ids, "token_type_ids": token_type_ids, "attention_mask": attention_mask}
        return self.get_config(), inputs


class BertModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    all_model_classes = (BertModel, BertLMHeadModel, BertForMaskedLM, BertForMultipleChoice,
                         BertForNextSentencePrediction, BertForPreTraining, BertForQuestionAnswering,
                         BertForSequenceClassification, BertForTokenClassification)

    def setUp(self):
        self.model_tester = BertModelTester(self)
        self.config_tester = ConfigTester(self, config_class=BertConfig, hidden_size=37)

    def _prepare_for_class(self, inputs_dict, model_class, return_labels=False):
        # BertForPreTraining's loss needs both of its heads' labels, which the common helper does not build.
        inputs_dict = super()._prepare_for_class(inputs_dict, model_class, return_labels=return_labels)
        if return_labels and model_class is BertForPreTraining:
            add_pretraining_labels(self.model_tester, inputs_dict, "next_sentence_label")
        return inputs_dict

    def test_config(self):
        self.config_tester.run_common_tests()
