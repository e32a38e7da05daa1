"""transformers.Trainer: a checkpoint folder is complete or absent, and resume takes the newest complete one.

Why: upstream `Trainer._save_checkpoint` writes the model weights, config, generation config, tokenizer files,
training_args.bin, optimizer.pt, scheduler.pt, scaler.pt, rng_state.pth and trainer_state.json one after the
other straight into `checkpoint-N`, and checkpoint rotation deletes old folders file by file. A process killed
in between (SIGKILL, the OOM killer, a preempted node) leaves a `checkpoint-N` that lacks files;
`get_last_checkpoint` picks it for its number, and `train(resume_from_checkpoint=True)` stops on it with an
error that does not name the folder. `torch.save` already replaces one file atomically; a folder of files is
the Trainer's own layout, out of reach of the torch API.

What this patch does, for single-process runs:
- `Trainer._save_checkpoint` writes into a hidden staging folder `.checkpoint-N.partial-<hex>/checkpoint-N`
  (during the save `Trainer._get_output_dir` answers the staging folder), then fsyncs every file and renames
  the folder to `checkpoint-N` in one step (swapping out an older folder of that name). `best_model_checkpoint`
  and a hub push are pointed at the final name; rotation runs after the rename.
- Deleting a checkpoint (rotation, and `save_total_limit=1` with the best model at the end) renames the folder
  to a hidden name before deleting it: `shutil` as transformers.trainer_utils and transformers.trainer see it.
- Leftovers of a killed save (staging and retired folders, `.<name>.<hex>.tmp` files of torch.save) are
  removed when the next save or a resume starts.
- `get_last_checkpoint` skips a folder that is incomplete anyway (written by another tool, damaged), logging
  a warning that names it and what is missing; `train(resume_from_checkpoint=<incomplete folder>)` raises a
  ValueError saying the same.
With several processes every rank writes into the same folder, so the rename would need a barrier; those runs
save as upstream does (the shim runs one process) and keep the checks at resume.

Written against transformers 5.23 (`Trainer._save_checkpoint`, `_get_output_dir`, `_push_from_checkpoint`,
`train`; `trainer_utils.get_last_checkpoint`, `rotate_checkpoints`); applied for 5.x only.
"""
import json
import os
import re
import shutil
import struct
import zipfile

import wrapt

from mindnlp_shim import _durable_files as durable

SUPPORTED_MAJOR = 5
PARTIAL_MARK = ".partial-"
_STAGING_ATTR = "_checkpoint_staging"

# file names transformers 5.23 writes into a checkpoint folder
TRAINER_STATE = "trainer_state.json"
JIT_SENTINEL = "checkpoint-is-incomplete.txt"  # trainer_jit_checkpoint: present while a SIGTERM save runs
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json", "adapter_model.safetensors", "adapter_model.bin")
OPTIMIZER, SCHEDULER = "optimizer.pt", "scheduler.pt"
_ZIP_MAGIC = b"PK\x03\x04"


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


# ---- what a complete checkpoint holds ----

