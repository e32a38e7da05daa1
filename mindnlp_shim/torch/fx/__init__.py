"""torch.fx: symbolic tracing does not exist here; Proxy objects never appear."""
from .. import _stand_ins

Proxy = _stand_ins.placeholder_type("torch.fx.Proxy")
GraphModule = _stand_ins.placeholder_type("torch.fx.GraphModule")
wrap = _stand_ins.compiler_hint
symbolic_trace = _stand_ins.unsupported("fx.symbolic_trace", "torch.fx tracing does not exist on MindSpore")
