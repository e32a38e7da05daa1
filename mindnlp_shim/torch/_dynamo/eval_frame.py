"""torch._dynamo.eval_frame.OptimizedModule: what torch.compile returns for a module.

torch wraps the module: the wrapper holds it as the submodule `_orig_mod`, calls it, reads attributes it lacks
from it, and its state_dict keys carry the `_orig_mod.` prefix; libraries unwrap it by that name (accelerate's
extract_model_from_parallel, transformers' Trainer). The same wrapper here runs the module eagerly: no graph
compiler exists under mindnlp-shim."""
from ..nn.modules.module import Module


class OptimizedModule(Module):
    def __init__(self, mod, dynamo_ctx=None):
        super().__init__()
        self._orig_mod = mod
        self.dynamo_ctx = dynamo_ctx

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":
                raise
            return getattr(self._modules["_orig_mod"], name)

    def __reduce__(self):  # (as torch: the original module pickles, the wrapper is rebuilt around it)
        return type(self), (self._orig_mod,)