def _safetensors_problem(path):
    """Why the safetensors file at `path` is cut short, or None: its header states where the data ends."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            return "is truncated (no header)"
        (header_len,) = struct.unpack("<Q", head)
        if 8 + header_len > size:
            return "is truncated (header cut short)"
        try:
            header = json.loads(f.read(header_len))
        except ValueError:
            return "has an unreadable header"
    ends = [entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"]
    if 8 + header_len + max(ends, default=0) > size:
        return "is truncated (tensor data cut short)"
    return None


def _file_problem(folder, name):
    """Why one file of a checkpoint cannot be read back, or None (checks headers and end records only)."""
    path = os.path.join(folder, name)
    if name.endswith(".safetensors"):
        return _safetensors_problem(path)
    if name.endswith(".json"):
        try:
            with open(path, encoding="utf-8") as f:
                json.load(f)
        except ValueError:
            return "is not valid JSON (truncated?)"
        return None
    if name.endswith((".pt", ".pth", ".bin")):  # torch.save's zip format: the end record comes last
        with open(path, "rb") as f:
            is_zip_format = f.read(4) == _ZIP_MAGIC
        if is_zip_format and not zipfile.is_zipfile(path):
            return "is truncated (no zip end record)"
    return None


def _has_adapter_subfolders(folder):
    return any(os.path.isfile(os.path.join(folder, sub, weights)) for sub in os.listdir(folder)
               if os.path.isdir(os.path.join(folder, sub)) for weights in WEIGHT_FILES[4:])


def checkpoint_problems(folder):
    """What keeps the Trainer checkpoint `folder` from being resumed: a list of short statements, empty when
    it is complete (trainer state, model weights with every shard, optimizer and scheduler together, files not
    cut short, no in-progress marker)."""
    names = set(os.listdir(folder))
    problems = []
    if JIT_SENTINEL in names:
        problems.append(f"{JIT_SENTINEL} marks a save that did not finish")
    if TRAINER_STATE not in names:
        problems.append(f"{TRAINER_STATE} is missing")
    if not names.intersection(WEIGHT_FILES) and not _has_adapter_subfolders(folder):
        problems.append(f"model weights are missing (none of {', '.join(WEIGHT_FILES)})")
    for index in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        if index in names and _file_problem(folder, index) is None:
            with open(os.path.join(folder, index), encoding="utf-8") as f:
                shards = sorted(set(json.load(f).get("weight_map", {}).values()))
            problems += [f"shard {shard} (listed in {index}) is missing" for shard in shards if shard not in names]
    if (OPTIMIZER in names) != (SCHEDULER in names):
        present, absent = (OPTIMIZER, SCHEDULER) if OPTIMIZER in names else (SCHEDULER, OPTIMIZER)
        problems.append(f"{absent} is missing ({present} is there)")
    for name in sorted(names):
        if os.path.isfile(os.path.join(folder, name)) and not durable.TORCH_SAVE_TEMP.match(name):
            problem = _file_problem(folder, name)
            if problem:
                problems.append(f"{name} {problem}")
    return problems


def _describe(folder, problems):
    return f"incomplete checkpoint folder {folder} ({'; '.join(problems)})"


def _checkpoint_folders(folder, pattern):
    """[(step, path)] of the `checkpoint-<step>` folders in `folder`, newest step first."""
    found = []
    for name in os.listdir(folder):
        match = pattern.search(name)
        if match is not None and os.path.isdir(os.path.join(folder, name)):
            found.append((int(match.group(1)), os.path.join(folder, name)))
    return sorted(found, reverse=True)


# ---- leftovers of a killed save ----

def _leftover_folder_pattern(prefix):
    return re.compile(rf"^\.{re.escape(prefix)}-\d+({re.escape(PARTIAL_MARK)}|{re.escape(durable.RETIRED_MARK)})"
                      r"[0-9a-f]{12}$")


def remove_leftovers(run_dir):
    """Delete staging and retired folders and torch.save temporaries an interrupted save left in `run_dir` and
    in its checkpoint folders. Only call while nothing else saves into `run_dir`."""
    import transformers.trainer_utils as tu

    if not os.path.isdir(run_dir):
        return []
    removed = durable.remove_leftovers(run_dir, _leftover_folder_pattern(tu.PREFIX_CHECKPOINT_DIR))
    for _, path in _checkpoint_folders(run_dir, tu._re_checkpoint):
        removed += [os.path.join(os.path.basename(path), name) for name in durable.remove_stale_temp_files(path)]
    if removed:
        tu.logger.info(f"Removed what an interrupted save left in {run_dir}: {', '.join(sorted(removed))}")
    return removed


# ---- trainer_utils ----

def _newest_complete_checkpoint(wrapped, instance, args, kwargs):
    import transformers.trainer_utils as tu

    folder = kwargs["folder"] if "folder" in kwargs else args[0]
    for _, path in _checkpoint_folders(folder, tu._re_checkpoint):
        problems = checkpoint_problems(path)
        if not problems:
            return path
        tu.logger.warning(f"Skipping the {_describe(path, problems)}. Taking the newest complete checkpoint instead.")
    return None


class RetiringShutil(wrapt.ObjectProxy):
    """`shutil` as transformers' checkpoint code sees it: `rmtree` of a folder renames it out of sight first, so
    a deletion cut short never leaves a half-deleted folder under a checkpoint's name."""

    def rmtree(self, path, *args, **kwargs):
        if os.path.isdir(path) and not os.path.islink(path):
            try:
                path = durable.hide_folder(path)
            except OSError:
                pass  # cannot rename (permissions, a mount point): delete in place as upstream does
        return self.__wrapped__.rmtree(path, *args, **kwargs)


