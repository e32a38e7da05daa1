"""Process groups formed on a torch Store by processes forked off this one (accelerate's debug_launcher does
this), runnable on the shim (SHIM=1) and on real torch (its gloo backend):

    python distributed_store_run.py OUT_DIR TAG

Scenarios, each a `torch.multiprocessing.start_processes(..., start_method="fork")`:
- "file3": 3 ranks on `init_method="file://..."`: every collective on every dtype of
  distributed_inputs.STORE_DTYPES, subgroups, object collectives, and DDP training 3 SGD steps on its shard of a
  batch (plus, in the parent, the same model trained on the whole batch in one process);
- "tcp2": 2 ranks on an explicit `store=TCPStore(...)`; "env2": 2 ranks on env:// (MASTER_ADDR/MASTER_PORT);
- "timeout": 2 ranks on file://, then a group of both with a 3 s timeout (`new_group(timeout=...)`); rank 1 ends
  right after forming it, so rank 0's all_reduce on it never completes.
Each rank writes OUT_DIR/<TAG>_<scenario>_rank<r>.pkl: {item: NumPy array, or "ERROR <type>: <message>"}.
"""
import os
import sys

if os.environ.get("SHIM") == "1":
    import mindnlp  # noqa: F401

import datetime
import pickle
import socket
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from distributed_inputs import STORE_DTYPES, store_values  # noqa: E402

OPS = {"float": ["SUM", "PRODUCT", "MIN", "MAX", "AVG"], "int": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
       "bool": ["SUM", "MIN", "MAX", "BAND", "BOR", "BXOR"]}


def kind(dtype):
    return "bool" if dtype == "bool" else "float" if "float" in dtype else "int"


def tensor(rank, dtype):
    return torch.tensor(store_values(rank, dtype), dtype=getattr(torch, dtype))


def to_numpy(t):
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()


def attempt(results, name, call):
    try:
        results[name] = call()
    except Exception as exc:  # noqa: BLE001  (recorded; the test decides what each side may raise)
        results[name] = f"ERROR {type(exc).__name__}: {exc}"


# ---------------------------------------------------------------- the collectives
def collectives(rank, world, results):
    for dtype in STORE_DTYPES:
        for op in OPS[kind(dtype)]:
            def reduced(op=op, dtype=dtype):
                t = tensor(rank, dtype)
                dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                return to_numpy(t)
            attempt(results, f"all_reduce_{op}_{dtype}", reduced)

        def gathered(dtype=dtype):
            outs = [torch.zeros(5, dtype=getattr(torch, dtype)) for _ in range(world)]
            dist.all_gather(outs, tensor(rank, dtype))
            return np.stack([to_numpy(o) for o in outs])
        attempt(results, f"all_gather_{dtype}", gathered)

        def broadcast(dtype=dtype):
            t = tensor(rank, dtype)
            dist.broadcast(t, src=world - 1)
            return to_numpy(t)
        attempt(results, f"broadcast_{dtype}", broadcast)

    def into_tensor():
        out = torch.zeros(world * 5)  # (gloo takes a flat output only)
        dist.all_gather_into_tensor(out, tensor(rank, "float32"))
        return to_numpy(out)

    def reduce_scatter_tensor():
        out = torch.zeros(2)
        dist.reduce_scatter_tensor(out, torch.arange(2.0 * world) * (rank + 1), op=dist.ReduceOp.SUM)
        return to_numpy(out)

    def reduce_scatter_list():
        out = torch.zeros(2, dtype=torch.int64)
        dist.reduce_scatter(out, [torch.tensor([10 * rank + j, rank - j]) for j in range(world)], op=dist.ReduceOp.MAX)
        return to_numpy(out)

    def reduce_to_0():  # (gloo leaves partial sums in the other ranks' tensors: only rank 0's is compared)
        t = tensor(rank, "float32")
        dist.reduce(t, dst=0)
        return to_numpy(t)

    def gather_to_1():
        outs = [torch.zeros(5, dtype=torch.float64) for _ in range(world)] if rank == 1 else None
        dist.gather(tensor(rank, "float64"), outs, dst=1)
        return np.stack([to_numpy(o) for o in outs]) if outs else np.zeros(0)

    def scatter_from_0():
        t = torch.zeros(2, dtype=torch.int64)
        dist.scatter(t, [torch.tensor([100 * j, j]) for j in range(world)] if rank == 0 else None, src=0)
        return to_numpy(t)

    def all_to_all_single():
        out = torch.zeros(world * 2)
        dist.all_to_all_single(out, torch.tensor([[float(rank), float(j)] for j in range(world)]).reshape(-1))
        return to_numpy(out)

    def objects():
        gathered = [None] * world
        dist.all_gather_object(gathered, {"rank": rank, "text": "x" * (3 * rank + 1)})
        sent = [{"from": rank}, rank * 11] if rank == world - 1 else [None, None]
        dist.broadcast_object_list(sent, src=world - 1)
        scattered = [None]
        dist.scatter_object_list(scattered, [f"for {j}" for j in range(world)] if rank == 0 else None, src=0)
        return np.array(repr((gathered, sent, scattered)))

    def subgroup():
        members = [0, world - 1]
        group = dist.new_group(members)
        if rank not in members:
            return np.zeros(0)
        t = tensor(rank, "int64")
        dist.all_reduce(t, group=group)
        outs = [torch.zeros(5) for _ in members]
        dist.all_gather(outs, tensor(rank, "float32"), group=group)
        b = tensor(rank, "float64")
        dist.broadcast(b, src=world - 1, group=group)
        return np.concatenate([to_numpy(t).astype(np.float64), np.concatenate([to_numpy(o) for o in outs]),
                               to_numpy(b), [dist.get_rank(group)]])

    for name, call in [("all_gather_into_tensor", into_tensor), ("reduce_scatter_tensor", reduce_scatter_tensor),
                       ("reduce_scatter_list", reduce_scatter_list), ("reduce_to_0", reduce_to_0),
                       ("gather_to_1", gather_to_1), ("scatter_from_0", scatter_from_0),
                       ("all_to_all_single", all_to_all_single), ("objects", objects), ("subgroup", subgroup)]:
        attempt(results, name, call)
    dist.barrier()
    results["rank_world"] = np.array([dist.get_rank(), dist.get_world_size()])


