"""torch.distributed on MindSpore's communication library (`mindspore.communication`), or on a torch Store.

The cluster is MindSpore's dynamic cluster: a scheduler process and one worker process per rank, started by
`python -m mindnlp.run` / `torchrun` (see `run.py`) or by MindSpore's `msrun`. `init_process_group` joins it;
the collectives are built on MindSpore's AllReduce, AllGather and Broadcast (see `_transport` for what each
device target runs). A group formed on a FileStore, an explicit store, or in processes forked off a MindSpore
process runs the same collectives through the store (`_store_transport`). What neither can do (point-to-point,
ReduceOp.PREMUL_SUM, the gather-based collectives on subgroups of MindSpore's cluster) raises
NotImplementedError naming it.
"""
from ._collectives import (ReduceOp, Work, all_gather, all_gather_into_tensor, all_reduce, all_to_all,  # noqa: F401
                           all_to_all_single, barrier, batch_isend_irecv, broadcast, gather, irecv, isend,
                           monitored_barrier, recv, reduce, reduce_scatter, reduce_scatter_tensor, scatter, send)
from ._object_collectives import (all_gather_object, broadcast_object_list, gather_object,  # noqa: F401
                                  scatter_object_list)
from ._stores import (DistBackendError, DistError, DistNetworkError, DistStoreError, HashStore,  # noqa: F401
                      PrefixStore, Store)
from ._file_store import FileStore  # noqa: F401
from ._tcp_store import TCPStore  # noqa: F401
from ._process_group import (Backend, GroupMember, ProcessGroup, destroy_process_group, get_backend,  # noqa: F401
                             get_global_rank, get_group_rank, get_process_group_ranks, get_rank, get_world_size,
                             group, init_process_group, is_available, is_initialized, is_torchelastic_launched,
                             new_group)

_all_gather_base = all_gather_into_tensor
_reduce_scatter_base = reduce_scatter_tensor


def is_gloo_available():
    return True


def is_nccl_available():
    from .._runtime import DEVICE_TARGET

    return DEVICE_TARGET == "GPU"


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_backend_available(backend):
    return str(backend).lower() in ("gloo", "nccl", "hccl")


from . import tensor  # noqa: E402,F401  (peft reads torch.distributed.tensor)