def _patch_trainer_utils(tu):
    if isinstance(tu.shutil, RetiringShutil):
        return
    tu.shutil = RetiringShutil(shutil)
    wrapt.wrap_function_wrapper(tu, "get_last_checkpoint", _newest_complete_checkpoint)


# ---- Trainer ----

class _Staging:
    def __init__(self, root):
        self.root = root
        self.pushes = 0


def _staged_output_dir(wrapped, instance, args, kwargs):
    staging = instance.__dict__.get(_STAGING_ATTR)
    return staging.root if staging is not None else wrapped(*args, **kwargs)


def _push_after_publishing(wrapped, instance, args, kwargs):
    staging = instance.__dict__.get(_STAGING_ATTR)
    if staging is None:
        return wrapped(*args, **kwargs)
    staging.pushes += 1  # the push reads the folder (in the background): it must see the final name
    return None


def _point_best_checkpoint_at_final_folder(trainer, run_dir, staging_root, staged):
    """During the save `best_model_checkpoint` was decided against the staging folder; decide it against
    `run_dir` as upstream does, and rewrite the staged trainer_state.json if that changed it."""
    import transformers.trainer_utils as tu

    state = trainer.state
    written = state.best_model_checkpoint
    if written is not None and os.path.dirname(os.path.normpath(written)) == os.path.normpath(staging_root):
        state.best_model_checkpoint = os.path.join(run_dir, os.path.basename(os.path.normpath(written)))
    elif trainer.args.save_strategy in (tu.SaveStrategy.STEPS, tu.SaveStrategy.EPOCH, tu.SaveStrategy.BEST) \
            and state.best_global_step:
        best = os.path.join(run_dir, f"{tu.PREFIX_CHECKPOINT_DIR}-{state.best_global_step}")
        if os.path.exists(best):
            state.best_model_checkpoint = best
    state_file = os.path.join(staged, TRAINER_STATE)
    if state.best_model_checkpoint != written and os.path.isfile(state_file):
        state.save_to_json(state_file)


def _save_checkpoint_atomically(wrapped, instance, args, kwargs):
    import transformers.trainer as trainer_module

    if instance.args.world_size > 1 or _STAGING_ATTR in instance.__dict__:
        return wrapped(*args, **kwargs)
    trial = kwargs["trial"] if "trial" in kwargs else (args[1] if len(args) > 1 else None)
    run_dir = instance._get_output_dir(trial=trial)
    name = f"{trainer_module.PREFIX_CHECKPOINT_DIR}-{instance.state.global_step}"
    final = os.path.join(run_dir, name)
    os.makedirs(run_dir, exist_ok=True)
    remove_leftovers(run_dir)
    staging = _Staging(durable.hidden_sibling(final, PARTIAL_MARK))
    staged = os.path.join(staging.root, name)
    os.mkdir(staging.root)
    instance.__dict__[_STAGING_ATTR] = staging
    try:
        result = wrapped(*args, **kwargs)
        if os.path.isdir(staged):  # absent when a subclass's _get_output_dir bypassed the staging folder
            _point_best_checkpoint_at_final_folder(instance, run_dir, staging.root, staged)
            durable.publish_folder(staged, final)
    finally:
        del instance.__dict__[_STAGING_ATTR]
        shutil.rmtree(staging.root, ignore_errors=True)
    for _ in range(staging.pushes):
        instance._push_from_checkpoint(final)
    if instance.args.should_save:  # rotation ran inside the staging folder, where it found nothing to delete
        trainer_module.rotate_checkpoints(output_dir=run_dir, save_total_limit=instance.args.save_total_limit,
                                          best_model_checkpoint=instance.state.best_model_checkpoint,
                                          use_mtime=True)
    return result


