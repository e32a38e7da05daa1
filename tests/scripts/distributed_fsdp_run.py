"""One rank of the FullyShardedDataParallel check, runnable on the shim (SHIM=1) and on real torch (its gloo
backend), launched by a torchrun with 2 processes. Writes OUT_DIR/<tag>_<strategy>_rank<r>.npz for
FULL_SHARD and NO_SHARD:
- start_*: parameters right after wrapping (both ranks build the same values: torch's sync_module_states needs
  accelerator parameters, and without it each rank's shard comes from its own module);
- sync_*: gradients after one synchronized backward (each rank its own batch);
- accum_*: gradients after a no_sync backward followed by a synchronized one;
- final_*: parameters after 3 AdamW steps with clip_grad_norm_; norms: the clipped total norms;
- state_*: the full state dict (keys in order in `state_keys`), taken on every rank;
- sync_module_states_on_cpu: what FSDP(sync_module_states=True) says of a CPU module.
Gradients and parameters are read inside summon_full_params(with_grads=True), where torch's are whole.
"""
import os
import sys
import warnings

if os.environ.get("SHIM") == "1":
    import mindnlp  # noqa: F401

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from torch.distributed.fsdp.wrap import ModuleWrapPolicy


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)
        self.norm = torch.nn.LayerNorm(6)

    def forward(self, x):
        return x + torch.relu(self.fc(self.norm(x)))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(4, 6)
        self.blocks = torch.nn.ModuleList([Block(), Block()])
        self.head = torch.nn.Linear(6, 2)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def build(rank):
    net = Net()
    rng = np.random.RandomState(0 if rank == 0 else 99)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, size=tuple(p.shape)).astype(np.float32)))
    return net


def batch(rank, step):
    rng = np.random.RandomState(1000 + 10 * step + rank)
    return (torch.tensor(rng.normal(size=(3, 4)).astype(np.float32)),
            torch.tensor(rng.normal(size=(3, 2)).astype(np.float32)))


def loss_of(model, x, y):
    return ((model(x) - y) ** 2).mean()


def full(model, grads):
    with FSDP.summon_full_params(model, with_grads=grads):
        return {n: (p.grad if grads else p).detach().clone().numpy() for n, p in model.named_parameters()}


def run(out_dir, tag, strategy, rank):
    record = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FSDP(build(0), use_orig_params=True, device_id="cpu",
                     sharding_strategy=getattr(ShardingStrategy, strategy),
                     auto_wrap_policy=ModuleWrapPolicy({Block}))
        if os.environ.get("SHIM") == "1" and strategy != "NO_SHARD":
            # ranks whose modules differ would each hold a shard of their own values in torch: refused here
            try:
                FSDP(build(rank), use_orig_params=True, device_id="cpu",
                     sharding_strategy=getattr(ShardingStrategy, strategy))
                record["refused_different_ranks"] = np.array(False)
            except NotImplementedError:
                record["refused_different_ranks"] = np.array(True)
    record.update({f"start_{n}": v for n, v in full(model, False).items()})
    try:  # torch broadcasts rank 0's module only from an accelerator
        FSDP(build(rank), use_orig_params=True, device_id="cpu", sync_module_states=True)
        record["sync_module_states_on_cpu"] = np.array("accepted")
    except ValueError as error:
        record["sync_module_states_on_cpu"] = np.array(str(error))

    loss_of(model, *batch(rank, 0)).backward()
    record.update({f"sync_{n}": v for n, v in full(model, True).items()})

    model.zero_grad()
    with model.no_sync():
        loss_of(model, *batch(rank, 1)).backward()
    loss_of(model, *batch(rank, 2)).backward()
    record.update({f"accum_{n}": v for n, v in full(model, True).items()})

    model.zero_grad()
    opt = torch.optim.AdamW(model.parameters(), lr=0.05)
    norms = []
    for step in range(3):
        opt.zero_grad()
        loss_of(model, *batch(rank, 4 + step)).backward()
        norms.append(float(model.clip_grad_norm_(0.5)))
        opt.step()
    record.update({f"final_{n}": v for n, v in full(model, False).items()})
    record["norms"] = np.array(norms)
    state = model.state_dict()
    record["state_keys"] = np.array(list(state))
    record.update({f"state_{k}": v.detach().numpy().copy() for k, v in state.items()})
    np.savez(os.path.join(out_dir, f"{tag}_{strategy}_rank{rank}.npz"), **record)


def main(out_dir, tag):
    dist.init_process_group("gloo")
    for strategy in STRATEGIES:
        run(out_dir, tag, strategy, dist.get_rank())
    dist.barrier()
    dist.destroy_process_group()


STRATEGIES = ("FULL_SHARD", "NO_SHARD")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