# ---------------------------------------------------------------- DDP
FULL_BATCH = 12


def ddp_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))


def ddp_data():
    rng = np.random.RandomState(7)
    return (torch.tensor(rng.normal(size=(FULL_BATCH, 4)).astype(np.float32)),
            torch.tensor(rng.normal(size=(FULL_BATCH, 2)).astype(np.float32)))


def train(model, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
    return {n: p.detach().numpy().copy() for n, p in model.named_parameters()}


def ddp(rank, world, results):
    model = torch.nn.parallel.DistributedDataParallel(ddp_model())
    x, y = ddp_data()
    shard = slice(rank * FULL_BATCH // world, (rank + 1) * FULL_BATCH // world)
    for name, value in train(model, x[shard], y[shard]).items():
        results[f"ddp_{name.removeprefix('module.')}"] = value


# ---------------------------------------------------------------- scenarios
def rank_main(rank, scenario, world, rendezvous, out_prefix):
    results = {}
    if scenario == "env2":
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(rendezvous), RANK=str(rank),
                          WORLD_SIZE=str(world))
        dist.init_process_group("gloo")
    elif scenario == "tcp2":
        store = dist.TCPStore("127.0.0.1", rendezvous, world, rank == 0, datetime.timedelta(seconds=60))
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world)
    else:
        dist.init_process_group("gloo", init_method=f"file://{rendezvous}", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=120))
    if scenario == "timeout":
        group = dist.new_group([0, 1], timeout=datetime.timedelta(seconds=3))
        if rank == 0:
            started = time.monotonic()
            attempt(results, "late_all_reduce", lambda: dist.all_reduce(torch.ones(3), group=group))
            results["waited"] = np.array(time.monotonic() - started)
    elif scenario == "file3":
        collectives(rank, world, results)
        ddp(rank, world, results)
    else:
        attempt(results, "all_reduce_SUM_float32", lambda: _sum(rank))
        outs = [None] * world
        dist.all_gather_object(outs, rank * 10)
        results["objects"] = np.array(outs)
    with open(f"{out_prefix}_rank{rank}.pkl", "wb") as fh:
        pickle.dump(results, fh)


def _sum(rank):
    t = tensor(rank, "float32")
    dist.all_reduce(t)
    return to_numpy(t)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(out_dir, tag):
    for scenario, world in (("file3", 3), ("tcp2", 2), ("env2", 2), ("timeout", 2)):
        prefix = os.path.join(out_dir, f"{tag}_{scenario}")
        if scenario in ("tcp2", "env2"):
            rendezvous = free_port()
        else:
            handle, rendezvous = tempfile.mkstemp(dir=out_dir)
            os.close(handle)
        started = time.monotonic()
        mp.start_processes(rank_main, args=(scenario, world, rendezvous, prefix), nprocs=world, start_method="fork")
        print(f"{scenario}: {time.monotonic() - started:.1f} s", flush=True)
    with open(os.path.join(out_dir, f"{tag}_single.pkl"), "wb") as fh:
        x, y = ddp_data()
        pickle.dump(train(ddp_model(), x, y), fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
