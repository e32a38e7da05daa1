"""The Trainer's data side on the shim: transformers' collators (padding, masked and causal LM, seq2seq, default),
column removal and label_names, drop_last, worker processes, group_by_length, iterable datasets with max_steps,
and seeds. Scenarios: tests/scripts/trainer_data_run.py, all in one child process (the pytest process may hold
real torch)."""
import os

import numpy as np
import pytest

from trainer_scenarios import result, run_scenarios

SCENARIOS = ["collator_with_padding", "masked_lm", "causal_lm", "seq2seq", "columns", "dataloader_options",
             "worker_processes", "group_by_length", "iterable_datasets", "seeds"]
PAD, MASK = 0, 4


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return run_scenarios("trainer_data_run.py", SCENARIOS, tmp_path_factory.mktemp("trainer_data"))


def test_data_collator_with_padding_pads_each_batch_to_its_longest(runs):
    run = result(runs, "collator_with_padding")
    assert len(run["seen"]) == 4 and len(run["losses"]) == 4  # 32 examples, batches of 8, one epoch
    widths = set()
    for batch in run["seen"]:
        ids, mask = np.array(batch["input_ids"]), np.array(batch["attention_mask"])
        assert batch["keys"] == ["attention_mask", "input_ids", "labels", "token_type_ids"]
        assert mask.sum(axis=1).max() == ids.shape[1]  # padded to the batch's longest row, not to a fixed size
        assert (ids[mask == 0] == PAD).all() and (ids[mask == 1] != PAD).all()
        widths.add(ids.shape[1])
    assert len(widths) > 1
    assert all(0 < loss < 2 for loss in run["losses"])


def test_data_collator_for_masked_lm(runs):
    run = result(runs, "masked_lm")
    assert run["seeded_collations_equal"]  # the masking draws from torch's seeded RNG
    originals = {tuple(row) for row in run["originals"]}
    masked = selected = total = 0
    for batch in run["seen"]:
        ids, labels, mask = (np.array(batch[k]) for k in ("input_ids", "labels", "attention_mask"))
        chosen = labels != -100
        restored = np.where(chosen, labels, ids)  # the labels hold the original tokens of the selected places
        assert all(tuple(row[m == 1]) in originals for row, m in zip(restored, mask))
        assert not chosen[mask == 0].any()  # padding is never a prediction target
        selected += chosen.sum()
        total += mask.sum() - 2 * len(ids)  # [CLS]/[SEP] are special tokens, never selected
        masked += (ids[chosen] == MASK).sum()
        assert (ids[~chosen] != MASK).all()
    assert 0.15 < selected / total < 0.45  # mlm_probability=0.3
    assert 0.6 < masked / selected < 0.95  # 80% of the selected tokens become [MASK]
    assert len(run["losses"]) == 4 and all(3.5 < loss < 5.5 for loss in run["losses"])  # ~ln(100) at the start


def test_data_collator_for_causal_lm_and_gradient_accumulation(runs):
    run = result(runs, "causal_lm")
    batch = run["16x1"]["seen"][0]
    ids, labels, mask = (np.array(batch[k]) for k in ("input_ids", "labels", "attention_mask"))
    assert (labels[mask == 1] == ids[mask == 1]).all() and (labels[mask == 0] == -100).all()
    # the causal LM loss is normalised by the step's token count (num_items_in_batch), so four micro-batches
    # of 4 give the parameters of one batch of 16
    assert run["update_size"] > 1e-2
    assert run["max_param_diff"] < 1e-6 * 1e2
    np.testing.assert_allclose(run["4x4"]["losses"], run["16x1"]["losses"], rtol=1e-5)


def test_data_collator_for_seq2seq(runs):
    run = result(runs, "seq2seq")
    assert len(run["losses"]) == 3 and all(np.isfinite(run["losses"]))
    for batch in run["seen"]:
        labels, decoder = np.array(batch["labels"]), np.array(batch["decoder_input_ids"])
        assert batch["keys"] == ["attention_mask", "decoder_input_ids", "input_ids", "labels"]
        # decoder inputs are the labels shifted right behind the start token (pad id 0), -100 read as pad
        assert (decoder[:, 0] == PAD).all()
        assert (decoder[:, 1:] == np.where(labels[:, :-1] == -100, PAD, labels[:, :-1])).all()


