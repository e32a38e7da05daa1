"""Constructor argument checks shared by the optimizers, with torch's messages."""
from . import _storage


def check_lr(lr):
    if not 0.0 <= _storage.as_float(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def check_eps(eps):
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")


def check_betas(betas):
    for index, beta in enumerate(betas):
        if not 0.0 <= _storage.as_float(beta) < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def check_weight_decay(weight_decay):
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
