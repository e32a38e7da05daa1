"""Kill a Trainer run with SIGKILL again and again, resume it each time, and record what every resume did.

The run is tests/scripts/crash_safe_train.py (a checkpoint after every step). Each cycle starts it (resuming
with `resume_from_checkpoint=True` once a checkpoint was saved), waits until training has begun, and kills it:
either as soon as the output folder changes (a save has begun: a staging folder or a new checkpoint folder
appeared) plus a short random delay, which lands most kills inside a save or a rotation, or after a random
delay. A final cycle resumes and stops cleanly after two steps.

What is checked here, independently of the code under test:
- a resume reached training: the process did not die before its first step;
- it started at the newest checkpoint that is complete (all files, trainer_state.json readable and saying that
  step), and not before the last save the previous run reported finished (no completed step lost);
- every `checkpoint-*` folder visible after a kill is complete;
- at the end, no temporary file or folder remains.

    python tests/crash_kill_harness.py --kills 32 [--without-crash-safe-patch] [--seed 1]

prints the summary (used to measure the unpatched behaviour).
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

from shim_runner import script, shim_env

COMPLETE_FILES = {"config.json", "model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth",
                  "trainer_state.json", "training_args.bin"}
CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
START_TIMEOUT = 240  # seconds for a child to import and begin training on a loaded machine


def checkpoint_folders(train_dir):
    if not os.path.isdir(train_dir):
        return {}
    return {int(m.group(1)): os.path.join(train_dir, name) for name in os.listdir(train_dir)
            for m in [CHECKPOINT.match(name)] if m and os.path.isdir(os.path.join(train_dir, name))}


def why_incomplete(path, step):
    """None when the folder at `path` is a complete checkpoint of `step`, else the reason."""
    missing = COMPLETE_FILES - set(os.listdir(path))
    if missing:
        return f"missing {sorted(missing)}"
    try:
        with open(os.path.join(path, "trainer_state.json"), encoding="utf-8") as f:
            state = json.load(f)
    except ValueError:
        return "trainer_state.json unreadable"
    if state.get("global_step") != step:
        return f"trainer_state.json says step {state.get('global_step')}"
    return None


def incomplete_checkpoints(train_dir):
    return {step: reason for step, path in checkpoint_folders(train_dir).items()
            for reason in [why_incomplete(path, step)] if reason}


def newest_complete_step(train_dir):
    complete = [s for s, p in checkpoint_folders(train_dir).items() if why_incomplete(p, s) is None]
    return max(complete, default=None)


def leftovers(train_dir):
    """Temporary files and hidden folders anywhere under `train_dir`."""
    found = []
    for folder, dirs, files in os.walk(train_dir):
        found += [os.path.relpath(os.path.join(folder, n), train_dir) for n in dirs + files if n.startswith(".")]
    return sorted(found)


def read_events(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().endswith("}")]


class Cycle:
    def __init__(self, workdir, index, argv):
        self.events_file = os.path.join(workdir, "events.jsonl")
        self.seen = len(read_events(self.events_file))
        self.log = open(os.path.join(workdir, f"cycle-{index}.log"), "w")
        self.proc = subprocess.Popen([sys.executable, script("crash_safe_train.py"), *argv,
                                      "--events", self.events_file], stdout=self.log, stderr=subprocess.STDOUT,
                                     env=shim_env(), cwd=workdir)

    def new_events(self):
        return read_events(self.events_file)[self.seen:]

    def wait_for_start(self):
        """The step the run started from, or None if the process ended first."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            starts = [e["start"] for e in self.new_events() if "start" in e]
            if starts:
                return starts[0]
            if self.proc.poll() is not None:
                return None
            time.sleep(0.02)
        self.kill()
        return None

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.log.close()

    def tail(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()[-3000:]


def _listing(folder):
    try:
        return set(os.listdir(folder))
    except FileNotFoundError:
        return set()


def _kill_when_a_save_begins(cycle, train_dir, rng):
    """Let 0-2 saves finish, then kill a random 0-80 ms after the output folder next changes (a staging folder,
    a new checkpoint folder or a renamed one appears): most such kills land inside a save or a rotation."""
    saves_first, deadline = rng.randint(0, 2), time.monotonic() + 60
    while (len([e for e in cycle.new_events() if "saved" in e]) < saves_first and cycle.proc.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.005)
    before = _listing(train_dir)
    while time.monotonic() < deadline and cycle.proc.poll() is None and not _listing(train_dir) - before:
        time.sleep(0.002)
    time.sleep(rng.uniform(0, 0.08))
    cycle.kill()


def run(workdir, kills, seed=0, *, kill_in_save_first=False, without_patch=False):
    """Run `kills` killed cycles and a final clean one in `workdir`; returns the record of each."""
    rng = random.Random(seed)
    train_dir = os.path.join(workdir, "run")
    extra = ["--output-dir", train_dir] + (["--without-crash-safe-patch"] if without_patch else [])
    cycles, last_saved = [], None
    for index in range(kills + 1):
        final = index == kills
        expected = newest_complete_step(train_dir)
        resume = last_saved is not None or expected is not None
        argv = extra + (["--resume"] if resume else [])
        mode = "final" if final else ("self-kill in save at step 3" if kill_in_save_first and index == 0
                                      else rng.choice(["in save", "in save", "random delay"]))
        argv += ["--stop-after", "2"] if final else (["--kill-in-save", "3"] if mode.startswith("self") else [])
        record = {"cycle": index, "mode": mode, "resumed": resume, "expected_start": expected if resume else 0,
                  "last_saved_before": last_saved}
        cycle = Cycle(workdir, index, argv)
        record["start"] = cycle.wait_for_start()
        if record["start"] is None:
            cycle.kill()
            record["failed"] = cycle.tail()
            if without_patch:  # count the failure, then clear the broken folders so that the run can go on
                for step in incomplete_checkpoints(train_dir):
                    shutil.rmtree(checkpoint_folders(train_dir)[step])
        elif final:
            record["returncode"] = cycle.proc.wait(timeout=START_TIMEOUT)
            cycle.log.close()
            record["done"] = [e["done"] for e in cycle.new_events() if "done" in e]
            if record["returncode"] != 0:
                record["failed"] = cycle.tail()
        elif mode.startswith("self"):
            record["returncode"] = cycle.proc.wait(timeout=START_TIMEOUT)
            cycle.log.close()
        else:
            if mode == "in save":
                _kill_when_a_save_begins(cycle, train_dir, rng)
            else:
                time.sleep(rng.uniform(0, 1.0))
                cycle.kill()
            record["returncode"] = cycle.proc.returncode
        saved = [e["saved"] for e in cycle.new_events() if "saved" in e]
        if saved:
            last_saved = max(saved)
        record["saved"] = saved
        record["visible_after"] = sorted(checkpoint_folders(train_dir))
        record["incomplete_after"] = incomplete_checkpoints(train_dir)
        cycles.append(record)
    return {"cycles": cycles, "leftovers": leftovers(train_dir)}


def summary(result):
    killed = [c for c in result["cycles"] if c["mode"] != "final"]
    resumed = [c for c in result["cycles"] if c["resumed"]]
    return {"kills": len(killed), "resumes": len(resumed),
            "failed_resumes": sum(1 for c in resumed if "failed" in c),
            "wrong_start": sum(1 for c in resumed if c["start"] is not None and c["start"] != c["expected_start"]),
            "kills_leaving_incomplete_folder": sum(1 for c in killed if c["incomplete_after"]),
            "leftovers": result["leftovers"]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--without-crash-safe-patch", action="store_true")
    opts = parser.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    outcome = run(opts.workdir, opts.kills, opts.seed, without_patch=opts.without_crash_safe_patch)
    with open(os.path.join(opts.workdir, "result.json"), "w") as f:
        json.dump(outcome, f, indent=1)
    print(json.dumps(summary(outcome)))
