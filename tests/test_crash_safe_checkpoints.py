"""Crash-safe Trainer checkpoints (patches/transformers_checkpoints.py, mindnlp_shim/_durable_files.py).

A Trainer run killed with SIGKILL at any moment, even inside a save or a rotation, leaves only complete
`checkpoint-N` folders; `resume_from_checkpoint=True` then continues from the newest one, losing no completed
save, and leftovers of the killed save are gone after the next one. Folders damaged some other way are skipped
with a warning naming what is missing, and an explicit resume from one fails saying so.

The kill runs: tests/crash_kill_harness.py (child: tests/scripts/crash_safe_train.py); the default run kills 3
times (the first inside the save of step 3), the slow one 32 times at random moments.
Damaged folders and a deletion cut short: tests/scripts/checkpoint_damage_run.py.
"""
import os
import random

import pytest

import crash_kill_harness as harness
from mindnlp_shim import _durable_files as durable
from shim_runner import run_shim_json, script

FILES = sorted(harness.COMPLETE_FILES)


def _assert_every_resume_continues_from_newest_complete_checkpoint(result, context=""):
    cycles = result["cycles"]
    for cycle in cycles:
        where = f"{context} cycle {cycle['cycle']} ({cycle['mode']})"
        assert "failed" not in cycle, f"{where}: the run died before training:\n{cycle['failed']}"
        assert cycle["incomplete_after"] == {}, f"{where}: incomplete checkpoint folders visible"
        if cycle["resumed"]:
            assert cycle["start"] == cycle["expected_start"], where  # the newest complete checkpoint
            assert cycle["start"] >= (cycle["last_saved_before"] or 0), where  # no finished save lost
        if cycle["mode"] != "final":
            assert cycle["returncode"] == -9, where  # it was killed, it did not stop by itself
    final = cycles[-1]
    assert final["returncode"] == 0 and final["done"] == [final["start"] + 2], context
    assert result["leftovers"] == [], context  # no staging folder, retired folder or temporary file remains


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory):
    return harness.run(str(tmp_path_factory.mktemp("killed_run")), kills=3, seed=7, kill_in_save_first=True)


def test_kill_inside_a_save_leaves_the_previous_checkpoint_newest(killed_run):
    first, second = killed_run["cycles"][:2]
    assert first["returncode"] == -9 and first["saved"] == [1, 2]  # killed after model+optimizer of step 3
    assert first["visible_after"] == [1, 2] and first["incomplete_after"] == {}  # no checkpoint-3 at all
    assert second["resumed"] and second["start"] == 2


def test_every_resume_after_sigkill_starts_at_the_newest_complete_checkpoint(killed_run):
    _assert_every_resume_continues_from_newest_complete_checkpoint(killed_run)
    assert sum(c["resumed"] for c in killed_run["cycles"]) >= 3


@pytest.mark.slow
def test_thirty_two_random_kills_all_resume(tmp_path):
    seed = random.randrange(2**32)
    result = harness.run(str(tmp_path), kills=32, seed=seed)
    _assert_every_resume_continues_from_newest_complete_checkpoint(result, f"seed {seed}:")
    summary = harness.summary(result)
    assert summary["kills"] == 32 and summary["resumes"] >= 25, (seed, summary)


@pytest.fixture(scope="module")
def damage(tmp_path_factory):
    output_dir = tmp_path_factory.mktemp("damage")
    report = run_shim_json([script("checkpoint_damage_run.py"), "--output-dir", str(output_dir)], timeout=900)
    for name, entry in report.items():
        if "error" in entry:
            pytest.fail(f"scenario {name} raised in the child:\n{entry['error']}", pytrace=False)
    return report


def test_get_last_checkpoint_skips_incomplete_folders_naming_what_is_missing(damage):
    run = damage["damaged"]
    assert run["after_first_run"] == ["checkpoint-3", "checkpoint-4"]  # rotation kept two, nothing hidden left
    assert run["get_last_checkpoint"] == "checkpoint-4"
    expected = {5: "trainer_state.json is missing", 6: "model.safetensors is truncated",
                7: "checkpoint-is-incomplete.txt marks a save that did not finish",
                8: "scheduler.pt is missing (optimizer.pt is there)", 9: "optimizer.pt is truncated"}
    for step, reason in expected.items():
        assert any(f"checkpoint-{step} (" in w and reason in w for w in run["warnings"]), (step, run["warnings"])
    assert not any("checkpoint-4" in w or "checkpoint-3" in w for w in run["warnings"])


