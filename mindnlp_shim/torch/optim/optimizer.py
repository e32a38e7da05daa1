"""torch.optim.Optimizer: parameter groups, per-parameter state, hooks, and torch's state_dict format.

`state_dict()` has torch's layout, `{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`,
with tensors in the state (the step count a 0-dim float32 tensor, as in torch 2.x), so files written with
`torch.save` load into real PyTorch optimizers and the other way round.

Every subclass's `step` is wrapped once, at class creation, to run the step pre/post hooks; it stays an
ordinary method, so code that wraps `optimizer.step` on the instance (accelerate) works as with torch.

The built-in optimizers share one step loop, `Optimizer._step_params`; each supplies only its hyper-parameters,
its state initialisation and its update rule (a NumPy one for the CPU target and a device-kernel one).
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import mindspore

from . import _storage
from ._work import WorkBuffers

Tensor = mindspore.Tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a hyper-parameter that each parameter group (or the constructor) must supply."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")

_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def _add_hook(hooks, hook, prepend=False):
    """Store `hook` in the ordered dict `hooks`; the returned handle's `remove()` takes it out again."""
    from ..utils.hooks import RemovableHandle

    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """Run `hook(optimizer, args, kwargs)` before every optimizer's step; it may return new (args, kwargs)."""
    return _add_hook(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Run `hook(optimizer, args, kwargs)` after every optimizer's step."""
    return _add_hook(_global_step_post_hooks, hook)


def _with_step_hooks(step):
    @functools.wraps(step)
    def hooked_step(*args, **kwargs):
        self = args[0]
        # a subclass step calling super().step() must not run the hooks twice
        if getattr(self, "_inside_hooked_step", False):
            return step(*args, **kwargs)
        for hook in chain(_global_step_pre_hooks.values(), getattr(self, "_optimizer_step_pre_hooks", {}).values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        self._inside_hooked_step = True
        try:
            out = step(*args, **kwargs)
        finally:
            self._inside_hooked_step = False
        self._opt_called = True  # read by LR schedulers to warn about a scheduler step before the first step
        for hook in chain(getattr(self, "_optimizer_step_post_hooks", {}).values(), _global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    hooked_step._hooked_by_optimizer = True
    return hooked_step


class Optimizer:
    """Base class of all optimizers: `Optimizer(params, defaults)`.

    `params` is an iterable of tensors, of `(name, tensor)` pairs, or of dicts defining parameter groups.
    """

    # Group options a subclass added after its first release, with the value that means "off": a pickled
    # optimizer from an older version lacks them, and `__setstate__` fills them in (as torch does).
    _setstate_group_defaults = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if callable(step) and not getattr(step, "_hooked_by_optimizer", False):
            cls.step = _with_step_hooks(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        self._work_buffers = WorkBuffers()  # scratch arrays of the host updates (_work.py)
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__name__}")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(dict(param_group))

    # ------------------------------------------------------------------ pickling and repr
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        if self._setstate_group_defaults:
            for group in self.param_groups:
                for key, value in self._setstate_group_defaults.items():
                    group.setdefault(key, value)
        if "_work_buffers" not in self.__dict__:
            self._work_buffers = WorkBuffers()
        self.defaults.setdefault("differentiable", False)  # as torch's __setstate__ (run by load_state_dict)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(("\n" if i else "") + f"Parameter Group {i}")  # (groups apart by a blank line)
            for key in sorted(group.keys()):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with "params" and optional hyper-parameters) to optimize."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)

        names = []
        tensors = []
        for item in param_group["params"]:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                names.append(item[0])
                tensors.append(item[1])
            else:
                tensors.append(item)
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        param_group["params"] = tensors

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(param).__name__)
            if not self.defaults.get("differentiable", None) and not param._is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        existing = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in group) != ("param_names" in param_group):
                raise ValueError("all optimizer param groups should be with/without names.")
        if existing & {id(p) for p in tensors}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ stepping
    def step(self, closure=None):
        raise NotImplementedError(f"{type(self).__name__}.step() is not implemented")

    def _call_closure(self, closure):
        if closure is None:
            return None
        with _storage.enable_grad():
            return closure()

    def _step_params(self, closure, hyper_of_group, prepare_state, host_update, device_update):
        """The step of the built-in optimizers: call `closure` (with gradients on), then, outside autograd,
        update every parameter that has a gradient, with the NumPy update on the CPU target and the
        device-kernel update elsewhere. Returns the closure's loss.

        - `hyper_of_group(group)`: the group's hyper-parameters as the update's keyword arguments (read once
          per group, so the per-parameter loop does no lookups);
        - `prepare_state(param, state, group)`: runs before each update; creates what `state` still lacks;
        - `host_update(param, grad, state, work_buffers, **hyper)` / `device_update(param, grad, state, **hyper)`:
          the update rule, in place on `param` and `state`.
        """
        loss = self._call_closure(closure)
        on_host = _storage.uses_host_math()
        with _storage.no_grad():
            for group in self.param_groups:
                hyper = hyper_of_group(group)
                for param in group["params"]:
                    grad = param._grad
                    if grad is None:
                        continue
                    state = self.state[param]
                    prepare_state(param, state, group)
                    if on_host:
                        host_update(param, grad, state, self._work_buffers, **hyper)
                    else:
                        device_update(param, grad, state, **hyper)
        return loss

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized parameters: to None (default) or to zeros in place."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param._grad
                if grad is None:
                    continue
                if set_to_none:
                    param._grad = None
                elif _storage.uses_host_math():
                    array, is_copy = _storage.host_array(grad)
                    array[...] = 0
                    _storage.release(grad, array, is_copy)
                else:
                    _storage.assign(grad, 0)

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`, run before this optimizer's step."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs) -> None`, run after this optimizer's step."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer) -> None`, run before `state_dict()` builds its result."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict) -> state_dict or None`, run on the result of `state_dict()`."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict) -> state_dict or None`, run before `load_state_dict()` reads it."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer) -> None`, run after `load_state_dict()`."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state dicts
    def state_dict(self):
        """torch's format: parameters are replaced by their index in the order of the parameter groups."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of = {}
        packed_groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                if id(param) not in index_of:
                    index_of[id(param)] = len(index_of)
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            packed_groups.append(packed)
        packed_state = {(index_of[id(key)] if isinstance(key, Tensor) else key): value
                        for key, value in self.state.items()}
        result = {"state": packed_state, "param_groups": packed_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            returned = hook(self, result)
            if returned is not None:
                result = returned
        return result

    def load_state_dict(self, state_dict):
        """Load a `state_dict()` (ours or real PyTorch's): state tensors are cast to their parameter's dtype."""
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            returned = hook(self, state_dict)
            if returned is not None:
                state_dict = returned
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = dict(zip(chain.from_iterable(s["params"] for s in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = {name: _state_value_for(param, name, item) for name, item in value.items()}
            else:
                state[key] = value
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            for key, default in self.defaults.items():  # files from older versions may lack newer options
                saved.setdefault(key, default)
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)


def _state_value_for(param, name, value):
    """A loaded state entry as the optimizer uses it: a tensor of our own (never shared with the caller's dict),
    floating state in the parameter's dtype, the step count as a 0-dim float32 tensor (torch's policy)."""
    if isinstance(value, dict):
        return {k: _state_value_for(param, k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_state_value_for(param, name, v) for v in value)
    if name == "step" and isinstance(value, (int, float, Tensor)):
        return _storage.step_tensor(_storage.as_float(value))
    if not isinstance(value, Tensor):
        return value
    source = value.astype(param.dtype) if value.is_floating_point() and value.dtype != param.dtype else value
    if _storage.uses_host_math():
        return _storage.host_tensor(source.asnumpy().copy())
    return source.clone()


def check_implementation_flags(name, foreach, fused, differentiable):
    """torch's checks of the implementation switches. `foreach` and `fused` select the same (fastest) update
    here; `differentiable` (autograd through the step) has no MindSpore equivalent."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if differentiable:
        raise NotImplementedError(f"torch.optim.{name}(differentiable=True) is not supported on MindSpore by "
                                  f"mindnlp-shim: optimizer steps run outside autograd")
