"""torch.distributed.fsdp.wrap: auto-wrap policies, which decide which submodules FullyShardedDataParallel wraps
in FSDP units of their own, and the `wrap`/`enable_wrap` helpers.

A policy is either a `_Policy` object (`ModuleWrapPolicy`, `CustomPolicy`), which names the modules to wrap up
front, or a function `policy(module, recurse, nonwrapped_numel) -> bool` asked twice per module: with
`recurse=True` whether to look inside it, and with `recurse=False` (and the number of its parameters not
already wrapped below it) whether to wrap it. The root module is wrapped by the constructor itself."""
import contextlib
import copy

from ... import nn

_FORCE_LEAF_MODULES = {nn.MultiheadAttention}
_EXCLUDE_WRAP_MODULES = {nn.ModuleList, nn.ModuleDict}


def always_wrap_policy(*args, **kwargs):
    """Wrap every module."""
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """Wrap the modules for which `lambda_fn(module)` is true."""
    if recurse:
        return True
    return lambda_fn(module)


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Wrap the instances of the classes in `transformer_layer_cls`."""
    if recurse:
        return True
    return isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """Wrap a module once its parameters not yet wrapped below it number at least `min_num_params`; never look
    inside `force_leaf_modules` (default: MultiheadAttention), never wrap `exclude_wrap_modules` (default:
    ModuleList, ModuleDict)."""
    force_leaf_modules = _FORCE_LEAF_MODULES if force_leaf_modules is None else force_leaf_modules
    exclude_wrap_modules = _EXCLUDE_WRAP_MODULES if exclude_wrap_modules is None else exclude_wrap_modules
    is_large = nonwrapped_numel >= min_num_params
    if recurse:
        return is_large and not isinstance(module, tuple(force_leaf_modules))
    return is_large and not isinstance(module, tuple(exclude_wrap_modules))


size_based_auto_wrap_policy.FORCE_LEAF_MODULES = _FORCE_LEAF_MODULES
size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = _EXCLUDE_WRAP_MODULES


def _or_policy(module, recurse, nonwrapped_numel, policies):
    """True when any of `policies` says so."""
    return any(policy(module=module, recurse=recurse, nonwrapped_numel=nonwrapped_numel) for policy in policies)


def _module_wrap_policy(module, recurse, nonwrapped_numel, module_classes):
    if recurse:
        return True
    return isinstance(module, tuple(module_classes))


class _Policy:
    """A policy that names, for a root module, the modules to wrap and the constructor arguments of each."""

    def _run_policy(self, root_module, ignored_modules, root_kwargs):
        raise NotImplementedError


class ModuleWrapPolicy(_Policy):
    """Wrap every instance of the given module classes."""

    def __init__(self, module_classes):
        self._module_classes = tuple(set(module_classes))
        self._module_classes_str = str(self._module_classes)

    def _run_policy(self, root_module, ignored_modules, root_kwargs):
        return {module: copy.copy(root_kwargs) for module in root_module.modules()
                if module not in ignored_modules and isinstance(module, self._module_classes)}

    def __call__(self, module, recurse, *args, **kwargs):
        return _module_wrap_policy(module, recurse, nonwrapped_numel=-1, module_classes=self._module_classes)

    def __repr__(self):
        return super().__repr__() + f"({self._module_classes_str})"


class CustomPolicy(_Policy):
    """Wrap the modules for which `lambda_fn(module)` is true, or a dict of constructor arguments that override
    the root's for that module."""

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def _run_policy(self, root_module, ignored_modules, root_kwargs):
        targets = {}
        for module in root_module.modules():
            if module in ignored_modules:
                continue
            answer = self._lambda_fn(module)
            if not isinstance(answer, (dict, bool)):
                raise ValueError("The lambda_fn passed to CustomPolicy should return False/True or a kwarg dict, "
                                 f"but it returned {answer}")
            if not answer:
                continue
            kwargs = copy.copy(root_kwargs)
            if isinstance(answer, dict):
                kwargs.update(answer)
            targets[module] = kwargs
        return targets


def _numel(module, ignored_params):
    return sum(p.numel() for p in module.parameters() if id(p) not in ignored_params)


def _is_wrapped(module, wrapper_cls):
    return isinstance(module, wrapper_cls)


def _recursive_wrap(module, auto_wrap_policy, wrapper_cls, ignored_modules, ignored_params,
                    only_wrap_children=False, **kwargs):
    """Wrap the submodules a function policy picks, deepest first; returns (module, parameters now wrapped)."""
    if _is_wrapped(module, wrapper_cls):
        return module, 0
    nonwrapped_numel = _numel(module, ignored_params)
    if not auto_wrap_policy(module=module, recurse=True, nonwrapped_numel=nonwrapped_numel):
        return module, 0
    wrapped_numel = 0
    for name, child in list(module.named_children()):
        if child in ignored_modules:
            continue
        new_child, numel = _recursive_wrap(child, auto_wrap_policy, wrapper_cls, ignored_modules, ignored_params,
                                           **kwargs)
        setattr(module, name, new_child)
        wrapped_numel += numel
    remainder = nonwrapped_numel - wrapped_numel
    if not only_wrap_children and auto_wrap_policy(module=module, recurse=False, nonwrapped_numel=remainder):
        return wrapper_cls(module, **kwargs), nonwrapped_numel
    return module, wrapped_numel


def _wrap_named_targets(root_module, targets, wrapper_cls):
    """Wrap the modules in `targets` (module -> constructor kwargs) below the root, deepest first."""
    def visit(module):
        for name, child in list(module.named_children()):
            new_child = visit(child)
            if new_child is not child:
                setattr(module, name, new_child)
        if module is not root_module and module in targets and not _is_wrapped(module, wrapper_cls):
            return wrapper_cls(module, **targets[module])
        return module

    visit(root_module)


def _auto_wrap(root_module, policy, wrapper_cls, ignored_modules, ignored_params, root_kwargs):
    """Wrap what `policy` picks below `root_module` (the root itself is left to the caller)."""
    if isinstance(policy, _Policy):
        _wrap_named_targets(root_module, policy._run_policy(root_module, ignored_modules, root_kwargs), wrapper_cls)
    else:
        _recursive_wrap(root_module, policy, wrapper_cls, ignored_modules, ignored_params, only_wrap_children=True,
                        **root_kwargs)


class _ConfigAutoWrap:
    """The wrapper class and its arguments while inside `enable_wrap`."""
    in_autowrap_context = False
    wrapper_cls = None
    kwargs = {}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Inside, `wrap(module)` wraps with `wrapper_cls(module, **wrapper_kwargs)`."""
    if _ConfigAutoWrap.in_autowrap_context:
        raise NotImplementedError("You are already within an autowrap context and we currently do not supported "
                                  "nested autowrap.")
    _ConfigAutoWrap.in_autowrap_context = True
    _ConfigAutoWrap.wrapper_cls = wrapper_cls
    _ConfigAutoWrap.kwargs = wrapper_kwargs
    try:
        yield
    finally:
        _ConfigAutoWrap.in_autowrap_context = False
        _ConfigAutoWrap.wrapper_cls = None
        _ConfigAutoWrap.kwargs = {}


def wrap(module, **wrap_overrides):
    """Inside `enable_wrap`, the module wrapped (with `wrap_overrides` over the context's arguments); outside,
    the module itself."""
    if not _ConfigAutoWrap.in_autowrap_context:
        return module
    kwargs = {**_ConfigAutoWrap.kwargs, **wrap_overrides}
    return _ConfigAutoWrap.wrapper_cls(module, **kwargs)
