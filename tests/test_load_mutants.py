"""torch.load of damaged and unusual files, against real torch on the same bytes.

Real torch writes four files (a state_dict with tied weights and views of one base, an AdamW state, a Trainer
`rng_state.pth` and a state_dict in the pre-1.6 format); `load_mutations.py` makes seeded mutants of them, and
each mutant is loaded by both (with and without weights_only=True; location-tag mutants also with
map_location="cpu", every fourth file also with map_location="meta") in child processes
(tests/scripts/load_files_run.py). The shim's child runs with a limited
address space and every load under a timeout, and a child that dies is restarted after the load that killed
it. Where torch raises the shim must raise; where both load, dtypes, shapes, strides, storage offsets, which
tensors share a storage (and its size), requires_grad and every byte must be equal. Where the shim raises and
torch loads, the reason must be one of the documented stricter checks (docs/loading-files.md). Every error
of the shim names the file.
"""
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile

import pytest

import oracle
from load_mutations import legacy_mutants, zip_mutants
from shim_runner import script, shim_env

SEED = 20250611
COUNTS = {"state_dict.pt": 100, "optimizer.pt": 70, "rng_state.pth": 70, "legacy.pt": 120}

_WRITE_IN_TORCH = """
import json, pickle, random, numpy as np, torch
folder = {folder!r}
torch.manual_seed(0); np.random.seed(0); random.seed(0)

class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(6, 4)
        self.norm = torch.nn.LayerNorm(4)
        self.head = torch.nn.Linear(4, 6, bias=False)
        self.head.weight = self.emb.weight                      # tied weights
        self.register_buffer("mask", torch.tensor([1, 0, 1], dtype=torch.uint8))
        self.register_buffer("pos", torch.arange(5))

model = Tiny()
state = model.state_dict()
base = torch.randn(3, 4)
state.update(base=base, row=base[1], cols=base[:, 1::2], t=base.t(), half=torch.randn(3).half(),
             bf16=torch.randn(2).bfloat16(), flag=torch.tensor([True, False]), scalar=torch.tensor(2.5))
torch.save(state, folder + "/state_dict.pt")
torch.save(state, folder + "/legacy.pt", _use_new_zipfile_serialization=False)

linear = torch.nn.Linear(3, 2)
opt = torch.optim.AdamW(linear.parameters(), lr=1e-3)
for _ in range(2):
    linear(torch.randn(4, 3)).sum().backward()
    opt.step()
torch.save(opt.state_dict(), folder + "/optimizer.pt")
torch.save({{"python": random.getstate(), "numpy": np.random.get_state(), "cpu": torch.random.get_rng_state()}},
           folder + "/rng_state.pth")

itemsizes = {{}}  # the element size of each legacy storage key, for the mutants that change storage counts
class Absorb:
    def __init__(self, *args, **kwargs):
        pass
    def __setstate__(self, state):
        pass
class Keys(pickle.Unpickler):
    def find_class(self, module, name):
        if "Storage" in name:
            return getattr(torch, name)
        return super().find_class(module, name) if module == "collections" else Absorb
    def persistent_load(self, pid):
        itemsizes[pid[2]] = torch._utils._element_size(pid[1].dtype)
        return None
with open(folder + "/legacy.pt", "rb") as f:
    for _ in range(3):
        pickle.load(f)
    Keys(f).load()
print(json.dumps(itemsizes))
"""


@pytest.fixture(scope="module")
def mutants(tmp_path_factory):
    oracle.require_torch()
    folder = tmp_path_factory.mktemp("load_mutants")
    itemsizes = oracle.run_torch_json(_WRITE_IN_TORCH.format(folder=str(folder)))
    files = {}
    for name, count in COUNTS.items():
        with open(folder / name, "rb") as f:
            data = f.read()
        made, base = legacy_mutants(data, itemsizes, f"{SEED}-{name}", count) if name == "legacy.pt" \
            else zip_mutants(data, f"{SEED}-{name}", count)
        (folder / name).write_bytes(base)  # (the legacy file with its storage keys renumbered)
        files[f"{name}/original"] = str(folder / name)
        stem = os.path.splitext(name)[0]
        for what, payload in made:
            # each mutant in its own folder under the original name (the archive folder is named after the file)
            path = folder / f"{stem}-{what[:3]}" / name
            path.parent.mkdir()
            path.write_bytes(payload)
            files[f"{name}/{what}"] = str(path)
    return files


def jobs_for(files):
    """Each file with and without weights_only; location mutants also to the CPU, and every fourth file to
    the meta device (for which torch reads no storage data)."""
    jobs = []
    for index, (label, path) in enumerate(files.items()):
        for weights_only in (False, True):
            jobs.append({"label": label, "path": path, "weights_only": weights_only, "map_location": None})
        if "location" in label:
            jobs.append({"label": label, "path": path, "weights_only": True, "map_location": "cpu"})
        if index % 4 == 0:
            jobs.append({"label": label, "path": path, "weights_only": True, "map_location": "meta"})
    return jobs


