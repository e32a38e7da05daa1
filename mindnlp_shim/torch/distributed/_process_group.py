"""Process groups: the default (world) group formed by MindSpore's `communication.init`, and subgroups.

A torch backend name chooses nothing on MindSpore: each device target has one collective library (CPU: MCCL,
GPU: NCCL, Ascend: HCCL), which `init()` picks. The name given is kept and answered by `get_backend`, as torch does.
"""
import datetime
import os

from .._runtime import DEVICE_TARGET
from . import _cluster_env

_cluster_env.export_torch_env_under_msrun()

_TORCH_BACKEND_OF_TARGET = {"CPU": "gloo", "GPU": "nccl", "Ascend": "hccl"}
_ACCEPTED_BACKENDS = ("gloo", "nccl", "hccl", "mccl", "cpu:gloo,cuda:nccl", "cuda:nccl,cpu:gloo")


class Backend(str):
    """A backend name, lower-cased (torch.distributed.Backend)."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    HCCL = "hccl"
    MPI = "mpi"
    UCC = "ucc"
    XCCL = "xccl"
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL, "npu": HCCL}
    backend_list = [UNDEFINED, GLOO, NCCL, HCCL, MPI, UCC, XCCL]

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())


class ProcessGroup:
    """A set of ranks that run collectives together. `name` is MindSpore's communication group."""

    def __init__(self, ranks, group_name, backend, rank_in_group):
        self._ranks = list(ranks)
        self.group_name = group_name
        self._backend = backend
        self._rank = rank_in_group

    def rank(self):
        return self._rank

    def size(self):
        return len(self._ranks)

    def name(self):
        return self.group_name

    @property
    def ranks(self):
        return list(self._ranks)

    def __repr__(self):
        return f"ProcessGroup(ranks={self._ranks}, backend={self._backend!r})"


class group:
    """`torch.distributed.group.WORLD`: the default group once initialized, None before."""
    WORLD = None


GroupMember = group


class _State:
    default = None          # the world ProcessGroup
    scheduler = None        # the scheduler process this rank started (only when adopting torch's variables)
    uses_mindspore = False  # False for a one-process group, which needs no communication
    subgroup_count = 0


def is_available():
    return True


def is_initialized():
    return _State.default is not None


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def default_group():
    if _State.default is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _State.default


def resolve(group):
    """The ProcessGroup a collective runs on (None: the default one)."""
    return default_group() if group is None else group


def _requested_backend(backend):
    if backend is None:
        return _TORCH_BACKEND_OF_TARGET.get(DEVICE_TARGET, "gloo")
    name = str(backend).lower()
    if name not in _ACCEPTED_BACKENDS:
        raise NotImplementedError(
            f"torch.distributed backend {backend!r} is not supported on MindSpore {DEVICE_TARGET}: collectives go "
            f"through MindSpore's communication library of the device target; use one of 'gloo', 'nccl', 'hccl'")
    return name


def _int_env(name):
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else None


def _apply_init_method(init_method):
    if init_method in (None, "env://"):
        return
    if init_method.startswith("tcp://"):
        host, _, port = init_method[len("tcp://"):].partition(":")
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = host, port.split("/")[0]
        return
    raise NotImplementedError(f"torch.distributed.init_process_group(init_method={init_method!r}) is not "
                              "supported on MindSpore: use env:// or tcp://host:port")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    if _State.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and world_size != 1:
        # (a one-process group needs no rendezvous: peft's tests form one on a HashStore)
        raise NotImplementedError("torch.distributed.init_process_group(store=...) with more than one process is "
                                  "not supported on MindSpore: the cluster is formed by MindSpore's scheduler, not "
                                  "a torch Store")
    name = _requested_backend(backend)
    _apply_init_method(init_method)
    if isinstance(timeout, datetime.timedelta):
        os.environ.setdefault("MS_TOPO_TIMEOUT", str(int(timeout.total_seconds())))
    world_size = world_size if world_size not in (None, -1) else (
        _int_env("WORLD_SIZE") or _int_env("MS_WORKER_NUM") or 1)
    rank = rank if rank not in (None, -1) else _int_env("RANK")
    if rank is None:
        rank = _int_env("MS_NODE_ID") if _cluster_env.launched_by_mindspore() else 0
    if world_size == 1 and not _cluster_env.launched_by_mindspore():
        # one process: every collective is the identity; no cluster to form
        _State.default = ProcessGroup([0], None, Backend(name), 0)
    else:
        from mindspore.communication import get_group_size, get_rank, init

        if not _State.uses_mindspore:  # MindSpore's cluster forms once per process (see destroy_process_group)
            if not _cluster_env.launched_by_mindspore():
                _State.scheduler = _cluster_env.adopt_torch_env(rank, world_size)
            init()
        ms_rank, ms_size = get_rank(), get_group_size()
        if ms_size != world_size or ms_rank != rank:
            raise RuntimeError(f"MindSpore formed a cluster where this process is rank {ms_rank} of {ms_size}, "
                               f"but torch's variables say rank {rank} of {world_size}")
        _State.uses_mindspore = True
        _State.default = ProcessGroup(range(ms_size), None, Backend(name), ms_rank)
    GroupMember.WORLD = _State.default
    os.environ.setdefault("RANK", str(_State.default.rank()))
    os.environ.setdefault("WORLD_SIZE", str(_State.default.size()))
    return None


def destroy_process_group(group=None):
    """Forget the default group (a subgroup needs nothing). MindSpore's cluster itself stays formed until the
    process exits; a later init_process_group in the same process joins it again."""
    if group is not None and group is not _State.default:
        return
    _State.default = None
    GroupMember.WORLD = None
    _State.subgroup_count = 0


def get_rank(group=None):
    """This process's rank in `group` (-1 where it is not a member)."""
    return resolve(group).rank()


def get_world_size(group=None):
    return resolve(group).size()


def get_backend(group=None):
    return resolve(group)._backend


def get_process_group_ranks(group):
    return resolve(group).ranks


def get_global_rank(group, group_rank):
    return resolve(group).ranks[group_rank]


def get_group_rank(group, global_rank):
    ranks = resolve(group).ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """Every rank calls new_group in the same order (as torch requires); members get a MindSpore group."""
    world = default_group()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    if ranks == world.ranks:
        return world
    _State.subgroup_count += 1
    name = f"torch_group_{_State.subgroup_count}"
    me = world.rank()
    if me not in ranks:
        return ProcessGroup(ranks, name, world._backend, -1)  # non-members hold a group they cannot use
    if _State.uses_mindspore:
        from mindspore.communication import create_group

        create_group(name, ranks)
    return ProcessGroup(ranks, name, world._backend, ranks.index(me))
