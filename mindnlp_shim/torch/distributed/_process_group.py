"""Process groups: the default (world) group and subgroups, each with the transport its collectives use.

Two transports (each gives the three primitives the collectives are composed from):
- MindSpore's cluster (`_transport.MindSporeTransport`), formed by `communication.init` in processes started by
  `python -m mindnlp.run`/torchrun or msrun, or by any launcher that sets torch's variables (env://, tcp://);
- a torch Store (`_store_transport.StoreTransport`) for `init_method="file://..."`, an explicit `store=`, and
  processes forked off a MindSpore process (accelerate's `debug_launcher`, `torch.multiprocessing` with
  start_method="fork"), where MindSpore's cluster does not form (measured: `init()` times out); there env:// and
  tcp:// rendezvous on a TCPStore at MASTER_ADDR:MASTER_PORT, as torch does.

A torch backend name chooses nothing on MindSpore: each device target has one collective library (CPU: MCCL,
GPU: NCCL, Ascend: HCCL), which `init()` picks. The name given is kept and answered by `get_backend`, as torch does.
"""
import datetime
import os
import urllib.parse

from .. import _runtime
from .._runtime import DEVICE_TARGET
from . import _cluster_env
from ._file_store import FileStore
from ._store_transport import StoreTransport
from ._tcp_store import TCPStore
from ._transport import MindSporeTransport

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
    """A set of ranks that run collectives together through `transport` (None where one process needs no
    communication, or this process is not a member). `group_name` is MindSpore's communication group."""

    def __init__(self, ranks, group_name, backend, rank_in_group, transport=None, store=None):
        self._ranks = list(ranks)
        self.group_name = group_name
        self._backend = backend
        self._rank = rank_in_group
        self.transport = transport
        self.store = store  # (held for the group's life, as torch's groups hold theirs: a FileStore released
        #                     by every rank removes its file)

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
    store_groups = 0        # store-based default groups formed in this process (each has its own key space)


_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # torch's default for gloo


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
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = host, port.split("/")[0].split("?")[0]
        return
    raise NotImplementedError(f"torch.distributed.init_process_group(init_method={init_method!r}) is not "
                              "supported on MindSpore: use env://, tcp://host:port or file:///path")


def _url_ranks(init_method, rank, world_size):
    """rank and world_size given as the URL's query (`file:///p?rank=0&world_size=2`), as torch reads them."""
    query = urllib.parse.parse_qs(urllib.parse.urlparse(init_method).query)
    if "rank" in query:
        rank = int(query["rank"][0])
    if "world_size" in query:
        world_size = int(query["world_size"][0])
    return rank, world_size


def _forked_off_mindspore():
    return os.getpid() != _runtime.MINDSPORE_PID


