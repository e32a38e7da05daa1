"""One rank of the DistributedDataParallel check, runnable on the shim (SHIM=1) and on real torch (its gloo
backend), launched by a torchrun with 2 processes. Writes OUT_DIR/<tag>_rank<r>.npz:
- start_*: parameters right after wrapping (rank 1 starts from different values: DDP must broadcast rank 0's);
- sync_*: gradients after one synchronized backward; local_*: this rank's own gradients of the same batch;
- accum_*: gradients after a no_sync backward followed by a synchronized one;
- unused_*: gradients with find_unused_parameters=True where rank 1 skips a branch;
- final_*: parameters after 3 SGD steps.
"""
import os
import sys

if os.environ.get("SHIM") == "1":
    import mindnlp  # noqa: F401

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 6)
        self.fc2 = torch.nn.Linear(6, 2)
        self.side = torch.nn.Linear(4, 2)

    def forward(self, x, use_side=True):
        out = self.fc2(torch.tanh(self.fc1(x)))
        return out + self.side(x) if use_side else out


def build(rank):
    net = Net()
    rng = np.random.RandomState(0 if rank == 0 else 99)  # rank 1 differs until DDP broadcasts rank 0's values
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, size=tuple(p.shape)).astype(np.float32)))
    return net


def batch(rank, step):
    rng = np.random.RandomState(1000 + 10 * step + rank)
    return (torch.tensor(rng.normal(size=(3, 4)).astype(np.float32)),
            torch.tensor(rng.normal(size=(3, 2)).astype(np.float32)))


def loss_of(model, x, y, **kwargs):
    return ((model(x, **kwargs) - y) ** 2).mean()


def grads(model):
    return {n: (p.grad.detach().numpy().copy() if p.grad is not None else np.full(p.shape, np.nan, np.float32))
            for n, p in model.named_parameters()}


def main(out_dir, tag):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    record = {}
    net = build(rank)
    ddp = DDP(net)
    record.update({f"start_{n}": p.detach().numpy().copy() for n, p in net.named_parameters()})

    # this rank's own gradient of its batch, on a plain copy of the (now common) parameters
    plain = build(0)
    x, y = batch(rank, 0)
    loss_of(plain, x, y).backward()
    record.update({f"local_{n}": g for n, g in grads(plain).items()})

    loss_of(ddp, x, y).backward()
    record.update({f"sync_{n}": g for n, g in grads(net).items()})

    net.zero_grad()
    with ddp.no_sync():
        loss_of(ddp, *batch(rank, 1)).backward()
    loss_of(ddp, *batch(rank, 2)).backward()
    record.update({f"accum_{n}": g for n, g in grads(net).items()})

    sparse = DDP(build(0), find_unused_parameters=True)
    loss_of(sparse, *batch(rank, 3), use_side=(rank == 0)).backward()
    record.update({f"unused_{n}": g for n, g in grads(sparse.module).items()})

    net.zero_grad()
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        loss_of(ddp, *batch(rank, 4 + step)).backward()
        opt.step()
    record.update({f"final_{n}": p.detach().numpy().copy() for n, p in net.named_parameters()})
    record["module_is_wrapped"] = np.array(ddp.module is net)
    np.savez(os.path.join(out_dir, f"{tag}_rank{rank}.npz"), **record)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
