"""torch.nn.modules: the module classes, one concept per file."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .sparse import Embedding
from .normalization import LayerNorm, RMSNorm, GroupNorm
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout
from .activation import (Tanh, Sigmoid, SiLU, Mish, ReLU, ReLU6, SELU, Hardsigmoid, Hardswish, Softsign,
                         LogSigmoid, Tanhshrink, GELU, LeakyReLU, ELU, Hardtanh, Softplus, GLU, Softmax,
                         LogSoftmax, Softmin)
from .multihead_attention import MultiheadAttention
from .loss import (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCEWithLogitsLoss, BCELoss,
                   KLDivLoss, CosineSimilarity)
from .conv import Conv1d, Conv2d, Conv3d
from .flatten import Flatten, Unflatten
from .adaptive_pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d
from .ctc import CTCLoss
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d,
                      AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool3d, MaxUnpool1d,
                      MaxUnpool2d, MaxUnpool3d)
from .padding import *  # noqa: F401,F403
from .activation_parametric import Threshold, Hardshrink, Softshrink, CELU, RReLU, PReLU, Softmax2d
from .embedding_losses import (MarginRankingLoss, HingeEmbeddingLoss, SoftMarginLoss, MultiLabelSoftMarginLoss,
                               MultiLabelMarginLoss, MultiMarginLoss, CosineEmbeddingLoss, TripletMarginLoss,
                               TripletMarginWithDistanceLoss)
from .likelihood_losses import PoissonNLLLoss, GaussianNLLLoss, NLLLoss2d
from .shuffle import PixelShuffle, PixelUnshuffle, ChannelShuffle
from .fold import Fold, Unfold
from .distance import PairwiseDistance
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .local_response_norm import LocalResponseNorm
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer,
                          TransformerDecoderLayer)
from .embedding_bag import EmbeddingBag
from .unsupported import *  # noqa: F401,F403