def _resume_from_complete_checkpoint(wrapped, instance, args, kwargs):
    import transformers.trainer as trainer_module
    import transformers.trainer_utils as tu

    args, kwargs = list(args), dict(kwargs)
    in_kwargs = "resume_from_checkpoint" in kwargs
    resume = kwargs.get("resume_from_checkpoint") if in_kwargs else (args[0] if args else None)
    output_dir = instance.args.output_dir
    if resume is None or resume is False:
        return wrapped(*args, **kwargs)
    if instance.args.world_size == 1:
        remove_leftovers(output_dir)
    if resume is True and output_dir is not None and os.path.isdir(output_dir):
        latest = trainer_module.get_last_checkpoint(output_dir)
        if latest is None:
            broken = [(path, checkpoint_problems(path))
                      for _, path in _checkpoint_folders(output_dir, tu._re_checkpoint)]
            if broken:
                raise ValueError(f"No complete checkpoint found in output directory ({output_dir}): "
                                 + "; ".join(_describe(path, problems) for path, problems in broken))
        elif in_kwargs:
            kwargs["resume_from_checkpoint"] = latest
        else:
            args[0] = latest
    elif isinstance(resume, (str, os.PathLike)) and os.path.isdir(resume):
        problems = checkpoint_problems(resume)
        if problems:
            raise ValueError(f"Cannot resume from the {_describe(os.fspath(resume), problems)}. Pass a complete "
                             "checkpoint folder, or resume_from_checkpoint=True for the newest complete one.")
    return wrapped(*args, **kwargs)


def _patch_trainer(module):
    import transformers.trainer_utils as tu

    if isinstance(module.shutil, RetiringShutil):
        return
    _patch_trainer_utils(tu)
    module.shutil = RetiringShutil(shutil)
    module.get_last_checkpoint = tu.get_last_checkpoint  # the name transformers.trainer imported
    wrapt.wrap_function_wrapper(module, "Trainer._save_checkpoint", _save_checkpoint_atomically)
    wrapt.wrap_function_wrapper(module, "Trainer._get_output_dir", _staged_output_dir)
    wrapt.wrap_function_wrapper(module, "Trainer._push_from_checkpoint", _push_after_publishing)
    wrapt.wrap_function_wrapper(module, "Trainer.train", _resume_from_complete_checkpoint)


_TRAINER_METHODS = ("_save_checkpoint", "_get_output_dir", "_push_from_checkpoint", "train")
_TRAINER_UTILS_NAMES = ("get_last_checkpoint", "rotate_checkpoints", "shutil", "_re_checkpoint",
                        "PREFIX_CHECKPOINT_DIR", "SaveStrategy")


def apply(module):
    import transformers
    import transformers.trainer_utils as tu

    if _major(transformers.__version__) != SUPPORTED_MAJOR or not all(hasattr(tu, n) for n in _TRAINER_UTILS_NAMES):
        return
    if module.__name__ == "transformers.trainer_utils":
        _patch_trainer_utils(module)
    elif all(hasattr(module.Trainer, n) for n in _TRAINER_METHODS):
        _patch_trainer(module)
