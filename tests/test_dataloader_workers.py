"""DataLoader workers as in torch on Linux: forked (the main script's top level runs once, the dataset needs no
pickling), with MindSpore working in the forked child; workers started with 'spawn' refuse a script whose
top level is unguarded instead of running it again in each worker.

Scripts run in a subprocess from a temp dir, `import mindnlp` first; a top-level side effect (a line appended
to a file) counts how often the script's top level ran."""
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

os.environ.setdefault("GLOG_v", "3")

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim import _fork_safety  # noqa: E402
from mindnlp_shim.torch.utils.data import DataLoader  # noqa: E402
from mindnlp_shim.torch.utils.data import _main_guard  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINUX_FORK = multiprocessing.get_start_method() == "fork"

DATALOADER_SCRIPT = """\
import mindnlp
import json, sys
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

with open(sys.argv[1], "a") as mark:
    mark.write("top level\\n")


class Rows(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        # products like these never returned in a child forked without MindSpore's fork handlers
        rows = torch.stack([torch.ones(128) * i for _ in range(32)])
        info = get_worker_info()
        return {"value": rows.mean(), "ones": torch.from_numpy(np.ones(3, np.float32)),
                "worker": -1 if info is None else info.id}


def run():
    loader = DataLoader(Rows(), batch_size=4, num_workers=2, multiprocessing_context=CONTEXT)
    batches = [(b["value"].tolist(), b["ones"].sum().item(), b["worker"].tolist()) for b in loader]
    print(json.dumps(batches))
"""


def _run_script(tmp_path, body, *args, timeout=300):
    script = tmp_path / "train_script.py"
    script.write_text(body)
    mark = tmp_path / "top_level_runs.txt"
    env = dict(os.environ, PYTHONPATH=REPO, GLOG_v="3")
    proc = subprocess.run([sys.executable, str(script), str(mark), *args], capture_output=True, text=True,
                          env=env, cwd=str(tmp_path), timeout=timeout)
    runs = mark.read_text().count("top level") if mark.exists() else 0
    return proc, runs


def _dataloader_script(context, guarded):
    call = 'if __name__ == "__main__":\n    run()\n' if guarded else "run()\n"
    return DATALOADER_SCRIPT.replace("CONTEXT", repr(context)) + "\n\n" + call


def _check_batches(stdout):
    batches = json.loads(stdout.strip().splitlines()[-1])
    assert [values for values, _, _ in batches] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0],
                                                    [8.0, 9.0, 10.0, 11.0]]
    assert all(ones == 12.0 for _, ones, _ in batches)
    assert {w for _, _, workers in batches for w in workers} == {0, 1}  # both workers served batches


# ---------------------------------------------------------------------------- fork
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_runs_the_ops_that_hung_without_the_fork_handlers():
    assert _fork_safety.fork_is_safe()
    x = torch.randn(256, 256)
    (x @ x).sum().item()  # the parent has run ops, so MindSpore's thread pools are up
    pid = os.fork()
    if pid == 0:  # the child: the ops of a worker, then report through the exit status
        code = 1
        try:
            import numpy as np

            # a 512x512 matmul and these products never returned in a child forked without the handlers
            rows = torch.stack([torch.ones(128) * i for i in range(32)])
            big = torch.randn(512, 512)
            ok = rows.sum().item() == 128 * sum(range(32)) and (big @ big).shape == (512, 512)
            ok = ok and torch.from_numpy(np.arange(6.0)).sum().item() == 15.0
            layer = torch.nn.Linear(64, 64)
            layer(torch.randn(8, 64)).sum().backward()
            code = 0 if ok and layer.weight.grad is not None else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung in a MindSpore op")
    assert (x @ x).shape == (256, 256)  # the parent still computes after the fork


@pytest.mark.skipif(not LINUX_FORK, reason="fork is not multiprocessing's default start method here")
def test_default_workers_are_forked_and_an_unguarded_script_runs_its_top_level_once(tmp_path):
    assert DataLoader([1], num_workers=1)._get_iterator()._start_method == "fork"
    proc, runs = _run_script(tmp_path, _dataloader_script(None, guarded=False))
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_batches(proc.stdout)
    assert runs == 1


