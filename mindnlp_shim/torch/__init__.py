"""The PyTorch API implemented on MindSpore. Installed as `torch` by `import mindnlp`."""
import importlib as _importlib

from . import _runtime  # noqa: F401  (configures MindSpore before any op runs)
from . import _dtype, _tensor, _bindings, _stand_ins, _tensor_audit, _inplace_aliases, _function_forms, _removed_api
from ._dtype import (dtype, finfo, iinfo, get_default_dtype, set_default_dtype, promote_types,  # noqa: F401
                     TORCH_NAMES as _TORCH_NAMES)
from ._device import device  # noqa: F401
from ._size import Size  # noqa: F401
from ._tensor import strided, sparse_coo, UntypedStorage  # noqa: F401
from .random import (Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,  # noqa: F401
                     default_generator)
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                                 is_grad_enabled, is_inference_mode_enabled)
from ._ops import creation as _creation, pointwise as _pointwise, reduction as _reduction, shape as _shape
from ._ops import indexing as _indexing
from ._ops import composites as _composites
from ._ops import (special_math as _special_math, statistics as _statistics, matrix as _matrix,  # noqa: E402
                   placement as _placement)
from ._ops.linalg import matmul, mm, bmm, baddbmm, addmm, outer, dot, einsum, cross  # noqa: F401
from ._ops.buffers import frombuffer  # noqa: F401
from ._ops.spectral import hann_window, stft  # noqa: F401
from ._ops.random import (rand, randn, randint, randperm, rand_like, randn_like, randint_like, normal,  # noqa: F401
                          bernoulli, multinomial, poisson)
from ._functions import *  # noqa: F401,F403
from ._checks import *  # noqa: F401,F403
from .amp.autocast_mode import autocast  # noqa: F401
from mindspore import Tensor  # noqa: F401

from mindnlp_shim._importer import TORCH_API_VERSION as __version__  # noqa: E402


def _export_ops(*modules):
    """Every public function an op module defines becomes `torch.<name>` (its imports do not)."""
    for module in modules:
        for name, value in vars(module).items():
            if not name.startswith("_") and callable(value) and getattr(value, "__module__", None) == module.__name__:
                globals()[name] = value


_export_ops(_creation, _pointwise, _reduction, _shape, _indexing)
_export_ops(_special_math, _statistics, _matrix, _placement)  # torch names MindSpore's Tensor also carries
_export_ops(_composites)  # products, integration, complex numbers, windows, older linalg spellings
for _name in ("expand", "expand_as", "repeat", "reshape_as", "view", "view_as", "view_as_dtype"):
    del globals()[_name]  # (Tensor methods only: torch has no function of these names)

for _name, _dt in _TORCH_NAMES.items():
    globals()[_name] = _dt
del _name, _dt

_tensor.install()
_bindings.install()
_tensor_audit.install()
_inplace_aliases.install()

# Submodules are imported on first use (`torch.nn`, `torch.optim`, ...), as attribute access or `import torch.x`.
_SUBMODULES = ("nn", "optim", "utils", "autograd", "cuda", "backends", "distributed", "amp", "random",
               "serialization", "_utils", "jit", "compiler", "_dynamo", "fx", "library", "overrides", "types",
               "linalg", "fft", "special", "testing", "mps", "xpu", "npu", "accelerator", "profiler", "hub",
               "onnx", "distributions", "_C", "cpu", "export", "_subclasses", "_functorch", "_inductor",
               "multiprocessing", "storage", "version", "func", "_prims_common", "_guards", "_logging",
               "package", "sparse", "quantization", "ao", "masked", "signal", "nested", "functional",
               "_tensor_str", "return_types")


# torch names whose one definition lives in a lazily imported submodule (torch's are the same objects)
_LAZY_ALIASES = {"cosine_similarity": "nn.functional"}


def __getattr__(name):
    if name in _LAZY_ALIASES:
        value = getattr(_importlib.import_module(f"{__name__}.{_LAZY_ALIASES[name]}"), name)
        globals()[name] = value  # later lookups skip this hook
        return value
    if name in _SUBMODULES:
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    if name in _function_forms.LAZY:  # aliases of nn.functional / linalg / special functions
        return _function_forms.resolve(name)
    if name in _stand_ins.TORCH_ATTRIBUTES:
        return _stand_ins.TORCH_ATTRIBUTES[name]
    raise AttributeError(f"module 'torch' has no attribute '{name}' (not provided by mindnlp-shim)")


def save(obj, f, *args, **kwargs):
    from .serialization import save as _save

    return _save(obj, f, *args, **kwargs)


def load(f, *args, **kwargs):
    from .serialization import load as _load

    return _load(f, *args, **kwargs)


from . import _tensor_extras  # noqa: E402  (Tensor methods bound to the torch functions defined above)

_tensor_extras.install()
from . import _tensor_constructor  # noqa: E402

_tensor_constructor.install()
_function_forms.install(globals())  # in-place function forms, other names of ops, constants
from ._ops.index_reduce import index_reduce  # noqa: E402,F401
from ._ops.mode import mode  # noqa: E402,F401
from ._ops.aten_nn_forms import *  # noqa: E402,F401,F403
from ._autocast_settings import *  # noqa: E402,F401,F403
from ._ops.recurrent import *  # noqa: E402,F401,F403
from ._ops.layout_factories import *  # noqa: E402,F401,F403
from ._futures import *  # noqa: E402,F401,F403
from ._vmap import *  # noqa: E402,F401,F403
from ._ops.small_functions import *  # noqa: E402,F401,F403
from ._symbolic_checks import *  # noqa: E402,F401,F403
from ._ops.segment_reduce import *  # noqa: E402,F401,F403
from ._ops.householder_factors import *  # noqa: E402,F401,F403
from ._ops.strided_views import *  # noqa: E402,F401,F403
from ._ops.inverse_stft import *  # noqa: E402,F401,F403
from ._ops.lowrank import *  # noqa: E402,F401,F403
from ._ops.hashing import *  # noqa: E402,F401,F403
from ._tensor_state_methods import *  # noqa: E402,F401,F403
from . import _tensor_state_methods  # noqa: E402
from . import _tensor_sparse_accessors  # noqa: E402
from ._ops import strided_views as _strided_views  # noqa: E402
from ._removed_api import *  # noqa: E402,F401,F403
narrow_copy = _tensor_extras.narrow_copy  # (the Tensor method's definition, tensor first)
from . import _tensor_function_methods  # noqa: E402  (methods that are the torch functions)

_tensor_function_methods.install()
conj_physical_ = Tensor.conj_physical_  # (the in-place method made just above, as torch's function form)
_removed_api.install()
_strided_views.install()
_tensor_state_methods.install()
_tensor_sparse_accessors.install()
from ._sparse_coo import sparse_coo_tensor  # noqa: E402,F401
from . import _sparse_coo  # noqa: E402

_sparse_coo.install(globals())
from . import _python_dtypes  # noqa: E402  (last: wraps the functions and methods defined above)

_python_dtypes.install(globals())
_python_dtypes.install_methods(Tensor, registries=(_tensor_audit.IMPLEMENTED,))
