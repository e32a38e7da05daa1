"""torch._dynamo: no torch graph compiler runs here, so its queries answer "not compiling"."""
from .. import _stand_ins
from . import eval_frame  # noqa: F401

is_compiling = _stand_ins.is_compiling
allow_in_graph = _stand_ins.compiler_hint
assume_constant_result = _stand_ins.compiler_hint
disable = _stand_ins.compiler_hint
mark_static_address = _stand_ins.answer(None, _stand_ins.NO_TORCH_COMPILER)
mark_dynamic = _stand_ins.answer(None, _stand_ins.NO_TORCH_COMPILER)
reset = _stand_ins.answer(None, _stand_ins.NO_TORCH_COMPILER)
set_stance = _stand_ins.compiler_setting


class _Config:
    cache_size_limit = 8
    accumulated_cache_size_limit = 256
    suppress_errors = False
    capture_scalar_outputs = False


config = _Config()
