"""Encoders, vision and audio models of the zoo, for tests/test_zoo_encoders.py (the harness: zoo_common.py).

    zoo_encoders.py --phase build|shim|verify --workdir D [--only NAME ...]

Every config is tiny (hidden 16-32, 1-2 layers) with dropout 0, since the step runs in train mode.
"""
import numpy as np

from zoo_common import Family, image_inputs, main, token_inputs

VOCAB = 99
NUM_LABELS = 3
BERT_LIKE = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
# dropout on for the Trainer step of RoBERTa (classifier) and ViT: train-mode steps under seeded masks
BERT_DROPOUT = dict(hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)


def roberta_config(tf, name, **extra):
    # RoBERTa positions start after the padding index (pad_token_id=1)
    return getattr(tf, name)(**BERT_LIKE, pad_token_id=1, type_vocab_size=1, **extra)


def distilbert_config(tf):
    return tf.DistilBertConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                               max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                               seq_classif_dropout=0.0, num_labels=NUM_LABELS, pad_token_id=0)


def albert_config(tf):
    # embeddings (16) smaller than the hidden size (32): the factorised projection; layers share weights
    return tf.AlbertConfig(**BERT_LIKE, embedding_size=16, classifier_dropout_prob=0.0, pad_token_id=0)


def electra_config(tf):
    return tf.ElectraConfig(**BERT_LIKE, embedding_size=16, num_labels=NUM_LABELS, pad_token_id=0)


def deberta_v2_config(tf):
    # disentangled attention with log-bucketed relative positions, content->position and position->content
    return tf.DebertaV2Config(**BERT_LIKE, relative_attention=True, position_buckets=8, max_relative_positions=16,
                              pos_att_type=["p2c", "c2p"], position_biased_input=False, pooler_dropout=0.0,
                              pooler_hidden_size=32, num_labels=NUM_LABELS, pad_token_id=0)


def modernbert_config(tf, **extra):
    # rotary positions, alternating global and sliding-window (local_attention=4) layers
    return tf.ModernBertConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                               num_attention_heads=4, max_position_embeddings=64, global_attn_every_n_layers=2,
                               local_attention=4, pad_token_id=0, bos_token_id=2, eos_token_id=3, cls_token_id=2,
                               sep_token_id=3, **extra)


def electra_discriminator_inputs(ctx):
    """ELECTRA's pre-training head: per token, was it replaced (1) or original (0)."""
    inputs = token_inputs(VOCAB, labels=None, pad_id=0)(ctx)
    inputs["labels"] = ctx.rng.randint(0, 2, size=inputs["input_ids"].shape).astype(np.int64)
    return inputs


def vit_config(tf):
    return tf.ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=64, num_labels=NUM_LABELS, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)


def swin_config(tf):
    # 8x8 patches in 4x4 windows: the second block of stage one shifts its windows (roll + attention mask)
    return tf.SwinConfig(image_size=32, patch_size=4, num_channels=3, embed_dim=16, depths=[2, 1], num_heads=[2, 4],
                         window_size=4, mlp_ratio=2.0, drop_path_rate=0.0, hidden_dropout_prob=0.0,
                         attention_probs_dropout_prob=0.0, num_labels=NUM_LABELS)


def convnext_config(tf):
    return tf.ConvNextConfig(num_channels=3, patch_size=4, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1],
                             drop_path_rate=0.0, layer_scale_init_value=0.5, num_labels=NUM_LABELS, image_size=32)


CLIP_EOS = 3


def clip_config(tf):
    text = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                max_position_embeddings=16, pad_token_id=1, bos_token_id=0, eos_token_id=CLIP_EOS)
    vision = dict(image_size=16, patch_size=4, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4)
    return tf.CLIPConfig(text_config=text, vision_config=vision, projection_dim=16)


def clip_inputs(ctx):
    """Two captions (each ends in the end token CLIP pools at) and two PIL images of other sizes, resized,
    cropped and normalised by CLIPImageProcessor(return_tensors="pt"); the contrastive loss."""
    from PIL import Image

    text = token_inputs(VOCAB, length=8, labels=None, pad_from=6, pad_id=1)(ctx)
    text["input_ids"][0, -1] = CLIP_EOS
    text["input_ids"][1, 5] = CLIP_EOS
    images = [Image.fromarray(ctx.rng.randint(0, 256, (h, w, 3), dtype=np.uint8)) for h, w in ((20, 28), (31, 17))]
    processor = ctx.transformers.CLIPImageProcessor(size={"shortest_edge": 16}, crop_size={"height": 16,
                                                                                           "width": 16})
    pixels = processor(images=images, return_tensors="pt")["pixel_values"]
    return {**text, "pixel_values": pixels, "return_loss": True}


WHISPER_CHUNK_SECONDS = 1  # 100 feature frames: the encoder's 50 positions
MEL_BINS = 80


def whisper_config(tf):
    return tf.WhisperConfig(vocab_size=VOCAB, num_mel_bins=MEL_BINS, d_model=32, encoder_layers=2, decoder_layers=2,
                            encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                            decoder_ffn_dim=64, max_source_positions=50, max_target_positions=32, pad_token_id=0,
                            bos_token_id=1, eos_token_id=2, decoder_start_token_id=1, dropout=0.0,
                            attention_dropout=0.0, activation_dropout=0.0, suppress_tokens=None,
                            begin_suppress_tokens=None, init_std=0.3)  # (0.02: every step picks one token)


