"""torch.optim on MindSpore: optimizers with torch's update rules and state_dict format, and LR schedulers.

On the CPU target updates run in NumPy on zero-copy views of the parameters (see _storage.py); on GPU/Ascend
they run as device kernels.
"""
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer
from .adam import Adam
from .adamw import AdamW
from .sgd import SGD
from .adagrad import Adagrad
from .rmsprop import RMSprop

__all__ = ["Optimizer", "Adam", "AdamW", "SGD", "Adagrad", "RMSprop", "lr_scheduler"]