def run_guarded(side, jobs, per_job_seconds=25):
    """Outcome per job index from `load_files_run.py --side side`, restarting the child after a crash or a
    hang: the job it had started and not finished is recorded as {"crash": returncode} or {"hang": True}."""
    if side == "shim":
        python, env = sys.executable, shim_env()
    else:
        python, env = oracle.ORACLE_PYTHON, oracle._child_env(None)
    results = {}
    pending = list(enumerate(jobs))
    while pending:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([[i, job] for i, job in pending], f)
        try:
            proc = subprocess.Popen([python, script("load_files_run.py"), "--side", side, "--jobs", f.name],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                    cwd=tempfile.gettempdir())
            try:
                out, err = proc.communicate(timeout=60 + per_job_seconds * len(pending))
                hung = False
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
                hung = True
        finally:
            os.unlink(f.name)
        started = None
        for line in out.splitlines():
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "start" in record:
                started = record["start"]
            else:
                results[record.pop("i")] = record
                started = None
        if started is not None:
            results[started] = {"hang": True} if hung else {"crash": proc.returncode, "stderr": err[-1500:]}
        elif proc.returncode != 0 or hung:
            raise RuntimeError(f"{side} loader failed outside a load (exit {proc.returncode}):\n{err[-4000:]}")
        pending = [(i, job) for i, job in pending if i not in results]
    return [results[i] for i in range(len(jobs))]


# Where the shim refuses a file torch loads (docs/loading-files.md): a record whose CRC does not match its
# bytes, two records of one name, data torch would hand over uninitialized (a deflated record that does not
# inflate, a directory record, an unfilled storage), a legacy storage torch grows after another tensor already
# uses it, a legacy element count that is a sequence (torch builds the storage from it), a storage object itself
# in the result, meta storages larger than the file, a huge pickle memo index.
STRICTER = ("CRC-32", "records named", "does not inflate", "uninitialized", "torch grows a legacy storage",
            "element count must be an integer", "storage object itself", "meta storages claim more bytes",
            "pickle memo index")


# Where the shim loads a file torch refuses, deliberately (mindnlp_shim/torch/serialization.py): under
# weights_only=True, the data-only opcodes of pickle protocols 3-5, which torch's unpickler refuses by number.
LATER_PROTOCOL_OPCODES = {pickle.SHORT_BINBYTES[0], pickle.BINBYTES[0], pickle.BINBYTES8[0], pickle.BYTEARRAY8[0],
                          pickle.SHORT_BINUNICODE[0], pickle.BINUNICODE8[0], pickle.FRAME[0], pickle.MEMOIZE[0],
                          pickle.FROZENSET[0], pickle.ADDITEMS[0], pickle.STACK_GLOBAL[0], pickle.NEWOBJ_EX[0]}


def accepted_beyond_torch(job, torch_says):
    found = re.search(r"Unsupported operand (\d+)", torch_says.get("message", ""))
    return job["weights_only"] and found is not None and int(found.group(1)) in LATER_PROTOCOL_OPCODES


def compare(jobs, ours, theirs):
    """Counts and examples of each kind of outcome."""
    report = {"crashes": [], "hangs": [], "loads_where_torch_raises": [], "different_values": [],
              "stricter": [], "unexplained_stricter": [], "errors_without_file": [], "accepted_beyond_torch": [],
              "same": 0}
    for job, mine, torch_says in zip(jobs, ours, theirs):
        case = f"{job['label']} weights_only={job['weights_only']} map_location={job['map_location']}"
        if "crash" in mine or mine.get("error") == "MemoryError":
            report["crashes"].append((case, mine))
        elif "hang" in mine or mine.get("error") == "Timeout":
            report["hangs"].append((case, mine))
        elif "crash" in torch_says or "hang" in torch_says or not torch_says["ok"]:
            if mine["ok"] and accepted_beyond_torch(job, torch_says):
                report["accepted_beyond_torch"].append((case, torch_says["message"][-300:]))
            elif mine["ok"]:
                report["loads_where_torch_raises"].append((case, torch_says.get("message", torch_says)))
            else:
                report["same"] += 1
        elif not mine["ok"]:
            reason = mine["message"]
            report["stricter"].append((case, reason))
            if not any(word in reason for word in STRICTER):
                report["unexplained_stricter"].append((case, mine))
        elif mine["value"] != torch_says["value"]:
            report["different_values"].append((case, first_difference(mine["value"], torch_says["value"])))
        else:
            report["same"] += 1
        if not mine.get("ok", True) and "error" in mine:
            name = os.path.basename(job["path"])
            if name not in mine["message"] and not any(name in note for note in mine.get("notes", [])):
                report["errors_without_file"].append((case, mine["message"][:300]))
    return report


def first_difference(a, b, path="value"):
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return (path, json.dumps(a)[:300], json.dumps(b)[:300])


def test_mutants_load_as_in_torch(mutants):
    jobs = jobs_for(mutants)
    theirs = run_guarded("torch", jobs)
    ours = run_guarded("shim", jobs)
    report = compare(jobs, ours, theirs)
    counts = {k: (v if isinstance(v, int) else len(v)) for k, v in report.items()}
    print(json.dumps(counts))
    assert len(jobs) >= 500
    originals = [i for i, job in enumerate(jobs) if job["label"].endswith("/original")]
    assert all(ours[i].get("ok") and ours[i]["value"] == theirs[i]["value"] for i in originals)
    problems = {k: report[k][:8] for k in ("crashes", "hangs", "loads_where_torch_raises", "different_values",
                                           "unexplained_stricter", "errors_without_file") if report[k]}
    assert problems == {}, json.dumps({"counts": counts, "problems": problems}, indent=1, default=str)[:12000]
    assert counts["same"] > 2 * counts["stricter"]
