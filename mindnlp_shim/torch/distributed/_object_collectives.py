"""Collectives of picklable Python objects: each object is pickled into bytes that travel through the tensor
collectives (lengths first, then the bytes padded to the longest), and is unpickled on arrival, as torch does.
Like torch's, these unpickle what other ranks send: use them only between processes that trust each other."""
import io
import pickle

import numpy as np

from ._collectives import _world_only
from ._process_group import resolve


def _to_bytes(obj):
    buffer = io.BytesIO()
    pickle.Pickler(buffer).dump(obj)
    return np.frombuffer(buffer.getvalue(), np.uint8)


def _gather_bytes(pg, payload):
    """Every rank's byte array, in rank order."""
    _world_only(pg, "object collectives")
    lengths = pg.transport.all_gather(np.array([payload.size], np.int64)).reshape(-1)
    padded = np.zeros(int(lengths.max()), np.uint8)
    padded[:payload.size] = payload
    stacked = pg.transport.all_gather(padded)
    return [stacked[i, :int(n)].tobytes() for i, n in enumerate(lengths)]


def all_gather_object(object_list, obj, group=None):
    pg = resolve(group)
    if len(object_list) != pg.size():
        raise ValueError(f"torch.distributed.all_gather_object: object_list has {len(object_list)} entries for a "
                         f"group of {pg.size()} ranks")
    if pg.size() == 1:
        object_list[0] = pickle.loads(_to_bytes(obj).tobytes())
        return
    for i, data in enumerate(_gather_bytes(pg, _to_bytes(obj))):
        object_list[i] = pickle.loads(data)


def gather_object(obj, object_gather_list=None, dst=0, group=None, group_dst=None):
    pg = resolve(group)
    dst = group_dst if group_dst is not None else pg.ranks.index(dst)
    gathered = [None] * pg.size()
    all_gather_object(gathered, obj, group)
    if pg.rank() == dst:
        object_gather_list[:] = gathered


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    pg = resolve(group)
    src = group_src if group_src is not None else pg.ranks.index(0 if src is None else src)
    if pg.size() == 1:
        return
    _world_only(pg, "broadcast_object_list")
    payload = _to_bytes(list(object_list)) if pg.rank() == src else np.zeros(0, np.uint8)
    length = int(pg.transport.broadcast(np.array([payload.size], np.int64), src)[0])
    if pg.rank() != src:
        payload = np.zeros(length, np.uint8)
    received = pickle.loads(pg.transport.broadcast(payload, src).tobytes())
    object_list[:] = received


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0, group=None,
                        group_src=None):
    pg = resolve(group)
    src_rank = group_src if group_src is not None else pg.ranks.index(src)
    holder = [list(scatter_object_input_list) if pg.rank() == src_rank else None]
    broadcast_object_list(holder, src=pg.ranks[src_rank], group=group)
    scatter_object_output_list[0] = holder[0][pg.rank()]
