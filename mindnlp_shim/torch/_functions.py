"""torch-level functions that are not ops on tensor data: type queries, process settings, legacy types."""
import numbers
import warnings

import mindspore

from . import _dtype, _tensor
from ._runtime import CPU_THREADS, DEVICE_TARGET

__all__ = ["is_tensor", "is_storage", "is_floating_point", "is_complex", "is_nonzero", "numel", "clone", "detach",
           "typename", "result_type", "can_cast", "set_printoptions", "get_num_threads", "set_num_threads",
           "get_num_interop_threads", "set_num_interop_threads", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "is_autocast_enabled",
           "get_autocast_dtype", "get_autocast_gpu_dtype", "compile", "is_warn_always_enabled", "set_warn_always",
           "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "get_default_device", "set_default_device",
           "Storage", "TypedStorage", "OutOfMemoryError"]


def is_tensor(obj):
    return isinstance(obj, mindspore.Tensor)


def is_storage(obj):
    return isinstance(obj, _tensor.UntypedStorage)


def is_floating_point(input):
    return input.dtype in _dtype.FLOATING


def is_complex(input):
    return input.dtype in _dtype.COMPLEX


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def numel(input):
    return input.numel()


def clone(input, *, memory_format=None):
    return input.clone()


def detach(input):
    return input.detach()


def typename(obj):
    """A tensor's type string; a class or function by its own dotted name, any other object by its class's;
    builtins go unqualified ('int', 'len'), as torch writes them."""
    if isinstance(obj, mindspore.Tensor):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") or hasattr(obj, "__name__") else type(obj)
    module = getattr(named, "__module__", None) or ""
    name = getattr(named, "__qualname__", None) or named.__name__
    return name if module in ("", "builtins") else f"{module}.{name}"


def result_type(tensor1, tensor2):
    """torch's promotion of two operands: dimensioned tensors over 0-d tensors over Python scalars (see
    _ops/_promotion.py)."""
    from ._ops import _promotion

    return _promotion.result_type(tensor1, tensor2)


def can_cast(from_, to):
    from ._ops import _promotion

    return _promotion.can_cast(from_, to)


from ._tensor_str import set_printoptions  # noqa: E402


_threads = {"intra": CPU_THREADS, "inter": 1}


def get_num_threads():
    return _threads["intra"]


def set_num_threads(n):
    """MindSpore fixes its kernel thread pool at first use; later changes are recorded and reported, and the
    optimizers' host updates use that many threads."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):  # (NumPy's integers are Integral)
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads["intra"] = int(n)


def get_num_interop_threads():
    return _threads["inter"]


def set_num_interop_threads(n):
    _threads["inter"] = int(n)


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError), for code that raises or catches it by name.
    MindSpore's and NumPy's allocation failures in a module call or a backward become one (`_out_of_memory`)."""


_deterministic = {"on": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    # MindSpore's CPU kernels are deterministic for a given thread count; the flag is recorded for queries.
    _deterministic.update(on=bool(mode), warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled():
    return _deterministic["on"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: expected 'highest', 'high' or 'medium'")
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


def is_autocast_enabled(device_type=None):
    from .amp import autocast_mode

    return autocast_mode.is_enabled(device_type)


def get_autocast_dtype(device_type):
    from .amp import autocast_mode

    return autocast_mode.get_dtype(device_type)


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


_warn_always = [False]  # torch.set_warn_always: warnings torch gives once are to be given every time


def set_warn_always(b):
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    return _warn_always[0]


_compile_notice = []


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile: graph capture is not wired to MindSpore's JIT yet, so the model runs eagerly (one notice).
    A module comes back wrapped, as torch's does (`_dynamo.eval_frame.OptimizedModule`, holding it as
    `_orig_mod`); a function comes back as it is."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not _compile_notice:
        _compile_notice.append(True)
        warnings.warn("torch.compile: running the model eagerly on MindSpore (graph capture is not used)",
                      RuntimeWarning, stacklevel=2)
    from .nn.modules.module import Module

    if isinstance(model, Module) and not disable:
        from ._dynamo.eval_frame import OptimizedModule

        return OptimizedModule(model)
    return model


from ._legacy_types import (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor,  # noqa: E402
                            IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor)
Storage = _tensor.UntypedStorage
from ._typed_storage import TypedStorage  # noqa: E402


def get_default_device():
    from . import _device_context

    return _device_context.current()


def set_default_device(device):
    from . import _device_context

    _device_context._stack[:] = [] if device is None else [_device_context.check_reachable(device)]