def test_explicit_resume_from_an_incomplete_folder_names_it_and_what_is_missing(damage):
    error = damage["damaged"]["explicit_error"]
    assert error.startswith("ValueError: Cannot resume from the incomplete checkpoint folder ")
    assert "checkpoint-5 (trainer_state.json is missing)" in error


def test_resume_true_removes_leftovers_and_replaces_damaged_folders(damage):
    run = damage["damaged"]
    assert ".checkpoint-10.partial-0123456789ab" in run["damaged"]  # leftovers were there
    assert run["resumed_from"] == 4 and run["resumed_to"] == 10
    # steps 5..9 were saved again over the damaged folders; rotation kept the newest two; no leftovers
    assert run["after_resume"] == {"checkpoint-10": FILES, "checkpoint-9": FILES}


def test_a_deletion_cut_short_never_leaves_a_half_deleted_checkpoint_visible(damage):
    run = damage["rotation"]
    assert run["before"] == ["checkpoint-1", "checkpoint-2", "checkpoint-3"]
    visible = {n: files for n, files in run["after_cut_deletion"].items() if n.startswith("checkpoint-")}
    assert visible == {"checkpoint-2": FILES, "checkpoint-3": FILES}  # checkpoint-1 went out of sight first
    assert [n for n in run["after_cut_deletion"] if n.startswith(".checkpoint-1.retired-")]
    assert run["get_last_checkpoint"] == "checkpoint-3" and run["resumed_from"] == 3
    assert run["after_resume"] == ["checkpoint-2", "checkpoint-3", "checkpoint-4"]  # the retired one is gone


# ---- the folder primitives, in this process ----

def _folder(path, files):
    os.makedirs(path)
    for name, text in files.items():
        with open(os.path.join(path, name), "w") as f:
            f.write(text)


def _read(path):
    return {name: open(os.path.join(path, name)).read() for name in sorted(os.listdir(path))}


def test_publish_folder_makes_the_staged_content_visible_and_replaces_an_older_one(tmp_path):
    staged, final = str(tmp_path / ".stage"), str(tmp_path / "checkpoint-5")
    _folder(staged, {"a": "new", "b": "new"})
    _folder(final, {"a": "old", "c": "old"})
    durable.publish_folder(staged, final)
    assert _read(final) == {"a": "new", "b": "new"}
    assert sorted(os.listdir(tmp_path)) == ["checkpoint-5"]  # the old content is deleted, the staging name gone
    _folder(staged, {"x": "fresh"})
    durable.publish_folder(staged, str(tmp_path / "checkpoint-6"))
    assert _read(str(tmp_path / "checkpoint-6")) == {"x": "fresh"}


def test_retire_folder_renames_before_deleting(tmp_path):
    _folder(str(tmp_path / "checkpoint-1"), {"a": "1", "b": "2"})
    seen = []
    durable.retire_folder(str(tmp_path / "checkpoint-1"), rmtree=lambda path, ignore_errors: seen.append(
        (os.path.basename(path), sorted(os.listdir(tmp_path)))))
    (name, listing), = seen
    assert name.startswith(".checkpoint-1.retired-") and listing == [name]  # deleted only under the hidden name


def test_remove_stale_temp_files_takes_only_torch_save_temporaries(tmp_path):
    names = [".optimizer.pt.0123456789ab.tmp", ".x.abcdef012345.tmp", "optimizer.pt", ".optimizer.pt.tmp",
             "a.0123456789ab.tmp", ".optimizer.pt.0123456789AB.tmp"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    assert sorted(durable.remove_stale_temp_files(str(tmp_path))) == sorted(names[:2])
    assert sorted(os.listdir(tmp_path)) == sorted(names[2:])
