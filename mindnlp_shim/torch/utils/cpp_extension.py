"""torch.utils.cpp_extension: building C++/CUDA extensions against libtorch, which MindSpore does not have.

Libraries import it to build optional fused kernels and fall back to Python when the build fails (peft's BOFT
catches the error of `load`): every builder raises NotImplementedError naming the API, and CUDA_HOME/ROCM_HOME are
None (no CUDA toolkit is used by torch here)."""
import shutil
import subprocess

from .._stand_ins import unsupported

_NO_LIBTORCH = "C++/CUDA extensions are compiled against libtorch, which does not exist under mindnlp-shim"

load = unsupported("utils.cpp_extension.load", _NO_LIBTORCH)
load_inline = unsupported("utils.cpp_extension.load_inline", _NO_LIBTORCH)
CppExtension = unsupported("utils.cpp_extension.CppExtension", _NO_LIBTORCH)
CUDAExtension = unsupported("utils.cpp_extension.CUDAExtension", _NO_LIBTORCH)
BuildExtension = unsupported("utils.cpp_extension.BuildExtension", _NO_LIBTORCH)
include_paths = unsupported("utils.cpp_extension.include_paths", _NO_LIBTORCH)

CUDA_HOME = None
ROCM_HOME = None


def is_ninja_available():
    """Whether the ninja build tool runs here (torch's own question)."""
    if shutil.which("ninja") is None:
        return False
    try:
        subprocess.check_output(["ninja", "--version"])
    except (OSError, subprocess.CalledProcessError):
        return False
    return True
