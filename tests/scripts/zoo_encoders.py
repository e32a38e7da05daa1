"""Encoders, vision and audio models of the zoo, for tests/test_zoo_encoders.py (the harness: zoo_common.py).

    zoo_encoders.py --phase build|shim|verify --workdir D [--only NAME ...]
"""
import numpy as np

from zoo_common import Family, image_inputs, main, token_inputs

VOCAB = 99
TEXT = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def roberta_like(tf, cls, **extra):
    # RoBERTa positions start after the padding index (pad_token_id=1)
    return getattr(tf, cls)(**TEXT, pad_token_id=1, type_vocab_size=1, **extra)


FAMILIES = [
    Family("roberta", "RobertaForMaskedLM", lambda tf: roberta_like(tf, "RobertaConfig"), token_inputs(VOCAB)),
    Family("roberta_cls", "RobertaForSequenceClassification",
           lambda tf: roberta_like(tf, "RobertaConfig", num_labels=3), token_inputs(VOCAB, labels="class")),
]

if __name__ == "__main__":
    main(FAMILIES)
