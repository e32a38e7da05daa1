"""torch.compiler: queries and hints for a graph compiler that does not run here."""
from .. import _stand_ins

is_compiling = _stand_ins.is_compiling
is_dynamo_compiling = _stand_ins.is_compiling
is_exporting = _stand_ins.answer(False, _stand_ins.NO_TORCH_COMPILER)
disable = _stand_ins.compiler_hint
allow_in_graph = _stand_ins.compiler_hint
assume_constant_result = _stand_ins.compiler_hint
reset = _stand_ins.answer(None, _stand_ins.NO_TORCH_COMPILER)


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """Sets the compiler's stance: a call, context manager or decorator (see _stand_ins.compiler_setting)."""
    return _stand_ins.compiler_setting(stance, skip_guard_eval_unsafe=skip_guard_eval_unsafe,
                                       force_backend=force_backend)


set_stance._compiler_setting_doc = _stand_ins.compiler_setting._compiler_setting_doc
