"""torch.version: the API level implemented, and no CUDA/HIP toolkit."""
from mindnlp_shim._importer import TORCH_API_VERSION as __version__  # noqa: F401

cuda = None
hip = None
git_version = "mindnlp-shim"
debug = False
