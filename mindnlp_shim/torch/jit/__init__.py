"""torch.jit: TorchScript does not exist here; tracing/scripting queries answer False."""
from .. import _stand_ins

is_tracing = _stand_ins.answer(False, _stand_ins.NO_TORCH_COMPILER)
is_scripting = _stand_ins.answer(False, _stand_ins.NO_TORCH_COMPILER)
ignore = unused = export = _stand_ins.compiler_hint
script = trace = trace_module = _stand_ins.unsupported("jit.script", "TorchScript does not exist on MindSpore")
ScriptModule = _stand_ins.placeholder_type("torch.jit.ScriptModule")
ScriptFunction = _stand_ins.placeholder_type("torch.jit.ScriptFunction")
Final = object


def _overload_method(fn):
    return fn
