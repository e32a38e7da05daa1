"""What the Adam variants with optional decoupled weight decay (NAdam, RAdam) share: their hyperparameters read
from a group, and the first half of their rule (weight decay, then Adam's two moment estimates)."""
from . import _storage


def adam_hyper(group):
    """Keyword arguments of `_update` common to NAdam and RAdam, from one parameter group."""
    beta1, beta2 = (_storage.as_float(b) for b in group["betas"])
    return dict(lr=_storage.as_float(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
                weight_decay=group["weight_decay"], decoupled=group["decoupled_weight_decay"],
                maximize=group["maximize"])


def decay_and_moments(m, p, g, s, *, lr, beta1, beta2, weight_decay, decoupled):
    """Weight decay (decoupled: p shrinks by lr * wd; otherwise wd * p joins the gradient), then
    exp_avg = lerp(exp_avg, g, 1 - beta1) and exp_avg_sq = beta2 exp_avg_sq + (1 - beta2) g^2, in the rule's math
    namespace `m`; returns (p, g, exp_avg, exp_avg_sq) with p and g after the decay."""
    if weight_decay != 0:
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    exp_avg = m.lerp(s["exp_avg"], g, 1 - beta1)
    exp_avg_sq = s["exp_avg_sq"] * beta2 + (1 - beta2) * g * g
    return p, g, exp_avg, exp_avg_sq
