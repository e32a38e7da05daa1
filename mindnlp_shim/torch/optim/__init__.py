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
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .adadelta import Adadelta
from .asgd import ASGD
from .rprop import Rprop
from .sparse_adam import SparseAdam
from .lbfgs import LBFGS
from .adafactor import Adafactor
from ._swap_in import swap_in_optimizer_params_and_state
from . import swa_utils  # noqa: F401

__all__ = ["Optimizer", "Adam", "AdamW", "SGD", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta", "ASGD", "Rprop",
           "SparseAdam", "LBFGS", "Adafactor", "swap_in_optimizer_params_and_state", "lr_scheduler", "swa_utils"]