def audio_clips(ctx, lengths):
    """A chirp plus noise per clip, in [-1, 1], of the given numbers of samples at 16 kHz."""
    clips = []
    for n in lengths:
        t = np.arange(n) / 16000.0
        wave = 0.5 * np.sin(2 * np.pi * (220 + 400 * t) * t) + 0.05 * ctx.rng.standard_normal(n)
        clips.append(wave.astype(np.float32))
    return clips


def whisper_inputs(ctx):
    """Log-mel features computed by WhisperFeatureExtractor with return_tensors="pt", and decoder labels."""
    extractor = ctx.transformers.WhisperFeatureExtractor(feature_size=MEL_BINS, chunk_length=WHISPER_CHUNK_SECONDS)
    features = extractor(audio_clips(ctx, (12000, 7000)), sampling_rate=16000, return_tensors="pt")
    labels = ctx.rng.randint(3, VOCAB, size=(2, 6)).astype(np.int64)
    labels[1, 4:] = -100
    # explicit decoder inputs (the start token, then the labels shifted right): the eval pass has no labels
    decoder_ids = np.concatenate([np.ones((2, 1), np.int64), np.where(labels[:, :-1] < 0, 0, labels[:, :-1])], 1)
    return {"input_features": features["input_features"], "decoder_input_ids": decoder_ids, "labels": labels}


def wav2vec2_config(tf, **extra):
    return tf.Wav2Vec2Config(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                             intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                             num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, mask_time_prob=0.0,
                             hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                             feat_proj_dropout=0.0, final_dropout=0.0, layerdrop=0.0, ctc_loss_reduction="mean",
                             pad_token_id=0, **extra)


def wav2vec2_inputs(with_mask):
    """Raw audio normalised and padded by Wav2Vec2FeatureExtractor (return_tensors="pt"), CTC labels. Group-norm
    models (wav2vec2-base) take no attention mask; layer-norm ones (wav2vec2-large-lv60) do."""

    def build(ctx):
        extractor = ctx.transformers.Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000,
                                                              padding_value=0.0, do_normalize=True,
                                                              return_attention_mask=with_mask)
        features = extractor(audio_clips(ctx, (1600, 1200)), sampling_rate=16000, padding=True,
                             return_tensors="pt")
        labels = ctx.rng.randint(1, 32, size=(2, 12)).astype(np.int64)
        labels[1, 8:] = -100
        return {**features, "labels": labels}

    return build


FAMILIES = [
    Family("roberta", "RobertaForMaskedLM", lambda tf: roberta_config(tf, "RobertaConfig"), token_inputs(VOCAB)),
    Family("roberta_cls", "RobertaForSequenceClassification",
           lambda tf: roberta_config(tf, "RobertaConfig", num_labels=NUM_LABELS),
           token_inputs(VOCAB, labels="class"), trainer_dropout=BERT_DROPOUT),
    Family("xlm_roberta", "XLMRobertaForMaskedLM", lambda tf: roberta_config(tf, "XLMRobertaConfig"),
           token_inputs(VOCAB)),
    Family("distilbert", "DistilBertForSequenceClassification", distilbert_config,
           token_inputs(VOCAB, labels="class", pad_id=0)),
    Family("albert", "AlbertForMaskedLM", albert_config, token_inputs(VOCAB, pad_id=0)),
    Family("electra", "ElectraForSequenceClassification", electra_config,
           token_inputs(VOCAB, labels="class", pad_id=0)),
    Family("electra_discriminator", "ElectraForPreTraining", electra_config, electra_discriminator_inputs),
    Family("deberta_v2", "DebertaV2ForSequenceClassification", deberta_v2_config,
           token_inputs(VOCAB, labels="class", pad_id=0)),
    Family("deberta_v2_mlm", "DebertaV2ForMaskedLM", deberta_v2_config, token_inputs(VOCAB, pad_id=0)),
    Family("modernbert", "ModernBertForMaskedLM", modernbert_config, token_inputs(VOCAB, pad_id=0)),
    Family("modernbert_cls", "ModernBertForSequenceClassification",
           lambda tf: modernbert_config(tf, num_labels=NUM_LABELS, classifier_pooling="mean"),
           token_inputs(VOCAB, labels="class", pad_id=0)),
    Family("vit", "ViTForImageClassification", vit_config, image_inputs(16), trainer_dropout=BERT_DROPOUT),
    Family("swin", "SwinForImageClassification", swin_config, image_inputs(32)),
    Family("convnext", "ConvNextForImageClassification", convnext_config, image_inputs(32)),
    Family("clip", "CLIPModel", clip_config, clip_inputs,
           outputs=("logits_per_image", "logits_per_text", "text_embeds", "image_embeds")),
    Family("whisper", "WhisperForConditionalGeneration", whisper_config, whisper_inputs,
           generate={"greedy": dict(do_sample=False, max_new_tokens=6),
                     "beam": dict(do_sample=False, num_beams=3, max_new_tokens=6)},
           generate_inputs=("input_features",),
           # log-mel features (magnitude ~1.5): torch's and ours differ by up to 2e-6, and each differs from the
           # extractor's float64 NumPy path by ~6e-6 (measured), float32 rounding of the spectrum on both sides
           tolerances={"inputs": dict(atol=1e-5)}),
    Family("wav2vec2", "Wav2Vec2ForCTC", wav2vec2_config, wav2vec2_inputs(with_mask=False)),
    Family("wav2vec2_masked", "Wav2Vec2ForCTC",
           lambda tf: wav2vec2_config(tf, feat_extract_norm="layer", do_stable_layer_norm=True),
           wav2vec2_inputs(with_mask=True)),
]

if __name__ == "__main__":
    main(FAMILIES)
