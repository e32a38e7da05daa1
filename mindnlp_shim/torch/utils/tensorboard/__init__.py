"""torch.utils.tensorboard: a SummaryWriter that writes TensorBoard event files with the `tensorboard` package
(which, like PyTorch's own writer, it needs installed). See `writer.py` for what it writes."""
try:
    import tensorboard  # noqa: F401
except ImportError as error:  # torch raises ImportError too, so callers fall back (transformers: tensorboardX)
    raise ImportError("TensorBoard logging requires TensorBoard. Please install it with `pip install "
                      "tensorboard`.") from error

from .writer import SummaryWriter  # noqa: E402,F401

__all__ = ["SummaryWriter"]
