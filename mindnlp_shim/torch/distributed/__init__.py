"""torch.distributed: not provided yet; a single process runs without it, as torch does when it is unavailable.

`is_available()` answers False, which is how upstream libraries learn to take their single-process paths.
The names they import at module level exist; calling a collective raises NotImplementedError.
"""
import enum

from .. import _stand_ins

is_available = _stand_ins.answer(False, "mindnlp-shim does not implement torch.distributed collectives yet.")
is_initialized = _stand_ins.answer(False, "No process group can be initialised (see is_available).")
is_torchelastic_launched = _stand_ins.answer(False, "Not launched by torchrun.")


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


class group:
    WORLD = None


GroupMember = group
ProcessGroup = _stand_ins.placeholder_type("torch.distributed.ProcessGroup")
Backend = _stand_ins.placeholder_type("torch.distributed.Backend")

_REASON = "torch.distributed is not implemented by mindnlp-shim (run single-process)"
for _name in ("init_process_group", "destroy_process_group", "barrier", "all_reduce", "all_gather",
              "all_gather_into_tensor", "all_to_all_single", "all_gather_object", "broadcast", "broadcast_object_list",
              "reduce", "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter", "send", "recv", "new_group",
              "get_process_group_ranks", "get_world_size", "get_rank", "get_backend", "monitored_barrier",
              "gather_object", "all_to_all"):
    globals()[_name] = _stand_ins.unsupported(f"distributed.{_name}", _REASON)
del _name
from . import tensor  # noqa: E402,F401  (peft reads torch.distributed.tensor)
