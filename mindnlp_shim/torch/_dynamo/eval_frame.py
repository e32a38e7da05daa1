"""torch._dynamo.eval_frame: OptimizedModule never exists (torch.compile returns the module itself)."""
from .. import _stand_ins

OptimizedModule = _stand_ins.placeholder_type("torch._dynamo.eval_frame.OptimizedModule")
