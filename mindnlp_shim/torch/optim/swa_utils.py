"""torch.optim.swa_utils: weight averaging (SWA and EMA) of a model's parameters, the SWA learning-rate schedule,
and recomputing BatchNorm statistics for the averaged weights.

AveragedModel keeps a deep copy of the model and `n_averaged`; `update_parameters(model)` folds the model's
current parameters in: the running mean avg + (p - avg) / (n + 1) by default, or `avg_fn(avg, p, n)` /
`multi_avg_fn(avg_list, p_list, n)`."""
import copy
import itertools
import math

from ... import torch
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_multi_avg_fn(decay=0.999):
    """In place on lists: avg = lerp(avg, p, 1 - decay)."""

    def ema_update(ema_param_list, current_param_list, _):
        for ema, current in zip(ema_param_list, current_param_list):
            ema.lerp_(current, 1 - decay)

    return ema_update


def get_swa_multi_avg_fn():
    """In place on lists: avg = avg + (p - avg) / (n + 1), the running mean."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        weight = 1.0 / (float(num_averaged) + 1)
        for averaged, current in zip(averaged_param_list, current_param_list):
            if averaged.is_floating_point():
                averaged.lerp_(current, weight)
            else:
                averaged.copy_(averaged + (current - averaged) / (float(num_averaged) + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        averaged = (itertools.chain(self.module.parameters(), self.module.buffers()) if self.use_buffers
                    else self.parameters())
        current = itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        pairs = [(a.detach(), c.detach()) for a, c in zip(averaged, current)]
        n = int(self.n_averaged)
        with torch.no_grad():
            if n == 0:
                for a, c in pairs:
                    a.copy_(c)
            elif self.avg_fn is not None:
                for a, c in pairs:
                    a.copy_(self.avg_fn(a, c, torch.tensor(n)))
            else:
                update = self.multi_avg_fn or get_swa_multi_avg_fn()
                update([a for a, _ in pairs], [c for _, c in pairs], torch.tensor(n))
            if not self.use_buffers:
                # the buffers are not averaged: they follow the model's
                for a, c in zip(self.module.buffers(), model.buffers()):
                    a.detach().copy_(c.detach())
            self.n_averaged.copy_(self.n_averaged + 1)


def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics with one pass over `loader` (a cumulative average)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate from its current value to `swa_lr` over `anneal_epochs` (cosine or linear),
    then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for rate, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = rate
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        return self._attributes_except("anneal_func")