def test_remove_unused_columns_default_collator_and_label_names(runs):
    run = result(runs, "columns")
    assert run["removed_keys"] == ["attention_mask", "input_ids", "labels"]  # "idx" and "note" were dropped
    assert run["kept_collator"][0]["keys"] == ["attention_mask", "idx", "input_ids", "labels", "note"]
    assert [c["idx"] for c in run["kept_collator"]] == [list(range(8)), list(range(8, 16))]
    assert len(run["kept_losses"]) == 2 and len(run["label_names_losses"]) == 2
    # label_names=["target"]: predict() returns the "target" column as label_ids and computes the loss
    assert run["predicted_label_ids"] == run["targets"]
    assert 0.3 < run["predict_metrics"]["test_loss"] < 1.5


def test_dataloader_drop_last(runs):
    run = result(runs, "dataloader_options")  # 44 examples, batches of 8
    assert run["drop_last_False"] == {"global_step": 6, "batch_sizes": [8, 8, 8, 8, 8, 4]}
    assert run["drop_last_True"] == {"global_step": 5, "batch_sizes": [8] * 5}


def test_dataloader_num_workers_gives_the_same_run(runs):
    run = result(runs, "worker_processes")
    assert len(run["workers_2"]["batches"]) == 3
    assert run["workers_2"]["batches"] == run["workers_0"]["batches"]
    # dropout on: the same losses mean the workers consumed the main process's RNG as loading in-process does
    assert run["workers_2"]["losses"] == run["workers_0"]["losses"]


def test_group_by_length_batches_similar_lengths(runs):
    run = result(runs, "group_by_length")
    grouped, shuffled = run["group_by_length"], run["random"]
    assert grouped["sampler"] == "transformers.trainer_pt_utils.LengthGroupedSampler"
    assert sorted(sum(grouped["real_lengths"], [])) == sorted(run["lengths"])  # every example once
    assert grouped["padded_lengths"][0] == max(run["lengths"])  # the longest example comes first
    for lengths in grouped["real_lengths"]:
        assert lengths == sorted(lengths, reverse=True)
    padding = lambda r: sum(p * len(l) - sum(l) for p, l in zip(r["padded_lengths"], r["real_lengths"]))  # noqa: E731
    assert padding(grouped) < 0.5 * padding(shuffled)
    assert len(grouped["losses"]) == 2 and grouped["trained_shapes"][0][1] == max(run["lengths"])


def test_iterable_datasets_train_for_max_steps(runs):
    run = result(runs, "iterable_datasets")
    assert run["torch_iterable"]["global_step"] == 5 and len(run["torch_iterable"]["losses"]) == 5
    assert run["datasets_iterable"]["global_step"] == 4 and len(run["datasets_iterable"]["losses"]) == 4
    assert all(np.isfinite(run["torch_iterable"]["losses"] + run["datasets_iterable"]["losses"]))


def test_same_seed_same_run_other_seed_other_run(runs):
    run = result(runs, "seeds")
    assert run["seed7"] == run["seed7_again"]  # dropout on, shuffled: everything repeats exactly
    assert run["seed8"]["batches"] != run["seed7"]["batches"]
    assert run["seed8"]["init_checksum"] != run["seed7"]["init_checksum"]  # model_init runs under the seed
    assert not np.allclose(run["seed8"]["losses"], run["seed7"]["losses"])
    # data_seed changes the sample order only: same initial model, other batches
    assert run["seed7_data3"]["init_checksum"] == run["seed7"]["init_checksum"]
    assert run["seed7_data3"]["batches"] != run["seed7"]["batches"]


def test_randint_takes_torchs_high_size_overload():
    # DataCollatorForLanguageModeling calls torch.randint(len(tokenizer), labels.shape, ...)
    os.environ.setdefault("GLOG_v", "3")
    import mindnlp_shim.torch as torch

    torch.manual_seed(0)
    drawn = torch.randint(10, (3, 4), dtype=torch.long)
    assert tuple(drawn.shape) == (3, 4) and drawn.dtype == torch.int64
    assert 0 <= int(drawn.min()) and int(drawn.max()) < 10
    torch.manual_seed(0)
    assert np.array_equal(torch.randint(0, 10, (3, 4)).numpy(), drawn.numpy())
    assert tuple(torch.randint(3, 5, [2]).shape) == (2,)