def _rendezvous_store(init_method, rank, world_size, timeout):
    """The store a store-based group forms on, for file://, and for env:// or tcp:// in a forked process."""
    if init_method.startswith("file://"):
        path = urllib.parse.unquote(urllib.parse.urlparse(init_method).path)
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store
    _apply_init_method(init_method)
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if not addr or not port:
        raise ValueError("Error initializing torch.distributed using env:// rendezvous: environment variable "
                         "MASTER_ADDR and MASTER_PORT expected, but not set")
    # (under torchrun the agent serves the store at MASTER_PORT: every rank is its client)
    serves = rank == 0 and os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True"
    return TCPStore(addr, int(port), world_size, serves, timeout)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    if _State.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    name = _requested_backend(backend)
    if store is not None:
        if rank is None or rank < 0:
            raise ValueError("rank must be non-negative if using store")
        if world_size is None or world_size <= 0:
            raise ValueError("world_size must be positive if using store")
    elif init_method is not None:
        if not init_method.startswith(("env://", "tcp://", "file://")):
            _apply_init_method(init_method)  # (raises: an unknown rendezvous)
        rank, world_size = _url_ranks(init_method, rank, world_size)
        if init_method.startswith("file://"):
            for what, value in (("rank", rank), ("world size", world_size)):
                if value in (None, -1):
                    raise ValueError(f"Error initializing torch.distributed using file:// rendezvous: {what} "
                                     "parameter missing")
    on_store = store is not None or (init_method or "").startswith("file://") or (
        _forked_off_mindspore() and not _cluster_env.launched_by_mindspore())
    world_size = world_size if world_size not in (None, -1) else (
        _int_env("WORLD_SIZE") or _int_env("MS_WORKER_NUM") or 1)
    rank = rank if rank not in (None, -1) else _int_env("RANK")
    if rank is None:
        rank = _int_env("MS_NODE_ID") if _cluster_env.launched_by_mindspore() else 0
    if world_size == 1 and not _cluster_env.launched_by_mindspore():
        # one process: every collective is the identity; no cluster to form
        _State.default = ProcessGroup([0], None, Backend(name), 0, store=store)
    elif on_store:
        _State.default = _store_group(init_method or "env://", store, rank, world_size, name, timeout)
    else:
        _State.default = _mindspore_group(init_method, rank, world_size, name, timeout)
    GroupMember.WORLD = _State.default
    os.environ.setdefault("RANK", str(_State.default.rank()))
    os.environ.setdefault("WORLD_SIZE", str(_State.default.size()))
    return None


def _store_group(init_method, store, rank, world_size, name, timeout):
    if not 0 <= rank < world_size:
        raise ValueError(f"torch.distributed.init_process_group: rank {rank} is not in [0, {world_size})")
    timeout = timeout or _DEFAULT_TIMEOUT
    if store is None:
        store = _rendezvous_store(init_method, rank, world_size, timeout)
    _State.store_groups += 1
    transport = StoreTransport(store, rank, world_size, f"default_pg{_State.store_groups}/", timeout)
    transport.join(timeout)
    return ProcessGroup(range(world_size), None, Backend(name), rank, transport, store)


def _mindspore_group(init_method, rank, world_size, name, timeout):
    from mindspore.communication import get_group_size, get_rank, init

    _apply_init_method(init_method)
    if isinstance(timeout, datetime.timedelta):
        os.environ.setdefault("MS_TOPO_TIMEOUT", str(int(timeout.total_seconds())))
    if not _State.uses_mindspore:  # MindSpore's cluster forms once per process (see destroy_process_group)
        if not _cluster_env.launched_by_mindspore():
            _State.scheduler = _cluster_env.adopt_torch_env(rank, world_size)
        init()
    ms_rank, ms_size = get_rank(), get_group_size()
    if ms_size != world_size or ms_rank != rank:
        raise RuntimeError(f"MindSpore formed a cluster where this process is rank {ms_rank} of {ms_size}, "
                           f"but torch's variables say rank {rank} of {world_size}")
    _State.uses_mindspore = True
    return ProcessGroup(range(ms_size), None, Backend(name), ms_rank, MindSporeTransport(None, ms_size))


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
    """Every rank calls new_group in the same order (as torch requires); members get a MindSpore group, or on a
    store-based world a key space of their own with `timeout` (default: the world's)."""
    world = default_group()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    on_store = isinstance(world.transport, StoreTransport)
    if ranks == world.ranks and not on_store:
        return world
    _State.subgroup_count += 1
    name = f"torch_group_{_State.subgroup_count}"
    me = world.rank()
    if me not in ranks:
        return ProcessGroup(ranks, name, world._backend, -1)  # non-members hold a group they cannot use
    if on_store:
        transport = world.transport.subgroup(name, ranks.index(me), len(ranks), timeout)
    elif _State.uses_mindspore:
        from mindspore.communication import create_group

        create_group(name, ranks)
        transport = MindSporeTransport(name, len(ranks))
    else:
        transport = None
    return ProcessGroup(ranks, name, world._backend, ranks.index(me), transport)
