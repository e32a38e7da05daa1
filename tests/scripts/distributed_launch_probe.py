"""One rank of the launcher checks: `env` joins the process group and writes what it was given to
OUT/env<rank>.json; `fail` makes rank 1 exit with code 3 while rank 0 waits in a barrier."""
import mindnlp  # noqa: F401
import json
import os
import sys

import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record  # as torchrun scripts often do

NAMES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID",
         "GROUP_RANK", "MS_ROLE", "MS_NODE_ID", "MS_WORKER_NUM", "MS_SCHED_PORT", "MINDNLP_SHIM_THREADS")


@record
def main(mode, out):
    dist.init_process_group()
    rank = dist.get_rank()
    if mode == "fail":
        if rank == 1:
            sys.exit(3)
        dist.barrier()  # never completes: rank 1 is gone; the launcher must stop this rank
        return
    report = {name: os.environ.get(name) for name in NAMES}
    report.update(rank=rank, world=dist.get_world_size(), argv=sys.argv[1:], backend=dist.get_backend(),
                  elastic=dist.is_torchelastic_launched())
    with open(os.path.join(out, f"env{rank}.json"), "w") as fh:
        json.dump(report, fh)
    dist.barrier()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
