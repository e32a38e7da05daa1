"""torch.optim.AdamW: Adam with decoupled weight decay (`p *= 1 - lr*weight_decay` before the Adam update).

As in torch 2.x it is Adam with `decoupled_weight_decay=True`, the default weight decay 1e-2, and the same
state and state_dict format. `fused=True` (what transformers' default `adamw_torch_fused` asks for) and
`foreach=True` are accepted and run the same fastest path: NumPy in place on zero-copy views on the CPU
target, the fused `AdamWeightDecay` kernel with torch's bias correction folded in on GPU/Ascend.
"""
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
