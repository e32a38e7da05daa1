"""`import mindnlp` installs the PyTorch-compatible API on MindSpore: afterwards every `import torch`
(in transformers, accelerate, peft, safetensors and the user's script) resolves to `mindnlp_shim.torch`."""
import mindnlp_shim as _shim

_shim.install()

__version__ = _shim.__version__
