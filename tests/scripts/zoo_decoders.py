"""Decoder-only and encoder-decoder models of the zoo, for tests/test_zoo_decoders.py (the harness: zoo_common.py).

    zoo_decoders.py --phase build|shim|verify --workdir D [--only NAME ...]

Every config is tiny (hidden 32, 2 layers, 4 heads of 8, MLP 64, vocabulary 96) with dropout 0, since the step
runs in train mode. Causal LMs train on left-padded rows (labels -100 on the padding) and generate from the same
rows, as batched generation with decoder-only models needs; encoder-decoders train on decoder labels and
generate from the encoder inputs. Generation: greedy and 3-beam search, 8 new tokens each (never fewer: a
random model may emit the end token early, and the comparison should cover all 8). OPT, Mixtral, Gemma 2 and
BART take their Trainer step with dropout on (`trainer_dropout`), the others with dropout 0.
"""
import numpy as np

from zoo_common import Family, main

VOCAB = 96
PAD, BOS, EOS = 0, 1, 2
SPECIAL = dict(pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)
DECODER = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
               max_position_embeddings=64, **SPECIAL)
SEQ2SEQ = dict(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
               decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
               dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, decoder_start_token_id=EOS, **SPECIAL)
NEW_TOKENS = dict(max_new_tokens=8, min_new_tokens=8, pad_token_id=PAD, do_sample=False)
GENERATE = {"greedy": dict(num_beams=1, **NEW_TOKENS), "beam": dict(num_beams=3, **NEW_TOKENS)}


