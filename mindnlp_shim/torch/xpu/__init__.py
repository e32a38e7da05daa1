"""torch.xpu: Intel GPUs are never present under MindSpore."""
from .. import _stand_ins

is_available = _stand_ins.answer(False, "MindSpore has no Intel XPU target.")
is_current_stream_capturing = _stand_ins.answer(False, "No XPU streams exist.")
device_count = _stand_ins.answer(0, "No XPU devices exist.")
