"""torch.distributed's tensor collectives, with torch's in-place semantics: results are written into the tensors
the caller passed (the shim's `_inplace.assign`, so views and NumPy arrays over them see the write).

Each is defined by what it computes on the stacked values of all ranks, taken with one all-gather (or one
broadcast) of the process group's transport: MindSpore's cluster (`_transport`, where float32/float16 sums use
MindSpore's AllReduce directly; see there for why) or a torch Store (`_store_transport`).
"""
import enum

import numpy as np
import mindspore
from mindspore import ops

from .. import _inplace
from .._runtime import DEVICE_TARGET
from ..autograd.grad_mode import no_grad
from ._process_group import _State, resolve


class ReduceOp(enum.Enum):
    SUM = 0
    PRODUCT = 1
    MIN = 2
    MAX = 3
    BAND = 4
    BOR = 5
    BXOR = 6
    AVG = 7
    PREMUL_SUM = 8
    UNUSED = 9


ReduceOp.RedOpType = ReduceOp


class Work:
    """The handle of a collective started with async_op=True; collectives here finish before returning."""

    def __init__(self, result=None):
        self._result = result

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def result(self):
        return self._result

    def get_future(self):
        raise NotImplementedError("torch.distributed Work.get_future() is not supported on MindSpore: collectives "
                                  "complete synchronously")


def _done(async_op, result=None):
    return Work(result) if async_op else None


# ---------------------------------------------------------------- tensors <-> arrays
def _array(tensor):
    if tensor.dtype == mindspore.bfloat16:
        tensor = ops.cast(tensor, mindspore.float32)
    return tensor.asnumpy()


def _write(tensor, array):
    value = mindspore.Tensor.from_numpy(np.ascontiguousarray(array).reshape(tuple(tensor.shape)))
    with no_grad():  # collectives write data, outside autograd (torch allows them on parameters)
        _inplace.assign(tensor, value, value_is_fresh=True)


def _reduce_stack(stacked, op, world_size):
    """Reduce an array of shape (ranks, ...) over its first axis as `op` defines."""
    dtype = stacked.dtype
    if op == ReduceOp.SUM:
        out = np.add.reduce(stacked, axis=0, dtype=dtype)
    elif op == ReduceOp.PRODUCT:
        out = np.multiply.reduce(stacked, axis=0, dtype=dtype)
    elif op == ReduceOp.MIN:
        out = stacked.min(axis=0)
    elif op == ReduceOp.MAX:
        out = stacked.max(axis=0)
    elif op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        if dtype.kind not in "biu":
            raise RuntimeError(f"torch.distributed ReduceOp.{op.name} needs an integer or bool tensor, got {dtype}")
        ufunc = {ReduceOp.BAND: np.bitwise_and, ReduceOp.BOR: np.bitwise_or, ReduceOp.BXOR: np.bitwise_xor}[op]
        out = ufunc.reduce(stacked, axis=0)
    elif op == ReduceOp.AVG:
        if dtype.kind not in "fc":
            raise RuntimeError(f"torch.distributed ReduceOp.AVG needs a floating-point tensor, got {dtype}")
        out = np.add.reduce(stacked, axis=0, dtype=dtype) / dtype.type(world_size)
    else:
        raise NotImplementedError(f"torch.distributed ReduceOp.{getattr(op, 'name', op)} is not supported on "
                                  f"MindSpore {DEVICE_TARGET}")
    return out.astype(dtype, copy=False)


def _check_op(op):
    if not isinstance(op, ReduceOp):
        raise NotImplementedError(f"torch.distributed reduce op {op!r} (e.g. _make_nccl_premul_sum) is not "
                                  f"supported on MindSpore {DEVICE_TARGET}")
    if op in (ReduceOp.PREMUL_SUM, ReduceOp.UNUSED):
        raise NotImplementedError(f"torch.distributed ReduceOp.{op.name} is not supported on MindSpore "
                                  f"{DEVICE_TARGET}")


