"""GenerationTesterMixin for the upstream runner's model suites, written for this project from `generate`'s documented
behaviour (the transformers sdist does not ship tests/generation). package.py installs it as
hf_tests/generation/test_utils.py, so every suite whose test class inherits the mixin runs it for each model class
that can generate, under whichever torch the runner's side installs (the shim or real torch).

Each test checks `generate` against something computed another way, not against stored numbers:
- greedy search against a step-by-step argmax over full forward passes, and with the KV cache on and off;
- beam search's sequence scores against the log-probabilities a forward pass gives the returned sequences;
- sampling: reproducible under a seed, top_k=1 is greedy, beam sampling reproducible;
- assisted decoding (an assistant model, prompt lookup) gives greedy's tokens;
- caches: continuing from returned past_key_values, the static cache, the cache's layout;
- inputs_embeds in place of input_ids, a left-padded prompt, reused encoder outputs;
- EOS stopping and padding, no_repeat_ngram_size and bad_words_ids, dict outputs' shapes, no prompt at all.

Every test's name starts with test_generation_ (run.py -k test_generation selects them). Models are built in float32 with eager attention (which returns attention weights), in eval mode, under no_grad."""
import copy
import inspect

import torch
from transformers import GenerationConfig
from transformers.cache_utils import Cache

MAX_NEW = 4
BATCH = 2


def _close(test, ours, reference, atol=1e-4, rtol=1e-4, msg=None):
    test.assertEqual(tuple(ours.shape), tuple(reference.shape), msg)
    test.assertTrue(torch.allclose(ours.float(), reference.float(), atol=atol, rtol=rtol),
                    f"{msg or ''}: max difference {(ours.float() - reference.float()).abs().max().item()}")


