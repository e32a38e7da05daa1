"""torch.optim.SparseAdam: Adam for parameters whose gradients are sparse tensors.

MindSpore tensors have no sparse layout here, so every gradient the shim produces is dense; SparseAdam's step
then raises torch's own error for a dense gradient, and its constructor checks what torch's checks."""
from . import _checks
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _checks.check_lr(lr)
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _checks.check_betas(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        loss = self._call_closure(closure)
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