def _world_only(pg, what):
    """Gather- and broadcast-based collectives run on the world group only on MindSpore's cluster (its CPU
    AllGather and Broadcast accept no other group); a store-based group runs them on any group."""
    if pg.transport.gathers_on_subgroups:
        return
    if pg is not _State.default and pg.ranks != _State.default.ranks:
        raise NotImplementedError(f"torch.distributed.{what} on a subgroup is not supported on MindSpore "
                                  f"{DEVICE_TARGET}: its AllGather/Broadcast run on the world group only; "
                                  "all_reduce with ReduceOp.SUM of float32/float16 works on subgroups")


def _member(pg, what):
    if pg.rank() < 0:
        raise RuntimeError(f"torch.distributed.{what}: this rank is not a member of {pg}")


def _stacked(pg, array, what):
    """Every rank's array, shape (world, *array.shape)."""
    _world_only(pg, what)
    return pg.transport.all_gather(array)


def _reduced(pg, array, op, what):
    if op == ReduceOp.SUM and pg.transport.sums_natively(array.dtype):
        return pg.transport.all_reduce_sum(array)
    return _reduce_stack(_stacked(pg, array, what), op, pg.size())


# ---------------------------------------------------------------- collectives
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    pg = resolve(group)
    _check_op(op)
    _member(pg, "all_reduce")
    if pg.size() == 1:
        if op == ReduceOp.AVG:
            _reduce_stack(_array(tensor)[None], op, 1)  # (checks the dtype as the many-rank path does)
        return _done(async_op)
    _write(tensor, _reduced(pg, _array(tensor), op, "all_reduce"))
    return _done(async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    pg = resolve(group)
    _check_op(op)
    dst = _destination(pg, dst, group_dst)
    result = _reduced(pg, _array(tensor), op, "reduce") if pg.size() > 1 else _array(tensor)
    if pg.rank() == dst:
        _write(tensor, result)
    return _done(async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    pg = resolve(group)
    src = _destination(pg, src, group_src)
    if pg.size() > 1:
        _world_only(pg, "broadcast")
        _write(tensor, pg.transport.broadcast(_array(tensor), src))
    return _done(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    pg = resolve(group)
    if len(tensor_list) != pg.size():
        raise ValueError(f"torch.distributed.all_gather: tensor_list has {len(tensor_list)} tensors for a group of "
                         f"{pg.size()} ranks")
    stacked = _stacked(pg, _array(tensor), "all_gather") if pg.size() > 1 else _array(tensor)[None]
    for out, value in zip(tensor_list, stacked):
        _write(out, value)
    return _done(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    pg = resolve(group)
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("torch.distributed.all_gather_into_tensor: output tensor size must be equal to "
                         "world_size times input tensor size")
    stacked = _stacked(pg, _array(input_tensor), "all_gather_into_tensor") if pg.size() > 1 else \
        _array(input_tensor)[None]
    _write(output_tensor, stacked)
    return _done(async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    pg = resolve(group)
    _check_op(op)
    if len(input_list) != pg.size():
        raise ValueError(f"torch.distributed.reduce_scatter: input_list has {len(input_list)} tensors for a group "
                         f"of {pg.size()} ranks")
    chunks = np.stack([_array(t) for t in input_list])
    _write(output, _reduce_chunks(pg, chunks, op, "reduce_scatter"))
    return _done(async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    pg = resolve(group)
    _check_op(op)
    if input.numel() != output.numel() * pg.size():
        raise ValueError("torch.distributed.reduce_scatter_tensor: input tensor must be the same size as output "
                         "size times world size")
    chunks = _array(input).reshape((pg.size(),) + tuple(output.shape))
    _write(output, _reduce_chunks(pg, chunks, op, "reduce_scatter_tensor"))
    return _done(async_op)


def _reduce_chunks(pg, chunks, op, what):
    """Rank r's share: the reduction over ranks of every rank's chunk r."""
    if pg.size() == 1:
        return _reduce_stack(chunks[None], op, 1)[0]
    return _reduce_stack(_stacked(pg, chunks, what), op, pg.size())[pg.rank()]


def _check_root_only_list(pg, root, tensors, what, root_role):
    """gather's and scatter's list: one tensor per rank on the root rank, none given anywhere else."""
    if pg.rank() == root:
        if tensors is None or len(tensors) != pg.size():
            raise ValueError(f"torch.distributed.{what}: {what}_list must hold one tensor per rank on the "
                             f"{root_role} rank")
    elif tensors:
        raise ValueError(f"Argument ``{what}_list`` must NOT be specified on non-{root_role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    pg = resolve(group)
    dst = _destination(pg, dst, group_dst)
    _check_root_only_list(pg, dst, gather_list, "gather", "destination")
    stacked = _stacked(pg, _array(tensor), "gather") if pg.size() > 1 else _array(tensor)[None]
    if pg.rank() == dst:
        for out, value in zip(gather_list, stacked):
            _write(out, value)
    return _done(async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    pg = resolve(group)
    src = _destination(pg, src, group_src)
    _check_root_only_list(pg, src, scatter_list, "scatter", "source")
    if pg.rank() == src:
        stack = np.stack([_array(t).astype(_array(tensor).dtype, copy=False) for t in scatter_list])
    else:
        stack = np.zeros((pg.size(),) + tuple(tensor.shape), _array(tensor).dtype)
    if pg.size() > 1:
        _world_only(pg, "scatter")
        stack = pg.transport.broadcast(stack, src)
    _write(tensor, stack[pg.rank()])
    return _done(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    pg = resolve(group)
    if output_split_sizes or input_split_sizes:
        sizes = set(output_split_sizes or []) | set(input_split_sizes or [])
        if len(sizes) > 1:
            raise NotImplementedError("torch.distributed.all_to_all_single with unequal split sizes is not "
                                      f"supported on MindSpore {DEVICE_TARGET}")
    n = pg.size()
    chunks = _array(input).reshape((n, -1) + tuple(input.shape[1:]))
    stacked = _stacked(pg, chunks, "all_to_all_single") if n > 1 else chunks[None]
    _write(output, stacked[:, pg.rank()])  # from every rank i, its chunk for this rank
    return _done(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    pg = resolve(group)
    shapes = {tuple(t.shape) for t in list(output_tensor_list) + list(input_tensor_list)}
    if len(shapes) > 1:
        raise NotImplementedError("torch.distributed.all_to_all with tensors of different shapes is not supported "
                                  f"on MindSpore {DEVICE_TARGET}")
    chunks = np.stack([_array(t) for t in input_tensor_list])
    stacked = _stacked(pg, chunks, "all_to_all") if pg.size() > 1 else chunks[None]
    for i, out in enumerate(output_tensor_list):
        _write(out, stacked[i, pg.rank()])
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Every rank waits until all have arrived: a one-element all-reduce (MindSpore's CPU Barrier has no kernel)."""
    pg = resolve(group)
    if pg.size() > 1:
        pg.transport.all_reduce_sum(np.zeros(1, np.float32))
    return _done(async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    raise NotImplementedError("torch.distributed.monitored_barrier is not supported on MindSpore: its collectives "
                              "cannot name the ranks that failed to arrive; use torch.distributed.barrier")


def _point_to_point(name):
    def unsupported(*args, **kwargs):
        raise NotImplementedError(f"torch.distributed.{name} is not supported on MindSpore {DEVICE_TARGET}: "
                                  "MindSpore's CPU Send/Receive have no kernel; use a collective")

    unsupported.__name__ = name
    return unsupported


send, recv, isend, irecv, batch_isend_irecv = (_point_to_point(n) for n in
                                              ("send", "recv", "isend", "irecv", "batch_isend_irecv"))


def _destination(pg, global_rank, group_rank):
    """The rank within `pg` of a src/dst given as a global rank or (group_src/group_dst) as a group rank."""
    if group_rank is not None:
        return group_rank
    return pg.ranks.index(0 if global_rank is None else global_rank)
