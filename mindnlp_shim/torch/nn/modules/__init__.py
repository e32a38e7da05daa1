"""torch.nn.modules: the module classes, one concept per file."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .sparse import Embedding
from .normalization import LayerNorm, RMSNorm, GroupNorm
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout
from .activation import (Tanh, Sigmoid, SiLU, Mish, ReLU, ReLU6, SELU, Hardsigmoid, Hardswish, Softsign,
                         LogSigmoid, Tanhshrink, GELU, LeakyReLU, ELU, Hardtanh, Softplus, GLU, Softmax,
                         LogSoftmax, Softmin, MultiheadAttention)
from .loss import (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCEWithLogitsLoss, BCELoss,
                   KLDivLoss, CosineSimilarity)
from .conv import Conv1d, Conv2d
from .flatten import Flatten, Unflatten
from .adaptive_pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d
from .ctc import CTCLoss
from .unsupported import *  # noqa: F401,F403
