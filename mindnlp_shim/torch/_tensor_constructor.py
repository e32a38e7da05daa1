"""`torch.Tensor(...)` read as torch's legacy constructor where torch code calls it.

torch.Tensor is mindspore.Tensor, whose constructor reads its arguments MindSpore's way: `Tensor(3)` is the
scalar 3, `Tensor([1, 2])` an int64 tensor, `Tensor(2, 3)` an error. torch reads them as the legacy constructor
of the default dtype: `Tensor(3)` an uninitialised tensor of 3 elements (wav2vec2's `masked_spec_embed`),
`Tensor([1, 2])` float32, `Tensor(2, 3)` a 2x3 tensor. MindSpore's own modules and the shim build tensors with
MindSpore's reading, so the caller decides: a call from a module that imported torch (any module of the shim's
torch namespace bound in its globals, or in the calling function's locals) gets torch's reading; every other
call goes to MindSpore's constructor unchanged. Subclasses (nn.Parameter, mindspore.Parameter) are not touched.

One call torch itself refuses is accepted: `Tensor(data, requires_grad=...)` builds a parameter. A parameter's
class is torch.Tensor here (nn/parameter.py), so the call libraries make to rebuild a parameter of the same
class, `type(param)(data, requires_grad=...)` (accelerate's set_module_tensor_to_device; peft passes the
parameter's `__dict__` as keywords too, which holds the shim's own marks), must give one.
"""
import sys
import types

import mindspore

from . import _dtype, _legacy_types

_TORCH_PACKAGE = __name__.rsplit(".", 1)[0]  # mindnlp_shim.torch
_MINDSPORE_READING = ("mindspore", "mindnlp_shim")
_imports_torch = {}  # module name -> True once a module is seen to have imported torch


def _binds_torch(namespace):
    return any(isinstance(value, types.ModuleType) and value.__name__.startswith(_TORCH_PACKAGE)
               for value in list(namespace.values()))


def _torch_caller(frame):
    module = frame.f_globals.get("__name__") or ""
    if _imports_torch.get(module):
        return True
    if module.startswith(_MINDSPORE_READING):
        return False
    if _binds_torch(frame.f_globals):
        _imports_torch[module] = True
        return True
    return _binds_torch(frame.f_locals)  # (`import torch` inside the calling function)


def _torch_legacy_constructor(args, kwargs):
    device = kwargs.pop("device", None)
    if "requires_grad" in kwargs:
        requires_grad = kwargs.pop("requires_grad")
        # (the shim's own marks, which a parameter's __dict__ holds and peft passes back: `**param.__dict__`;
        # the new parameter gets its own)
        unknown = sorted(name for name in kwargs if not name.startswith("_"))
        if unknown or len(args) != 1 or not isinstance(args[0], mindspore.Tensor):
            raise TypeError("torch.Tensor(data, requires_grad=...) (a parameter class's call) takes one tensor"
                            + (f", not the keyword {unknown[0]!r}" if unknown else ""))
        from .nn.parameter import Parameter

        return Parameter(args[0], requires_grad)
    if kwargs:
        raise TypeError(f"{sorted(kwargs)[0]!r} is an invalid keyword argument for Tensor()")
    return _legacy_types.construct(_dtype.get_default_dtype(), args, device, alias_any_dtype=True)


def install():
    meta = type(mindspore.Tensor)
    mindspore_call = meta.__call__

    def __call__(cls, *args, **kwargs):
        if cls is mindspore.Tensor and _torch_caller(sys._getframe(1)):
            return _torch_legacy_constructor(args, kwargs)
        return mindspore_call(cls, *args, **kwargs)

    meta.__call__ = __call__