def causal_inputs(ctx):
    """Two rows of 10 random ids, the first left-padded by 3; labels are the ids, -100 on the padding."""
    ids = ctx.rng.randint(3, VOCAB, size=(2, 10)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[0, :3] = 0
    ids[0, :3] = PAD
    return {"input_ids": ids, "attention_mask": mask, "labels": np.where(mask == 1, ids, -100)}


def seq2seq_inputs(decoder_start):
    """Encoder rows as causal_inputs but right-padded; 6 decoder labels per row (the second row's last 2 -100),
    and the decoder inputs the model would make of them (the start token, then the labels shifted right), so the
    eval-mode forward without labels sees the same decoder rows."""

    def build(ctx):
        ids = ctx.rng.randint(3, VOCAB, size=(2, 10)).astype(np.int64)
        mask = np.ones_like(ids)
        mask[1, 7:] = 0
        ids[1, 7:] = PAD
        labels = ctx.rng.randint(3, VOCAB, size=(2, 6)).astype(np.int64)
        labels[1, 4:] = -100
        decoder_ids = np.concatenate([np.full((2, 1), decoder_start), np.where(labels == -100, PAD, labels)[:, :-1]],
                                     axis=1)
        return {"input_ids": ids, "attention_mask": mask, "decoder_input_ids": decoder_ids, "labels": labels}

    return build


def decoder(name, model, config, outputs=("logits",), generate=GENERATE, trainer_dropout=None, **kwargs):
    """A causal LM family: `config` names the transformers config class, `kwargs` its arguments;
    `trainer_dropout` the config keywords that turn dropout on for the Trainer step."""
    return Family(name, model, lambda tf: getattr(tf, config)(**kwargs), causal_inputs, outputs=outputs,
                  generate=generate, generate_inputs=("input_ids", "attention_mask"),
                  trainer_dropout=trainer_dropout or {})


def seq2seq(name, model, config, generate=GENERATE, trainer_dropout=None, **kwargs):
    return Family(name, model, lambda tf: getattr(tf, config)(**kwargs),
                  seq2seq_inputs(kwargs["decoder_start_token_id"]), generate=generate,
                  generate_inputs=("input_ids", "attention_mask"), trainer_dropout=trainer_dropout or {})


# Mixtral's load-balancing loss cannot be computed inside generate (real torch raises too: the router logits
# cover the new token, the attention mask the whole sequence); it is a training loss, so generate goes without.
NO_ROUTER_LOSS = {variant: dict(kwargs, output_router_logits=False) for variant, kwargs in GENERATE.items()}
# Tiny random OPT, Falcon, BART, Marian and mT5 repeat one token for all 8 steps (measured: 1-2 distinct new
# ids per row; BART the same at init_std 0.02 to 0.3), which would leave the check little to compare;
# with repeats banned each step takes the best token not used yet, so the ranking of the logits decides.
NO_REPEATS = {variant: dict(kwargs, no_repeat_ngram_size=1) for variant, kwargs in GENERATE.items()}

FAMILIES = [
    # rotary on a quarter of each head, parallel residual, untied head
    decoder("gpt_neox", "GPTNeoXForCausalLM", "GPTNeoXConfig", rotary_pct=0.25, hidden_dropout=0.0,
            attention_dropout=0.0, **DECODER),
    # learned positions offset by 2, taken from the attention mask's cumulative sum
    decoder("opt", "OPTForCausalLM", "OPTConfig", generate=NO_REPEATS,
            trainer_dropout=dict(dropout=0.1, attention_dropout=0.1), vocab_size=VOCAB, hidden_size=32,
            ffn_dim=64, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=64,
            word_embed_proj_dim=32, dropout=0.0, attention_dropout=0.0, **SPECIAL),
    # grouped-query attention with a sliding window (4) shorter than the sequence
    decoder("mistral", "MistralForCausalLM", "MistralConfig", num_key_value_heads=2, sliding_window=4, **DECODER),
    # 4 experts, top-2 routing (grouped matrix products); the loss includes the router's load-balancing loss
    decoder("mixtral", "MixtralForCausalLM", "MixtralConfig", outputs=("logits", "aux_loss"),
            generate=NO_ROUTER_LOSS, trainer_dropout=dict(attention_dropout=0.1), num_key_value_heads=2,
            num_local_experts=4, num_experts_per_tok=2,
            output_router_logits=True, router_aux_loss_coef=0.02, **DECODER),
    decoder("qwen2", "Qwen2ForCausalLM", "Qwen2Config", num_key_value_heads=2, **DECODER),
    # RMSNorm on each head's queries and keys
    decoder("qwen3", "Qwen3ForCausalLM", "Qwen3Config", num_key_value_heads=2, head_dim=8, **DECODER),
    # soft-capped attention scores and logits, sliding and global layers alternating, scaled embeddings
    decoder("gemma2", "Gemma2ForCausalLM", "Gemma2Config", trainer_dropout=dict(attention_dropout=0.1),
            num_key_value_heads=2, head_dim=8,
            query_pre_attn_scalar=8, sliding_window=4, attn_logit_softcapping=50.0, final_logit_softcapping=30.0,
            **DECODER),
    # query/key norms, local and global RoPE bases
    decoder("gemma3", "Gemma3ForCausalLM", "Gemma3TextConfig", num_key_value_heads=2, head_dim=8,
            query_pre_attn_scalar=8, sliding_window=4, **DECODER),
    # fused qkv and gate_up projections
    decoder("phi3", "Phi3ForCausalLM", "Phi3Config", num_key_value_heads=2, original_max_position_embeddings=64,
            **DECODER),
    # multi-query attention, attention and MLP in parallel
    decoder("falcon", "FalconForCausalLM", "FalconConfig", generate=NO_REPEATS, vocab_size=VOCAB, hidden_size=32,
            num_hidden_layers=2, num_attention_heads=4, hidden_dropout=0.0, attention_dropout=0.0, **SPECIAL),
    seq2seq("bart", "BartForConditionalGeneration", "BartConfig", generate=NO_REPEATS,
            trainer_dropout=dict(dropout=0.1, attention_dropout=0.1, activation_dropout=0.1), **SEQ2SEQ),
    # sinusoidal positions, scaled embeddings, decoding starts from the pad token
    seq2seq("marian", "MarianMTModel", "MarianConfig", generate=NO_REPEATS,
            **dict(SEQ2SEQ, decoder_start_token_id=PAD)),
    # gated-GELU feed-forward, untied head, relative position buckets
    seq2seq("mt5", "MT5ForConditionalGeneration", "MT5Config", generate=NO_REPEATS, vocab_size=VOCAB, d_model=32,
            d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4, relative_attention_num_buckets=8,
            dropout_rate=0.0, decoder_start_token_id=PAD, pad_token_id=PAD, eos_token_id=EOS),
]

if __name__ == "__main__":
    main(FAMILIES)
