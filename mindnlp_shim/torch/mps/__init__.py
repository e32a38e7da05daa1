"""torch.mps: Apple GPUs are never present under MindSpore."""
from .. import _stand_ins

is_available = _stand_ins.answer(False, "MindSpore has no Apple MPS target.")
device_count = _stand_ins.answer(0, "No MPS devices exist.")
