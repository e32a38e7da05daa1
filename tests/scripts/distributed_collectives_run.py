"""One rank of the collectives check: run every torch.distributed collective on inputs that depend on the rank,
and write what each returned to OUT_DIR/rank<r>.json (the test checks them against the definitions).
Launched by `python -m mindnlp.run --nproc_per_node N`."""
import mindnlp  # noqa: F401  (first line: the script runs on the shim)
import json
import os
import sys

import torch
import torch.distributed as dist

from distributed_inputs import inputs


def main(out_dir):
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    x = inputs(rank)
    res = {"rank": rank, "world": world, "env_rank": int(os.environ["RANK"]),
           "env_world": int(os.environ["WORLD_SIZE"]), "backend": dist.get_backend(),
           "initialized": dist.is_initialized(), "available": dist.is_available(),
           "elastic": dist.is_torchelastic_launched()}

    def reduced(name, values, dtype, op):
        t = torch.tensor(values, dtype=dtype)
        same = t
        assert dist.all_reduce(t, op=op) is None
        assert t is same
        res[name] = t.tolist()

    reduced("sum_f32", x["f32"], torch.float32, dist.ReduceOp.SUM)
    reduced("sum_f16", x["f32"], torch.float16, dist.ReduceOp.SUM)
    reduced("avg_f32", x["f32"], torch.float32, dist.ReduceOp.AVG)
    for op in ("SUM", "PRODUCT", "MIN", "MAX"):
        reduced(f"{op.lower()}_i64", x["i64"], torch.int64, getattr(dist.ReduceOp, op))
        reduced(f"{op.lower()}_f64", x["f64"], torch.float64, getattr(dist.ReduceOp, op))
    for op in ("BAND", "BOR", "BXOR"):
        reduced(f"{op.lower()}_u8", x["bits"], torch.uint8, getattr(dist.ReduceOp, op))
    reduced("max_bool", x["flags"], torch.bool, dist.ReduceOp.MAX)
    reduced("min_bool", x["flags"], torch.bool, dist.ReduceOp.MIN)
    reduced("sum_bf16", x["f32"], torch.bfloat16, dist.ReduceOp.SUM)

    # in place through a view: the base sees the result
    base = torch.zeros(2, 4)
    base[1] = torch.tensor(x["f32"])
    dist.all_reduce(base[1])
    res["view_base"] = base.tolist()

    t = torch.tensor(x["i64"])
    dist.broadcast(t, src=world - 1)
    res["broadcast_last"] = t.tolist()
    w = torch.nn.Parameter(torch.tensor(x["f32"]))
    dist.broadcast(w, src=0)  # a parameter that requires grad (DDP's start)
    res["broadcast_param"] = w.detach().tolist()

    outs = [torch.zeros(3, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(outs, torch.tensor(x["i64"]))
    res["all_gather"] = [o.tolist() for o in outs]
    flat = torch.zeros(world * 4)
    dist.all_gather_into_tensor(flat, torch.tensor(x["f32"]))
    res["all_gather_into_tensor"] = flat.tolist()
    stacked = torch.zeros(world, 4)
    dist.all_gather_into_tensor(stacked, torch.tensor(x["f32"]))
    res["all_gather_into_tensor_2d"] = stacked.tolist()

    # rank r contributes chunk j = [10 * r + j, r - j] for every j
    chunks = [torch.tensor([10.0 * rank + j, rank - j]) for j in range(world)]
    out = torch.zeros(2)
    dist.reduce_scatter(out, chunks, op=dist.ReduceOp.SUM)
    res["reduce_scatter_sum"] = out.tolist()
    out = torch.zeros(2)
    dist.reduce_scatter_tensor(out, torch.cat(chunks), op=dist.ReduceOp.MAX)
    res["reduce_scatter_tensor_max"] = out.tolist()

    t = torch.tensor(x["f32"])
    dist.reduce(t, dst=world - 1, op=dist.ReduceOp.SUM)
    res["reduce_to_last"] = t.tolist()

    gathered = [torch.zeros(2) for _ in range(world)] if rank == 0 else None
    dist.gather(torch.tensor(x["f64"], dtype=torch.float32), gathered, dst=0)
    res["gather_to_0"] = [g.tolist() for g in gathered] if gathered else None

    t = torch.zeros(2, dtype=torch.int64)
    pieces = [torch.tensor([100 * j, j]) for j in range(world)] if rank == world - 1 else None
    dist.scatter(t, pieces, src=world - 1)
    res["scatter_from_last"] = t.tolist()

    # rank r sends [r, j] to rank j
    send = torch.tensor([[rank, j] for j in range(world)], dtype=torch.float32).reshape(-1)
    recv = torch.zeros(world * 2)
    dist.all_to_all_single(recv, send)
    res["all_to_all_single"] = recv.tolist()

    dist.barrier()
    objects = [None] * world
    dist.all_gather_object(objects, {"rank": rank, "text": "x" * (rank * 5 + 1)})
    res["all_gather_object"] = objects
    payload = [{"from": rank}, rank * 11, None] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(payload, src=1)
    res["broadcast_object_list"] = payload

    sub_ranks = [0, world - 1]
    sub = dist.new_group(sub_ranks)
    if rank in sub_ranks:
        t = torch.tensor(x["f32"])
        dist.all_reduce(t, group=sub)
        res["subgroup_sum"] = t.tolist()
        res["subgroup_rank"] = dist.get_rank(sub)
        try:
            dist.all_gather([torch.zeros(4), torch.zeros(4)], t, group=sub)
            res["subgroup_gather_error"] = None
        except NotImplementedError as exc:
            res["subgroup_gather_error"] = str(exc)
    errors = {}
    for name, call in {
        "premul_sum": lambda: dist.all_reduce(torch.ones(1), op=dist.ReduceOp.PREMUL_SUM),
        "send": lambda: dist.send(torch.ones(1), dst=0),
        "monitored_barrier": lambda: dist.monitored_barrier(),
        "twice": lambda: dist.init_process_group("gloo"),
    }.items():
        try:
            call()
            errors[name] = None
        except (NotImplementedError, ValueError, RuntimeError) as exc:
            errors[name] = f"{type(exc).__name__}: {exc}"
    res["errors"] = errors
    dist.barrier()
    dist.destroy_process_group()
    res["initialized_after_destroy"] = dist.is_initialized()
    dist.init_process_group("gloo")  # joins the same cluster again
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    res["sum_after_reinit"] = t.tolist()
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as fh:
        json.dump(res, fh)


if __name__ == "__main__":
    main(sys.argv[1])
