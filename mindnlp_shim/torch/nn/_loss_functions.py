"""torch.nn.functional losses beyond functional.py's: Poisson and Gaussian NLL, hinge/margin/embedding losses and
the triplet losses. Compositions of the shim's ops (gradients from them); index targets are read on the host to
build masks, since no gradient flows into them."""
import math

import numpy as np

from ... import torch
from ._distance_functions import pairwise_distance


def _F():
    from . import functional

    return functional


def _reduced(loss, size_average, reduce, reduction):
    F = _F()
    return F._reduce(loss, F._legacy_reduction(size_average, reduce, reduction))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        # Stirling's approximation of log(target!), for targets above 1
        stirling = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss = loss + torch.where(target > 1, stirling, torch.zeros_like(stirling))
    return _reduced(loss, size_average, reduce, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)):
        var = torch.full_like(input, float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # clamped to eps without changing the gradient (torch clamps a copy under no_grad); a select, since the
    # shim's clamp rounds a float64 bound to float32
    floor = torch.full_like(var, eps)
    var = var + (torch.where(var < floor, floor, var) - var).detach()
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    zeros = torch.zeros_like(input)
    margin_part = torch.where(target != 1, (margin - input).clamp(min=0), zeros)
    self_part = torch.where(target != -1, input, zeros)
    return _reduced(margin_part + self_part, size_average, reduce, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    loss = torch.log1p(torch.exp(-target * input))
    return _reduced(loss, size_average, reduce, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    F = _F()
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduced(loss, size_average, reduce, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    eps = 1e-12
    dim = input1.dim() - 1
    dot = (input1 * input2).sum(dim)
    norm1 = (input1 * input1).sum(dim) + eps
    norm2 = (input2 * input2).sum(dim) + eps
    cos = dot / torch.sqrt(norm1 * norm2)
    zeros = torch.zeros_like(cos)
    positive = torch.where(target == 1, 1 - cos, zeros)
    negative = torch.where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduced(positive + negative, size_average, reduce, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(-1)
    classes = x.shape[1]
    picked = x.gather(1, t.reshape(-1, 1))
    margins = (margin - picked + x).clamp(min=0)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight.index_select(0, t).reshape(-1, 1)
    other = torch.ones_like(x).scatter(1, t.reshape(-1, 1), 0.0)  # the target class itself does not count
    loss = (margins * other).sum(1) / classes
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduced(loss, size_average, reduce, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    x = input if input.dim() == 2 else input.reshape(1, -1)
    labels = target.detach().numpy().reshape(x.shape)
    classes = x.shape[1]
    # per sample: how often each class is listed before the first -1, and which classes are targets at all
    counts = np.zeros(labels.shape, np.float64)
    for row, listed in enumerate(labels):
        for label in listed:
            if label < 0:
                break
            counts[row, label] += 1
    not_target = torch.tensor((counts == 0).astype(np.float64), dtype=x.dtype)
    listed = torch.tensor(counts, dtype=x.dtype)
    pairs = (1 - x.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0)  # [n, j, i]: 1 - (x_j - x_i)
    loss = (pairs * listed.unsqueeze(2) * not_target.unsqueeze(1)).sum((1, 2)) / classes
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduced(loss, size_average, reduce, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = (margin + d_pos - d_neg).clamp(min=0)
    return _reduced(loss, size_average, reduce, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = torch.minimum(d_neg, distance(positive, negative))
    loss = (margin + d_pos - d_neg).clamp(min=0)
    return _F()._reduce(loss, reduction)