class GenerationTesterMixin:
    max_new_tokens = MAX_NEW

    # ---- set-up -------------------------------------------------------------------------------------------------

    def _generation_config_and_inputs(self, batch_size=BATCH):
        """The model tester's config (eager attention, as a decoder where the architecture is also an encoder)
        and a prompt of `batch_size` rows with no pad, EOS or BOS ids inside and an all-ones attention mask."""
        config, inputs = self.model_tester.prepare_config_and_inputs_for_common()
        config = copy.deepcopy(config)
        config._attn_implementation = "eager"
        # the experts' plain loop: torch's grouped_mm kernel on the CPU refuses the testers' tiny sizes
        config._experts_implementation = "eager"
        if not config.is_encoder_decoder:
            config.is_decoder = True  # BERT-style LM heads generate only as decoders
        input_ids = inputs["input_ids"][:batch_size]
        special = {getattr(config, name, None) for name in ("pad_token_id", "eos_token_id", "bos_token_id",
                                                             "decoder_start_token_id")}
        special = {t for t in special if isinstance(t, int)}
        replacement = next(t for t in range(3, config.vocab_size) if t not in special)
        for token in special:
            input_ids = input_ids.masked_fill(input_ids == token, replacement)
        return config, {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}

    def _model(self, model_class, config):
        torch.manual_seed(0)
        model = model_class(config).eval()
        # generate() fills unset settings from the model's generation config: keep only the start tokens, so no
        # EOS and no logits processor (Marian's bad_words_ids, BART's forced EOS) acts unless a test asks for it
        defaults = model.generation_config
        model.generation_config = GenerationConfig(bos_token_id=defaults.bos_token_id,
                                                   decoder_start_token_id=defaults.decoder_start_token_id,
                                                   pad_token_id=self._pad_id(config))
        return model

    def _generate(self, model, inputs, **kwargs):
        """generate() with exactly max_new_tokens new tokens unless EOS is asked for, and no default processors."""
        settings = dict(max_new_tokens=self.max_new_tokens, do_sample=False, num_beams=1, eos_token_id=None,
                        top_k=None, top_p=None, temperature=None, pad_token_id=self._pad_id(model.config),
                        decoder_start_token_id=model.generation_config.decoder_start_token_id,
                        bos_token_id=model.generation_config.bos_token_id)
        settings.update(kwargs)
        generation_config = GenerationConfig(**{k: v for k, v in settings.items() if _is_config_field(k)})
        extra = {k: v for k, v in settings.items() if not _is_config_field(k)}
        with torch.no_grad():
            return model.generate(**inputs, generation_config=generation_config, **extra)

    def _seeded_twice(self, seed, model, inputs, **kwargs):
        """Two generate() runs, each after manual_seed(seed)."""
        runs = []
        for _ in range(2):
            torch.manual_seed(seed)
            runs.append(self._generate(model, inputs, **kwargs))
        return runs

    @staticmethod
    def _pad_id(config):
        pad = config.pad_token_id
        return pad if isinstance(pad, int) else 0

    def _new_tokens(self, model, inputs, sequences):
        """The generated tokens: after the prompt, or after the decoder's start token."""
        start = 1 if model.config.is_encoder_decoder else inputs["input_ids"].shape[1]
        return sequences[:, start:]

    def _models(self):
        classes = self.all_generative_model_classes
        if not classes:
            self.skipTest("no model class of this suite can generate")
        for model_class in classes:
            config, inputs = self._generation_config_and_inputs()
            yield model_class, self._model(model_class, config), inputs

    def _forward_logits(self, model, inputs, sequences):
        """Next-token logits at every position of `sequences` from one forward pass without a cache. Positions are
        given as generate() gives them, counted from 0 (RoBERTa counts from its padding id when given none)."""
        with torch.no_grad():
            if model.config.is_encoder_decoder:
                return model(**inputs, decoder_input_ids=sequences, use_cache=False).logits
            extra = {}
            if "position_ids" in inspect.signature(model.forward).parameters:
                extra["position_ids"] = torch.arange(sequences.shape[1]).expand_as(sequences)
            return model(input_ids=sequences, attention_mask=torch.ones_like(sequences), use_cache=False,
                         **extra).logits

    # ---- greedy -------------------------------------------------------------------------------------------------

    def test_generation_greedy_generate_is_stepwise_argmax(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                sequences = self._generate(model, inputs, use_cache=False)
                if model.config.is_encoder_decoder:
                    start = model.generation_config.decoder_start_token_id
                    expected = torch.full((BATCH, 1), start, dtype=torch.long)
                else:
                    expected = inputs["input_ids"]
                for _ in range(self.max_new_tokens):
                    logits = self._forward_logits(model, inputs, expected)
                    expected = torch.cat([expected, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
                self.assertEqual(sequences.tolist(), expected.tolist())

    def test_generation_greedy_generate_same_with_and_without_cache(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                cached = self._generate(model, inputs, use_cache=True, return_dict_in_generate=True,
                                        output_logits=True)
                uncached = self._generate(model, inputs, use_cache=False, return_dict_in_generate=True,
                                          output_logits=True)
                self.assertEqual(cached.sequences.tolist(), uncached.sequences.tolist())
                for step, (a, b) in enumerate(zip(cached.logits, uncached.logits)):
                    _close(self, a, b, msg=f"logits of step {step}")

    def test_generation_greedy_generate_dict_outputs(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                out = self._generate(model, inputs, use_cache=True, return_dict_in_generate=True,
                                     output_scores=True, output_logits=True, output_attentions=True,
                                     output_hidden_states=True)
                config = model.config
                self.assertEqual(len(out.scores), self.max_new_tokens)
                self.assertEqual(len(out.logits), self.max_new_tokens)
                new = self._new_tokens(model, inputs, out.sequences)
                for step in range(self.max_new_tokens):
                    self.assertEqual(tuple(out.logits[step].shape), (BATCH, config.get_text_config().vocab_size))
                    # no logits processor is active: the scores are the logits, and greedy picks their argmax
                    _close(self, out.scores[step], out.logits[step], atol=0, rtol=0)
                    self.assertEqual(out.logits[step].argmax(-1).tolist(), new[:, step].tolist())
                prompt = 1 if config.is_encoder_decoder else inputs["input_ids"].shape[1]
                if config.is_encoder_decoder:
                    attentions, hidden_states = out.decoder_attentions, out.decoder_hidden_states
                    self.assertEqual(tuple(out.encoder_hidden_states[-1].shape[:2]), tuple(inputs["input_ids"].shape))
                else:
                    attentions, hidden_states = out.attentions, out.hidden_states
                self.assertEqual(len(hidden_states), self.max_new_tokens)
                layers = len(hidden_states[0]) - 1  # the embeddings' output, then one per decoder layer
                self.assertGreater(layers, 0)
                for step in range(self.max_new_tokens):
                    queries = prompt if step == 0 else 1  # the cache feeds one new token after the prompt
                    self.assertEqual(len(hidden_states[step]), layers + 1)
                    self.assertEqual(tuple(hidden_states[step][-1].shape[:2]), (BATCH, queries))
                    if self.has_attentions:
                        self.assertEqual(len(attentions[step]), layers)
                        weights = attentions[step][0]
                        self.assertEqual(weights.shape[0], BATCH)
                        self.assertEqual(weights.shape[-2], queries)
                        if getattr(config.get_text_config(), "sliding_window", None) is None:
                            self.assertEqual(weights.shape[-1], prompt + step)
                        else:  # a sliding-window layer keeps at most the window's keys
                            self.assertLessEqual(weights.shape[-1], prompt + step)
                        _close(self, weights.sum(-1), torch.ones_like(weights.sum(-1)), atol=1e-4,
                               msg="attention rows sum to 1")

    # ---- sampling -----------------------------------------------------------------------------------------------

    def test_generation_sample_generate_reproducible_with_seed(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                runs = self._seeded_twice(7, model, inputs, do_sample=True, top_k=0, num_return_sequences=3)
                self.assertEqual(runs[0].tolist(), runs[1].tolist())
                width = 1 if model.config.is_encoder_decoder else inputs["input_ids"].shape[1]
                self.assertEqual(tuple(runs[0].shape), (BATCH * 3, width + self.max_new_tokens))
                vocab = model.config.get_text_config().vocab_size
                self.assertTrue(bool(((runs[0] >= 0) & (runs[0] < vocab)).all()))

    def test_generation_sample_generate_top_k_1_is_greedy(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                greedy = self._generate(model, inputs)
                torch.manual_seed(3)
                sampled = self._generate(model, inputs, do_sample=True, top_k=1)
                self.assertEqual(sampled.tolist(), greedy.tolist())

    def test_generation_beam_sample_generate_reproducible_with_seed(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                runs = self._seeded_twice(11, model, inputs, do_sample=True, num_beams=2, top_k=0,
                                          return_dict_in_generate=True, output_scores=True)
                self.assertEqual(runs[0].sequences.tolist(), runs[1].sequences.tolist())
                _close(self, runs[0].sequences_scores, runs[1].sequences_scores, atol=0, rtol=0)

    # ---- beam search --------------------------------------------------------------------------------------------

    def test_generation_beam_search_scores_are_sequence_log_probs(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                out = self._generate(model, inputs, num_beams=3, num_return_sequences=2, length_penalty=0.0,
                                     return_dict_in_generate=True, output_scores=True)
                self.assertEqual(out.sequences.shape[0], BATCH * 2)
                scores = out.sequences_scores.view(BATCH, 2)
                self.assertTrue(bool((scores[:, 0] >= scores[:, 1]).all()), "best sequence first")
                # with length_penalty 0 a finished beam's score is the sum of its tokens' log-probabilities
                repeated = {k: v.repeat_interleave(2, dim=0) for k, v in inputs.items()}
                logits = self._forward_logits(model, repeated, out.sequences)
                new = self._new_tokens(model, inputs, out.sequences)
                if model.config.is_encoder_decoder:
                    logits = logits[:, :-1]
                else:
                    logits = logits[:, inputs["input_ids"].shape[1] - 1:-1]
                log_probs = torch.log_softmax(logits.float(), dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
                _close(self, out.sequences_scores, log_probs.sum(-1), atol=1e-3, msg="sequence scores")

    def test_generation_beam_search_with_one_beam_is_greedy(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                greedy = self._generate(model, inputs)
                beam = self._generate(model, inputs, num_beams=1, length_penalty=0.0)
                self.assertEqual(beam.tolist(), greedy.tolist())

    # ---- assisted decoding --------------------------------------------------------------------------------------

    def test_generation_assisted_decoding_matches_greedy(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                one = {k: v[:1] for k, v in inputs.items()}  # assisted generation takes one row
                greedy = self._generate(model, one)
                assistant = self._model(model_class, copy.deepcopy(model.config))  # same seed: same weights
                assisted = self._generate(model, one, assistant_model=assistant)
                self.assertEqual(assisted.tolist(), greedy.tolist())

    def test_generation_prompt_lookup_decoding_matches_greedy(self):
        for model_class, model, inputs in self._models():
            if model.config.is_encoder_decoder:
                continue  # prompt lookup draws candidates from the decoder's own prompt
            with self.subTest(model_class.__name__):
                one = {k: v[:1] for k, v in inputs.items()}
                greedy = self._generate(model, one)
                looked_up = self._generate(model, one, prompt_lookup_num_tokens=2)
                self.assertEqual(looked_up.tolist(), greedy.tolist())

    # ---- caches -------------------------------------------------------------------------------------------------

    def test_generation_continue_from_past_key_values(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                whole = self._generate(model, inputs, max_new_tokens=2 * self.max_new_tokens)
                first = self._generate(model, inputs, return_dict_in_generate=True)
                self.assertIsInstance(first.past_key_values, Cache)
                if model.config.is_encoder_decoder:
                    resumed = self._generate(model, {**inputs, "decoder_input_ids": first.sequences},
                                             past_key_values=first.past_key_values)
                else:
                    sequences = first.sequences
                    resumed = self._generate(model, {"input_ids": sequences,
                                                     "attention_mask": torch.ones_like(sequences)},
                                             past_key_values=first.past_key_values)
                self.assertEqual(resumed.tolist(), whole.tolist())

    def test_generation_with_static_cache_matches_dynamic(self):
        for model_class, model, inputs in self._models():
            if not getattr(model_class, "_can_compile_fullgraph", False):
                continue  # the class declares no static-cache support
            with self.subTest(model_class.__name__):
                dynamic = self._generate(model, inputs)
                static = self._generate(model, inputs, cache_implementation="static")
                self.assertEqual(static.tolist(), dynamic.tolist())

    def test_generation_past_key_values_layout(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                out = self._generate(model, inputs, return_dict_in_generate=True)
                cache = out.past_key_values
                self.assertIsInstance(cache, Cache)
                decoder_length = out.sequences.shape[1] - 1  # the last token is never fed back
                self.assertEqual(cache.get_seq_length(), decoder_length)
                self_attention = getattr(cache, "self_attention_cache", cache)
                for layer in self_attention.layers:
                    if layer.keys is None or layer.keys.numel() == 0:
                        continue  # a layer kind without keys (e.g. linear attention)
                    self.assertEqual(layer.keys.shape[0], BATCH)
                    self.assertEqual(tuple(layer.keys.shape), tuple(layer.values.shape[:-1]) +
                                     (layer.keys.shape[-1],))

    # ---- inputs -------------------------------------------------------------------------------------------------

    def test_generation_from_inputs_embeds_matches_input_ids(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                by_ids = self._generate(model, inputs)
                embeds = model.get_input_embeddings()(inputs["input_ids"])
                by_embeds = self._generate(model, {"inputs_embeds": embeds,
                                                   "attention_mask": inputs["attention_mask"]})
                # decoder-only models return only the new tokens for an embeddings prompt
                expected = by_ids if model.config.is_encoder_decoder else self._new_tokens(model, inputs, by_ids)
                self.assertEqual(by_embeds.tolist(), expected.tolist())

    def test_generation_left_padded_prompt_generates_as_if_alone(self):
        for model_class, model, inputs in self._models():
            if model.config.is_encoder_decoder:
                continue
            with self.subTest(model_class.__name__):
                ids = inputs["input_ids"]
                pad = self._pad_id(model.config)
                short = ids[:1, 3:]
                alone = self._generate(model, {"input_ids": short, "attention_mask": torch.ones_like(short)},
                                       return_dict_in_generate=True, output_logits=True)
                padded = torch.cat([torch.full((1, 3), pad, dtype=ids.dtype), short], dim=1)
                batch = {"input_ids": torch.cat([padded, ids[1:]]),
                         "attention_mask": torch.cat([torch.cat([torch.zeros(1, 3, dtype=ids.dtype),
                                                                 torch.ones_like(short)], dim=1),
                                                      torch.ones_like(ids[1:])])}
                together = self._generate(model, batch, return_dict_in_generate=True, output_logits=True)
                self.assertEqual(together.sequences[0, ids.shape[1]:].tolist(),
                                 alone.sequences[0, short.shape[1]:].tolist())
                _close(self, together.logits[0][:1], alone.logits[0], atol=1e-4, msg="first step logits")

    def test_generation_from_encoder_outputs(self):
        for model_class, model, inputs in self._models():
            if not model.config.is_encoder_decoder:
                continue
            with self.subTest(model_class.__name__):
                expected = self._generate(model, inputs)
                with torch.no_grad():
                    encoder_outputs = model.get_encoder()(**inputs)
                reused = self._generate(model, {"attention_mask": inputs["attention_mask"]},
                                        encoder_outputs=encoder_outputs)
                self.assertEqual(reused.tolist(), expected.tolist())

    def test_generation_without_prompt(self):
        for model_class, model, inputs in self._models():
            if model.config.is_encoder_decoder or not isinstance(model.generation_config.bos_token_id, int):
                continue  # a decoder-only model starts from its BOS token
            with self.subTest(model_class.__name__):
                out = self._generate(model, {})
                self.assertEqual(tuple(out.shape), (1, 1 + self.max_new_tokens))
                self.assertEqual(out[0, 0].item(), model.generation_config.bos_token_id)

    # ---- stopping and logits processors -------------------------------------------------------------------------

    def test_generation_eos_token_stops_rows_and_pads_them(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                free = self._new_tokens(model, inputs, self._generate(model, inputs))
                eos = free[0, 1].item()  # row 0 ends at its second new token at the latest
                taken = set(free.flatten().tolist()) | set(inputs["input_ids"].flatten().tolist())
                pad = next(t for t in range(3, model.config.get_text_config().vocab_size) if t not in taken)
                stopped = self._generate(model, inputs, eos_token_id=eos, pad_token_id=pad)
                new = self._new_tokens(model, inputs, stopped)
                expected = []
                for row in free.tolist():
                    end = row.index(eos) + 1 if eos in row else len(row)
                    expected.append(row[:end] + [pad] * (len(row) - end))
                length = max(len(row) - row.count(pad) for row in expected)  # generation ends with the last row
                self.assertEqual(new.tolist(), [row[:length] for row in expected])

    def test_generation_no_repeat_ngram_size_one_repeats_no_token(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                out = self._generate(model, inputs, no_repeat_ngram_size=1)
                start = out.shape[1] - self.max_new_tokens
                for row in out.tolist():  # a new token is none of the tokens before it (the prompt's may repeat)
                    for position in range(start, len(row)):
                        self.assertNotIn(row[position], row[:position], f"token {position} of {row} repeats")

    def test_generation_bad_words_are_never_generated(self):
        for model_class, model, inputs in self._models():
            with self.subTest(model_class.__name__):
                free = self._new_tokens(model, inputs, self._generate(model, inputs))
                banned = sorted(set(free.flatten().tolist()))
                out = self._new_tokens(model, inputs, self._generate(model, inputs,
                                                                     bad_words_ids=[[t] for t in banned]))
                self.assertFalse(set(out.flatten().tolist()) & set(banned))


_CONFIG_FIELDS = set(GenerationConfig().to_dict()) | {"eos_token_id", "pad_token_id", "bos_token_id",
                                                     "decoder_start_token_id", "cache_implementation",
                                                     "prompt_lookup_num_tokens", "bad_words_ids",
                                                     "no_repeat_ngram_size", "length_penalty"}


def _is_config_field(name):
    return name in _CONFIG_FIELDS

