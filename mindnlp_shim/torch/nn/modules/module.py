"""torch.nn.Module: the base class of every layer and model.

Parameters, buffers and submodules live in the dicts `_parameters`, `_buffers` (with
`_non_persistent_buffers_set`) and `_modules`, under those names, because transformers, accelerate and peft
read and write them directly. Attribute assignment routes values into them as torch does.

Tensors are plain MindSpore tensors; parameters are tensors marked by `nn.Parameter` (see ../parameter.py).
Dtype and device conversions (`to`, `float`, `half`, ...) keep each parameter object: its payload is
swapped in place, so optimizers and tied weights holding the object stay valid.
"""
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import mindspore

from ... import _dtype, _inplace
from ..._out_of_memory import reraise_if_out_of_memory as _reraise_if_out_of_memory
from ..._runtime import ensure_recording as _ensure_recording
from ..._size import Size
from ...autograd.grad_mode import no_grad
from . import _full_backward_hooks as _full_hooks
from . import _legacy_backward_hooks as _legacy_hooks
from ..parameter import Buffer, Parameter, _share_detached

Tensor = mindspore.Tensor

__all__ = ["Module", "RemovableHandle", "register_module_full_backward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# torch's legacy tensor type names, which torch uses when naming a tensor in an error message
_LEGACY_TYPE_NAMES = {
    mindspore.float32: "FloatTensor", mindspore.float64: "DoubleTensor", mindspore.float16: "HalfTensor",
    mindspore.bfloat16: "BFloat16Tensor", mindspore.int64: "LongTensor", mindspore.int32: "IntTensor",
    mindspore.int16: "ShortTensor", mindspore.int8: "CharTensor", mindspore.uint8: "ByteTensor",
    mindspore.bool_: "BoolTensor", mindspore.complex64: "ComplexFloatTensor",
    mindspore.complex128: "ComplexDoubleTensor",
}


def _typename(obj):
    """What torch.typename answers: 'torch.FloatTensor' for a float32 tensor, 'int', 'package.Class' ..."""
    if isinstance(obj, Tensor):
        return "torch." + _LEGACY_TYPE_NAMES.get(obj.dtype, "Tensor")
    cls = type(obj)
    module = cls.__module__
    if module in (None, "builtins"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _is_float_or_complex(t):
    return t.dtype in _dtype.FLOATING or t.dtype in _dtype.COMPLEX


def _dtype_name(dt):
    return "torch." + _dtype._CANONICAL.get(dt, str(dt).lower())


class RemovableHandle:
    """The handle returned by every `register_*_hook`: `remove()` takes the hook out of its dict(s)."""

    _next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        if extra_dict is None:
            extras = []
        else:
            extras = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# module backward hooks registered for every module (torch.nn.modules.module.register_module_full_backward_*)
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
# whether global backward hooks may be registered: one cheap test on every module call (a handle's removal
# leaves it True; the next hooked call finds the dicts empty and clears it)
_global_backward_hooks_registered = False


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook for every module, called before the module's own ones."""
    global _global_backward_hooks_registered
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    _global_backward_hooks_registered = True
    return handle


def register_module_full_backward_hook(hook):
    """A full backward hook for every module, called before the module's own ones."""
    global _global_is_full_backward_hook, _global_backward_hooks_registered
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    _global_backward_hooks_registered = True
    return handle


def register_module_backward_hook(hook):
    raise NotImplementedError(
        "torch.nn.modules.module.register_module_backward_hook (the deprecated global module backward hook) is not "
        "supported by mindnlp-shim: its arguments are the gradients of the last autograd node of torch's graph for "
        "each module, known here for a few modules only (see Module.register_backward_hook); use "
        "register_module_full_backward_hook")


def _addindent(text, spaces):
    """Indent every line but the first (how a child's repr is nested in its parent's)."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return first + "\n" + "\n".join(pad + line for line in rest)


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class _WithModule:
    """A load_state_dict pre-hook registered with `with_module=True`: called with the module first.
    Holds the module weakly so that the hook does not keep it alive."""

    def __init__(self, hook, module):
        self.hook = hook
        self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        return self.hook(self.module(), *args, **kwargs)


class _PublicStateDictHook:
    """A state_dict post-hook registered through the public API: it must return None."""

    _from_public_api = True

    def __init__(self, hook):
        self.hook = hook

    def __call__(self, *args, **kwargs):
        return self.hook(*args, **kwargs)


def _move_payload(target, new):
    """Give `target` the storage, dtype and shape of `new` while keeping the `target` object and its autograd
    identity (torch's `param.data = new`). Returns False when MindSpore refuses the swap."""
    if new is target:
        return True
    try:
        _inplace.swap_data(target, new)
        return True
    except (RuntimeError, TypeError, ValueError):
        return False


def _remove_name(name, *containers):
    """Forget `name` in the other registries when it is re-registered as another kind of member."""
    for container in containers:
        if name in container:
            if isinstance(container, dict):
                del container[name]
            else:
                container.discard(name)


def _parse_to(args, kwargs):
    """Module.to's overloads: to(device=None, dtype=None, non_blocking=False), to(dtype, non_blocking=False),
    to(tensor, non_blocking=False), to(memory_format=...)."""
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    dtype = _dtype.resolve(kwargs.pop("dtype", None))
    non_blocking = bool(kwargs.pop("non_blocking", False))
    kwargs.pop("memory_format", None)  # (not applied: parameters keep their layout; README, "Memory layout ...")
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                        f"argument(s) {', '.join(kwargs)}")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, _dtype.dtype):
            dtype = arg
        elif arg.__class__ is type and arg in _dtype.PYTHON_TYPES:
            dtype = _dtype.resolve(arg)
        elif isinstance(arg, bool):
            non_blocking = arg
        elif arg is not None:
            device = arg
    return device, dtype, non_blocking


class Module:
    """Base class for all neural network modules (torch.nn.Module)."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs):
        name = type(self).__name__
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{name}.__init__() takes 1 positional argument but {len(args) + 1} were given")
        # object.__setattr__ directly: our __setattr__ reads these dicts and must not run before they exist
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ------------------------------------------------------------------ registration

    def _check_new_member(self, kind, store, name):
        """torch's checks (and messages) before registering a buffer or parameter called `name`."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        self._check_new_member("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        self._check_new_member("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if not getattr(param, "_is_leaf", True):
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        self.add_module(name, module)

    # ------------------------------------------------------------------ lookup by dotted path

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{param_name}`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{param_name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{buffer_name}`")
        if buffer_name not in mod._buffers:
            raise AttributeError(f"`{buffer_name}` is not a buffer")
        return getattr(mod, buffer_name)

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called: "
                           "override get_extra_state() to return the module's extra state.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called: "
                           "override set_extra_state() together with get_extra_state().")

    def _has_extra_state(self):
        return getattr(type(self), "get_extra_state", Module.get_extra_state) is not Module.get_extra_state

    # ------------------------------------------------------------------ conversions

    def _apply(self, fn, recurse=True):
        """Apply `fn` to every parameter, grad and buffer (of the whole tree when `recurse`). Parameters
        and their grads keep their identity; buffers are replaced by `fn`'s result, as in torch."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for key, param in self._parameters.items():
                if param is None:
                    continue
                new = fn(param)
                if not _move_payload(param, new):
                    # MindSpore could not swap the payload in place: fall back to a new parameter object
                    replacement = Parameter(new, param._requires_grad)
                    for attr, value in param.__dict__.items():
                        setattr(replacement, attr, value)
                    replacement._grad = param._grad
                    self._parameters[key] = param = replacement
                grad = param._grad
                if grad is not None:
                    param._grad = fn(grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        device, dtype, non_blocking = _parse_to(args, kwargs)
        if dtype is not None and dtype not in _dtype.FLOATING and dtype not in _dtype.COMPLEX:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={_dtype_name(dtype)}")

        def convert(t):
            kw = {}
            if device is not None:
                kw["device"] = device
            if dtype is not None and _is_float_or_complex(t):
                kw["dtype"] = dtype
            if not kw:
                return t
            if non_blocking:
                kw["non_blocking"] = True
            return t.to(**kw)

        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def _cast_floating(self, dst):
        return self._apply(lambda t: t.to(dtype=dst) if t.dtype in _dtype.FLOATING else t)

    def float(self):
        return self._cast_floating(mindspore.float32)

    def double(self):
        return self._cast_floating(mindspore.float64)

    def half(self):
        return self._cast_floating(mindspore.float16)

    def bfloat16(self):
        return self._cast_floating(mindspore.bfloat16)

    def to_empty(self, *, device=None, recurse=True):
        from ... import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        # One process owns the tensors; there is no shared-memory transfer to do.
        return self

    # ------------------------------------------------------------------ hooks and calling

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output) -> tuple or None`, called when the gradients of the module's outputs
        are computed; a returned tuple replaces grad_output (see _full_backward_hooks)."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output) -> tuple or None`, called when the gradients of the module's
        positional tensor inputs are computed; a returned tuple replaces grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """torch's deprecated module backward hook: `hook(module, grad_input, grad_output)` with the gradients
        of the module's last autograd node (see _legacy_backward_hooks for the modules served)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _call_impl(self, *args, **kwargs):
        # MindSpore switches tape recording off when a TypeError escapes an op's dispatch (callers may have
        # caught it); every module call switches it back on, so a forward never runs unrecorded.
        _ensure_recording()
        try:
            if (self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks_registered
                    or (_legacy_hooks._OUTER and id(self) in _legacy_hooks._OUTER)):
                return self._call_with_backward_hooks(args, kwargs)
            if not (self._forward_hooks or self._forward_pre_hooks):
                return self.forward(*args, **kwargs)
            return self._call_with_hooks(self.forward, args, kwargs)
        except (RuntimeError, MemoryError) as exc:  # (free when nothing is raised)
            _reraise_if_out_of_memory(exc)  # an allocation failure as torch.OutOfMemoryError, with its size
            raise

    def _call_with_backward_hooks(self, args, kwargs):
        global _global_backward_hooks_registered
        if not (_global_backward_hooks or _global_backward_pre_hooks):
            _global_backward_hooks_registered = False
        # torch's order: global hooks first, then the module's; a kind is served by one mechanism each
        full = list(_global_backward_hooks.values()) if _global_is_full_backward_hook else []
        if self._is_full_backward_hook:
            full += self._backward_hooks.values()
        pre = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        forward_call = self.forward
        if (self._backward_hooks and self._is_full_backward_hook is False) or id(self) in _legacy_hooks._OUTER:
            forward_call = self._forward_with_legacy_backward_hooks
        call = _full_hooks._Call(self, full, pre) if full or pre else None
        return self._call_with_hooks(forward_call, args, kwargs, call)

    def _forward_with_legacy_backward_hooks(self, *args, **kwargs):
        return _legacy_hooks.forward_with_hooks(self, self.forward, args, kwargs)

    def _call_with_hooks(self, forward_call, args, kwargs, backward_call=None):
        result = None
        called_always = set()
        try:
            for hook_id, hook in list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    out = hook(self, args, kwargs)
                    if out is not None:
                        if not (isinstance(out, tuple) and len(out) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {out}.")
                        args, kwargs = out
                else:
                    out = hook(self, args)
                    if out is not None:
                        args = out if isinstance(out, tuple) else (out,)
            if backward_call is not None:
                args = _full_hooks.setup_inputs(backward_call, args)
            result = forward_call(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
            if backward_call is not None:
                result = _full_hooks.setup_outputs(backward_call, result)
            return result
        except Exception:
            # hooks registered with always_call=True run even when forward (or another hook) raised
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id not in self._forward_hooks_always_called or hook_id in called_always:
                    continue
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        out = hook(self, args, kwargs, result)
                    else:
                        out = hook(self, args, result)
                    if out is not None:
                        result = out
                except Exception as hook_error:
                    warnings.warn("forward hook with ``always_call=True`` raised an exception that was silenced as "
                                  f"another error was raised in forward: {hook_error}")
            raise

    def _wrapped_call_impl(self, *args, **kwargs):
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    __call__ = _wrapped_call_impl

    # ------------------------------------------------------------------ attribute routing

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled by older versions may lack some of the hook dicts
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_state_dict_hooks",
                     "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_backward_pre_hooks", "_backward_hooks"):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    def __getattr__(self, name):
        # only reached when normal lookup failed: look in the three registries
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_name(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_name(name, d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del self._parameters[name]
        elif name in d.get("_buffers", ()):
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in d.get("_modules", ()):
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = itertools.chain(dir(type(self)), self.__dict__, self._parameters, self._modules, self._buffers)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    # ------------------------------------------------------------------ state_dict

    def _register_state_dict_hook(self, hook):
        """Post-hook `hook(module, state_dict, prefix, local_metadata)`; a non-None result replaces the
        state_dict (private API kept for the code that uses it)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                               "previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """Post-hook `hook(module, state_dict, prefix, local_metadata) -> None`, may edit state_dict in place."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = _PublicStateDictHook(hook)
        return handle

    def register_state_dict_pre_hook(self, hook):
        """Pre-hook `hook(module, prefix, keep_vars)`, called before the module saves its state."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else _share_detached(param)
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else _share_detached(buf)
        if self._has_extra_state():
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            # torch's deprecated positional form: state_dict(destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict "
                          "for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    # ------------------------------------------------------------------ load_state_dict

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """Pre-hook `hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`, preceded by the module when `with_module`."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WithModule(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Post-hook `hook(module, incompatible_keys) -> None`; it may clear the key lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Load this module's own parameters and persistent buffers (not its children's) from `state_dict`,
        recording problems in the given lists. Overridden by modules that need to convert old formats."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)

        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        for k, v in self._buffers.items():
            if v is not None and k not in self._non_persistent_buffers_set:
                local_state[k] = v
        assign = local_metadata.get("assign_to_params_buffers", False)

        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            # checkpoints of torch < 0.4 stored scalars as 1-element vectors
            if len(param.shape) == 0 and len(value.shape) == 1:
                value = value[0]
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {Size(value.shape)!r} from "
                                  f"checkpoint, the shape in current model is {Size(param.shape)!r}.")
                continue
            try:
                with no_grad():
                    if assign:
                        self._assign_loaded(name, param, value)
                    else:
                        if value.dtype != param.dtype:
                            value = value.astype(param.dtype)
                        param.copy_(value)
            except Exception as ex:  # reported, like every other per-key problem, in one RuntimeError
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{Size(param.shape)!r} and whose dimensions in the checkpoint are "
                                  f"{Size(value.shape)!r}, an exception occurred : {ex.args}.")

        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._has_extra_state():
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)

        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    first = key[len(prefix):].split(".", 1)[0]
                    if first not in self._modules and first not in local_state:
                        unexpected_keys.append(key)

    def _assign_loaded(self, name, old, value):
        """load_state_dict(assign=True): the checkpoint's tensor takes the place of the module's; a parameter
        stays a parameter and keeps the old one's requires_grad."""
        if isinstance(old, Parameter):
            requires_grad = bool(old._requires_grad)
            if isinstance(value, Parameter):
                value.requires_grad_(requires_grad)
            else:
                value = Parameter(value, requires_grad=requires_grad)
        setattr(self, name, value)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                if out is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                       "expected to return new values, if incompatible_keys need to be modified, "
                                       "it should be done inplace.")

        load(self, state_dict)

        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ iteration

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        seen = set()  # by id: tensors compare elementwise, so they cannot be set members
        for module_prefix, module in modules:
            for name, value in get_members_fn(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # ------------------------------------------------------------------ modes and grads

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            grad = p._grad
            if grad is None:
                continue
            # MindSpore hands out a new wrapper object for `_grad` on every read, so nothing can hold on to the
            # old grad object: a fresh zero tensor is as good as zeroing in place (which MindSpore's CPU copy
            # silently skips for the transposed grads matmul produces).
            p._grad = None if set_to_none else mindspore.ops.zeros_like(grad)

    # ------------------------------------------------------------------ printing

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