def test_forked_workers_take_unpicklable_datasets_and_collate_functions():
    if not LINUX_FORK:
        pytest.skip("fork is not multiprocessing's default start method here")
    scale = 3.0
    data = [torch.tensor([float(i)]) for i in range(6)]
    loader = DataLoader(data, batch_size=2, num_workers=2, collate_fn=lambda batch: torch.cat(batch) * scale)
    assert [b.tolist() for b in loader] == [[0.0, 3.0], [6.0, 9.0], [12.0, 15.0]]


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no forkserver here")
def test_forkserver_workers_outlive_an_idle_second():
    # a forkserver worker is the server's child: it must not mistake that for its DataLoader's process dying
    loader = DataLoader(list(range(6)), batch_size=1, num_workers=2, prefetch_factor=1,
                        multiprocessing_context="forkserver")
    iterator = iter(loader)
    got = [next(iterator).item()]
    time.sleep(2.5)  # the workers wait for tasks longer than their 1 s poll
    got += [batch.item() for batch in iterator]
    assert got == list(range(6))


# ---------------------------------------------------------------------------- spawn: the unguarded script
def test_spawned_workers_from_an_unguarded_top_level_are_refused_with_the_fix(tmp_path):
    proc, runs = _run_script(tmp_path, _dataloader_script("spawn", guarded=False))
    assert proc.returncode != 0
    assert "RuntimeError" in proc.stderr
    assert 'outside `if __name__ == "__main__":`' in proc.stderr and "num_workers=0" in proc.stderr
    assert "train_script.py" in proc.stderr and "line " in proc.stderr
    assert runs == 1  # no worker was started, so nothing ran the script again


def test_spawned_workers_from_a_guarded_script_work(tmp_path):
    proc, runs = _run_script(tmp_path, _dataloader_script("spawn", guarded=True))
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_batches(proc.stdout)
    assert runs == 3  # spawn imports the main script in each of the 2 workers: its unguarded lines run there


def test_a_dataloader_iterated_while_a_worker_imports_the_main_script_is_refused(monkeypatch):
    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    with pytest.raises(RuntimeError, match="imports the main script of its parent"):
        iter(DataLoader([1, 2]))


@pytest.mark.parametrize("source, line, guarded", [
    ("x = 1\nrun()\n", 2, False),
    ('if __name__ == "__main__":\n    run()\n', 2, True),
    ("if '__main__' == __name__:\n    run()\n", 2, True),
    ('if __name__ == "__main__":\n    pass\nelse:\n    run()\n', 4, False),
    ('try:\n    if __name__ == "__main__":\n        run()\nfinally:\n    pass\n', 3, True),
    ('if __name__ != "__main__":\n    run()\n', 2, False),
    ('with open("f") as f:\n    run()\n', 2, False),
    ('def main():\n    run()\n\nmain()\n', 4, False),
])
def test_main_guard_detection(source, line, guarded):
    import ast

    assert _main_guard._guarded(ast.parse(source).body, line) is guarded


# ---------------------------------------------------------------------------- the Trainer
TRAINER_SCRIPT = """\
import mindnlp
import json, sys
import torch
from torch.utils.data import Dataset, get_worker_info
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

MARK = sys.argv[1]
with open(MARK, "a") as mark:
    mark.write("top level\\n")


class Sentences(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        info = get_worker_info()
        with open(MARK + ".workers", "a") as seen:
            seen.write(f"{-1 if info is None else info.id}\\n")
        return {"input_ids": torch.tensor([(i * 7 + k) % 50 + 5 for k in range(8)]), "labels": torch.tensor(i % 2)}


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=16, num_labels=2)
    args = TrainingArguments(output_dir=sys.argv[2], max_steps=3, per_device_train_batch_size=4, logging_steps=1,
                             dataloader_num_workers=2, report_to=[], disable_tqdm=True, save_strategy="no", seed=0)
    trainer = Trainer(model=BertForSequenceClassification(config), args=args, train_dataset=Sentences())
    result = trainer.train()
    print(json.dumps({"steps": result.global_step,
                      "losses": [h["loss"] for h in trainer.state.log_history if "loss" in h]}))


if __name__ == "__main__":
    main()
"""


def test_trainer_with_two_dataloader_workers_in_a_guarded_script(tmp_path):
    proc, runs = _run_script(tmp_path, TRAINER_SCRIPT, str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["steps"] == 3 and len(report["losses"]) == 3
    assert all(0.3 < loss < 1.2 for loss in report["losses"])  # ~ln(2) for two balanced classes
    workers = (tmp_path / "top_level_runs.txt.workers").read_text().split()
    assert set(workers) == {"0", "1"}  # the samples were loaded in the two worker processes
    assert runs == (1 if LINUX_FORK else 3)
