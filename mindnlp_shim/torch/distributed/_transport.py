"""The MindSpore collectives every torch collective is built from: all-gather, broadcast and a summing all-reduce.

Measured on MindSpore 2.10's CPU backend (MCCL, 2 and 3 processes on loopback):
- `ops.AllReduce` sums float32/float16 only; MAX/MIN/PROD raise "only support reduce sum on CPU"; integer,
  float64 and bool inputs fail kernel selection. It works on subgroups.
- `ops.AllGather` and `ops.Broadcast` take float16/32/64 and int16/32/64 (not bool, int8, uint8, bfloat16,
  nor a 0-d tensor) and only on the world group.
- `ops.Barrier`, `ops.ReduceScatter`, `ops.AlltoAll`, `ops.Send`/`ops.Receive` and all of
  `mindspore.communication.comm_func` have no CPU kernel.
So every other collective is composed from these three, on NumPy arrays: dtypes the kernels lack travel in a
wider carrier dtype that holds them exactly (bool/int8/uint8 as int16; bfloat16 tensors come as float32).
GPU and Ascend have the same three primitives; the compositions are correct there too (untested here: no such
machine was available), only not the fastest choice.
"""
import numpy as np
import mindspore
from mindspore import ops

_CARRIER = {np.dtype(np.bool_): np.int16, np.dtype(np.int8): np.int16, np.dtype(np.uint8): np.int16,
            np.dtype(np.uint16): np.int32, np.dtype(np.uint32): np.int64}
_NATIVE_SUM = (np.dtype(np.float32), np.dtype(np.float16))
_all_gather_ops = {}
_all_reduce_ops = {}
_broadcast_ops = {}


def _to_wire(array):
    """A contiguous 1-d MindSpore tensor of `array` (in its carrier dtype), or None for an empty array."""
    flat = np.ascontiguousarray(array).reshape(-1)
    if flat.size == 0:
        return None
    carrier = _CARRIER.get(flat.dtype)
    if carrier is not None:
        flat = flat.astype(carrier)
    return mindspore.Tensor.from_numpy(flat)


def _from_wire(tensor, dtype, shape):
    return tensor.asnumpy().astype(dtype, copy=False).reshape(shape)


def all_gather(array, world_size):
    """Every rank's `array` (all of the same shape and dtype), stacked: shape (world_size, *array.shape)."""
    array = np.asarray(array)
    wire = _to_wire(array)
    if wire is None:
        return np.empty((world_size,) + array.shape, array.dtype)
    op = _all_gather_ops.get(None) or _all_gather_ops.setdefault(None, ops.AllGather())
    return _from_wire(op(wire), array.dtype, (world_size,) + array.shape)


def broadcast(array, src):
    """Rank `src`'s `array` (every rank passes an array of the same shape and dtype)."""
    array = np.asarray(array)
    wire = _to_wire(array)
    if wire is None:
        return np.empty(array.shape, array.dtype)
    op = _broadcast_ops.get(src) or _broadcast_ops.setdefault(src, ops.Broadcast(src))
    return _from_wire(op((wire,))[0], array.dtype, array.shape)


def can_sum_natively(dtype):
    return np.dtype(dtype) in _NATIVE_SUM


def all_reduce_sum(array, group_name=None):
    """The elementwise sum over the group's ranks, by MindSpore's AllReduce (float32/float16 only)."""
    array = np.asarray(array)
    wire = _to_wire(array)
    if wire is None:
        return array.copy()
    op = _all_reduce_ops.get(group_name)
    if op is None:
        op = _all_reduce_ops[group_name] = ops.AllReduce(group=group_name) if group_name else ops.AllReduce()
    return _from_wire(op(wire), array.dtype, array.shape)


class MindSporeTransport:
    """A process group's transport on MindSpore's cluster: the functions above, on the world group (`group_name`
    None) or a MindSpore communication group (sums only, see the module's docstring)."""
    gathers_on_subgroups = False

    def __init__(self, group_name, size):
        self.group_name, self.size = group_name, size

    def all_gather(self, array):
        return all_gather(array, self.size)

    def broadcast(self, array, src):
        return broadcast(array, src)

    def sums_natively(self, dtype):
        return can_sum_natively(dtype)

    def all_reduce_sum(self, array):
        return all_reduce_sum(array, self.group_name)
