"""torch.compiler: queries and hints for a graph compiler that does not run here."""
from .. import _stand_ins

is_compiling = _stand_ins.is_compiling
is_dynamo_compiling = _stand_ins.is_compiling
is_exporting = _stand_ins.answer(False, _stand_ins.NO_TORCH_COMPILER)
disable = _stand_ins.compiler_hint
allow_in_graph = _stand_ins.compiler_hint
assume_constant_result = _stand_ins.compiler_hint
reset = _stand_ins.answer(None, _stand_ins.NO_TORCH_COMPILER)
