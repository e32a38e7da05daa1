"""nn module classes upstream code names (often in isinstance tuples) that the shim does not implement yet.

The classes exist so those references resolve; constructing one raises NotImplementedError.
"""
from .module import Module


def _unsupported(name):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.nn.{name} is not supported by mindnlp-shim yet")

    return type(name, (Module,), {"__init__": __init__, "__doc__": f"torch.nn.{name} (not supported yet)."})


_NAMES = ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LSTM", "GRU", "RNN", "LSTMCell",
          "GRUCell", "RNNCell", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d",
          "InstanceNorm2d", "InstanceNorm3d", "PReLU", "EmbeddingBag", "Upsample", "MaxPool1d", "MaxPool2d",
          "AvgPool1d", "AvgPool2d", "Transformer",
          "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
          "ZeroPad2d", "ConstantPad1d", "Fold", "Unfold", "PixelShuffle", "LocalResponseNorm"]
__all__ = list(_NAMES)
for _name in _NAMES:
    globals()[_name] = _unsupported(_name)
del _name
