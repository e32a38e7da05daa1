"""torch.distributed.fsdp.FullyShardedDataParallel (FSDP1) with every parameter kept whole on every rank.

Sharding is a memory layout: the full state dict, forward, backward and optimizer steps of an FSDP model give the
numbers of the unwrapped model, averaged over the ranks like data parallelism. This class gives torch's module
structure and API over that: the wrapped module under `_fsdp_wrapped_module` (so `named_parameters()` and
`named_modules()` carry that prefix, as torch's do with `use_orig_params=True`), attribute access forwarded to it,
state dicts with clean keys, nested units from an auto-wrap policy, `summon_full_params`, `clip_grad_norm_`,
`no_sync`, and the optimizer state dict keyed by parameter names. What it does not give is the memory saving.
With more than one rank the root unit averages gradients after backward with DistributedDataParallel's reducer.
"""
import contextlib
import warnings
from collections import OrderedDict

from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from ...nn.modules.module import Module
from .api import (BackwardPrefetch, CONFIG_TYPES, CPUOffload, FullOptimStateDictConfig,  # noqa: F401
                  FullStateDictConfig, LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision,
                  OptimStateDictConfig, OptimStateKeyType, ShardedOptimStateDictConfig, ShardedStateDictConfig,
                  ShardingStrategy, StateDictConfig, StateDictSettings, StateDictType)
from . import _mixed_precision, wrap as _wrap

FSDP_WRAPPED_MODULE = "_fsdp_wrapped_module"
FSDP_PREFIX = FSDP_WRAPPED_MODULE + "."
_NAME = "torch.distributed.fsdp.FullyShardedDataParallel"


def _clean(name):
    """A name with every FSDP wrapper level taken out (`_fsdp_wrapped_module.a.b` -> `a.b`)."""
    return name.replace(FSDP_PREFIX, "")


def _unsupported(what, why):
    return NotImplementedError(f"{_NAME}({what}) is not supported on MindSpore: {why}")


class FullyShardedDataParallel(Module):
    """Wraps `module` as one FSDP unit (and, with `auto_wrap_policy`, the submodules the policy picks as units of
    their own). Requires `use_orig_params=True`: the flat-parameter layout of `use_orig_params=False` (one
    `_flat_param` per unit in `named_parameters()`) is not built here."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=BackwardPrefetch.BACKWARD_PRE, mixed_precision=None, ignored_modules=None,
                 param_init_fn=None, device_id=None, sync_module_states=False, forward_prefetch=False,
                 limit_all_gathers=True, use_orig_params=False, ignored_states=None, device_mesh=None):
        super().__init__()
        if not use_orig_params:
            raise _unsupported("use_orig_params=False", "the flat-parameter layout (one `_flat_param` per unit) is "
                               "not built; parameters stay whole, so pass use_orig_params=True")
        if device_mesh is not None or isinstance(process_group, tuple):
            raise _unsupported("device_mesh=/hybrid process groups", "only one process group is provided")
        group = dist._process_group.resolve(process_group)
        _mixed_precision.check(mixed_precision, module, group.size(), auto_wrap_policy)
        strategy = ShardingStrategy.FULL_SHARD if sharding_strategy is None else sharding_strategy
        if strategy in (ShardingStrategy.HYBRID_SHARD, ShardingStrategy._HYBRID_SHARD_ZERO2):
            raise _unsupported(f"sharding_strategy={strategy}", "hybrid sharding needs intra- and inter-node groups")
        if group.size() == 1 and strategy != ShardingStrategy.NO_SHARD:
            warnings.warn(f"FSDP is switching to use `NO_SHARD` instead of {strategy} since the world size is 1.")
            strategy = ShardingStrategy.NO_SHARD
        ignored = _ignored_modules(module, ignored_modules, ignored_states)
        if group.size() > 1:
            if ignored:
                raise _unsupported("ignored_modules= with more than one rank", "ignored parameters would still be "
                                   "averaged over the ranks")
        if param_init_fn is not None and any(p.device.type == "meta" for p in module.parameters()):
            raise _unsupported("param_init_fn= with parameters on the meta device", "materializing meta "
                               "parameters per unit is not built")
        module = _placed(module, device_id)
        if group.size() > 1 and sync_module_states and any(t.device.type == "cpu" for t in _own_tensors(module)):
            raise ValueError("The module has CPU parameters or buffers when `sync_module_states=True`, which "
                             "requires them to be on GPU. Please specify the `device_id` argument or move the "
                             "module to GPU before passing it to FSDP.")

        self.process_group = group
        self.sharding_strategy = strategy
        self.cpu_offload = cpu_offload or CPUOffload()
        self.backward_prefetch = backward_prefetch
        self.forward_prefetch = forward_prefetch
        self.limit_all_gathers = limit_all_gathers
        self.mixed_precision = mixed_precision or MixedPrecision()
        self._mixed_precision = mixed_precision if _mixed_precision.active(mixed_precision) else None
        self._buffer_dtypes = {}        # (id(module), name) -> a cast buffer's own dtype, for state dicts
        self.compute_device = _compute_device(module, device_id)
        self._use_orig_params = use_orig_params
        self._ignored_modules = ignored
        self._is_root = None            # decided at the first forward, as torch does
        self._summoning = False         # inside summon_full_params: parameter names come out clean
        self._sync_gradients = True     # False inside no_sync()
        self._state_dict_type = StateDictType.FULL_STATE_DICT
        self._state_dict_config = FullStateDictConfig()
        self._optim_state_dict_config = FullOptimStateDictConfig()

        if auto_wrap_policy is not None:
            child_kwargs = dict(process_group=process_group, sharding_strategy=sharding_strategy,
                                cpu_offload=cpu_offload, backward_prefetch=backward_prefetch,
                                mixed_precision=mixed_precision, param_init_fn=param_init_fn, device_id=device_id,
                                sync_module_states=sync_module_states, forward_prefetch=forward_prefetch,
                                limit_all_gathers=limit_all_gathers, use_orig_params=use_orig_params)
            ignored_params = {id(p) for m in ignored for p in m.parameters()}
            _wrap._auto_wrap(module, auto_wrap_policy, FullyShardedDataParallel, ignored, ignored_params,
                             child_kwargs)
        if sync_module_states and group.size() > 1:
            with no_grad():
                for tensor in _own_tensors(module):
                    dist.broadcast(tensor, src=group.ranks[0], group=group)
        elif strategy != ShardingStrategy.NO_SHARD and group.size() > 1:
            _check_same_parameters_on_every_rank(module, group, strategy)
        self._fsdp_wrapped_module = module
        self._averager = None
        self._register_state_dict_hook(_clean_state_dict_keys)
        self._register_load_state_dict_pre_hook(self._prefix_loaded_keys)
        self.register_load_state_dict_post_hook(_clean_incompatible_keys)

    # ------------------------------------------------------------ the wrapped module
    @property
    def module(self):
        """The wrapped module."""
        return self._fsdp_wrapped_module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            wrapped = self.__dict__.get("_modules", {}).get(FSDP_WRAPPED_MODULE)
            if wrapped is None:
                raise
            return getattr(wrapped, name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    def named_parameters(self, *args, **kwargs):
        for name, param in super().named_parameters(*args, **kwargs):
            yield (_clean(name) if self._summoning else name), param

    def named_buffers(self, *args, **kwargs):
        for name, buffer in super().named_buffers(*args, **kwargs):
            yield (_clean(name) if self._summoning else name), buffer

    def check_is_root(self):
        if self._is_root is None:
            self._lazy_init()
        return self._is_root

    def _lazy_init(self):
        """The first unit to run forward is the root; the units inside it are not. Each unit's buffers take its
        buffer_dtype now, as torch casts them at the root's first forward."""
        self._is_root = True
        for unit in self.modules():
            if isinstance(unit, FullyShardedDataParallel):
                if unit is not self:
                    unit._is_root = False
                unit._buffer_dtypes.update(_mixed_precision.cast_buffers(
                    unit._mixed_precision, _owned(unit._fsdp_wrapped_module, "_buffers")))
        if self.process_group.size() > 1:
            from ...nn.parallel.distributed import DistributedDataParallel

            # DDP's reducer averages the gradients of every parameter below the root after each backward;
            # kept out of the module tree (it would show in named_modules and the state dict otherwise)
            averager = DistributedDataParallel(self._fsdp_wrapped_module, process_group=self.process_group,
                                               broadcast_buffers=False, init_sync=False,
                                               find_unused_parameters=True)
            object.__setattr__(self, "_averager", averager)

    def forward(self, *args, **kwargs):
        if self._is_root is None:
            self._lazy_init()
        policy = self._mixed_precision
        args, kwargs = _mixed_precision.cast_inputs(policy, self._is_root, args, kwargs)
        owned = _owned(self._fsdp_wrapped_module, "_parameters") if policy is not None else ()
        with _mixed_precision.low_precision_parameters(policy, owned):
            if self._averager is not None:
                self._averager.require_backward_grad_sync = self._sync_gradients
                return self._averager(*args, **kwargs)
            return self._fsdp_wrapped_module(*args, **kwargs)

    # ------------------------------------------------------------ state dicts
    def state_dict(self, *args, **kwargs):
        _check_state_dict_type(self, "state_dict")
        return super().state_dict(*args, **kwargs)

    def _prefix_loaded_keys(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                            error_msgs):
        """The clean keys of a full state dict, given the wrapper level the module tree has here."""
        _check_state_dict_type(self, "load_state_dict")
        for key in [k for k in state_dict if k.startswith(prefix)]:
            state_dict[prefix + FSDP_PREFIX + key[len(prefix):]] = state_dict.pop(key)

    @staticmethod
    def fsdp_modules(module, root_only=False):
        """The FSDP units in `module` (itself included), or only the outermost ones."""
        units = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if not root_only:
            return units
        inner = {id(m) for unit in units for m in unit.modules() if m is not unit}
        return [unit for unit in units if id(unit) not in inner]

    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Set the state-dict kind of every unit in `module`; returns the settings they had."""
        state_type, optim_type = CONFIG_TYPES[state_dict_type]
        state_dict_config = state_type() if state_dict_config is None else state_dict_config
        optim_state_dict_config = optim_type() if optim_state_dict_config is None else optim_state_dict_config
        if type(state_dict_config) is not state_type:
            raise RuntimeError(f"Expected state_dict_config of type {state_type} but got {type(state_dict_config)}")
        if type(optim_state_dict_config) is not optim_type:
            raise RuntimeError(f"Expected optim_state_dict_config of type {optim_type} but got "
                               f"{type(optim_state_dict_config)}")
        previous = FullyShardedDataParallel.get_state_dict_type(module)
        for unit in FullyShardedDataParallel.fsdp_modules(module):
            unit._state_dict_type = state_dict_type
            unit._state_dict_config = state_dict_config
            unit._optim_state_dict_config = optim_state_dict_config
        return previous

    @staticmethod
    def get_state_dict_type(module):
        """The state-dict settings of the units in `module` (they must agree)."""
        settings = None
        for unit in FullyShardedDataParallel.fsdp_modules(module):
            mine = StateDictSettings(unit._state_dict_type, unit._state_dict_config, unit._optim_state_dict_config)
            if settings is None:
                settings = mine
            elif mine != settings:
                raise AssertionError("All FSDP modules must have the same state dict settings. Got "
                                     f"{settings} and {mine}.")
        if settings is None:
            raise AssertionError("No FSDP modules found")
        return settings

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Within, the units of `module` give and take state dicts of `state_dict_type`."""
        previous = FullyShardedDataParallel.set_state_dict_type(module, state_dict_type, state_dict_config,
                                                                optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(module, previous.state_dict_type,
                                                         previous.state_dict_config,
                                                         previous.optim_state_dict_config)

    # ------------------------------------------------------------ full parameters
    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False, offload_to_cpu=False,
                           with_grads=False):
        """Within, the units' parameters are whole (they always are here) and their names come out clean.
        With writeback=False, changes made inside are undone at exit where torch's parameters are sharded."""
        if rank0_only and writeback:
            raise NotImplementedError("writeback=True and rank0_only=True is not supported yet")
        units = FullyShardedDataParallel.fsdp_modules(module)
        if not recurse:
            units = FullyShardedDataParallel.fsdp_modules(module, root_only=True)
        saved = []
        if not writeback:
            saved = [(p, p.detach().clone()) for unit in units
                     if unit.sharding_strategy != ShardingStrategy.NO_SHARD for p in unit.parameters()]
        previous = [unit._summoning for unit in units]
        for unit in units:
            unit._summoning = True
        try:
            yield
        finally:
            for unit, was in zip(units, previous):
                unit._summoning = was
            with no_grad():
                for param, value in saved:
                    param.copy_(value)

    # ------------------------------------------------------------ training
    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Scale the gradients of every parameter of the unit tree so their total norm is at most `max_norm`;
        returns the total norm before clipping (norms taken in float32, returned in the gradients' dtype)."""
        if self._is_root is None:
            self._lazy_init()
        if not self._is_root:
            raise RuntimeError("`clip_grad_norm_()` should only be called on the root FSDP instance")
        from ... import float32, promote_types
        from ...nn.utils.clip_grad import clip_grads_with_norm_, get_total_norm

        params = [p for p in self.parameters() if p.grad is not None]
        if not params:
            from ... import tensor

            return tensor(0.0)
        grads = [p.grad for p in params]
        result_dtype = grads[0].dtype
        for grad in grads[1:]:
            result_dtype = promote_types(result_dtype, grad.dtype)
        total = get_total_norm([g if g.dtype == float32 else g.float() for g in grads], norm_type)
        clip_grads_with_norm_(params, float(max_norm), total)
        return total.to(result_dtype)

    @contextlib.contextmanager
    def no_sync(self):
        """Within, backward accumulates gradients without averaging them over the ranks."""
        units = FullyShardedDataParallel.fsdp_modules(self)
        previous = [unit._sync_gradients for unit in units]
        for unit in units:
            unit._sync_gradients = False
        try:
            yield
        finally:
            for unit, was in zip(units, previous):
                unit._sync_gradients = was

    def register_comm_hook(self, state, hook):
        raise NotImplementedError(f"{_NAME}.register_comm_hook is not supported on MindSpore: gradients are "
                                  "averaged by DistributedDataParallel's reducer")

    # ------------------------------------------------------------ optimizer state dicts
    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """The optimizer's state dict with parameters named by their clean names instead of numbered."""
        _check_full_optim(model, "optim_state_dict")
        state = optim.state_dict() if optim_state_dict is None else optim_state_dict
        names = _names_by_index(model, optim)
        config = FullyShardedDataParallel.get_state_dict_type(model).optim_state_dict_config
        if getattr(config, "rank0_only", False) and dist.get_rank() != 0:
            return {}
        return {
            "state": {names[i]: _copied(v, config) for i, v in sorted(state["state"].items(),
                                                                      key=lambda item: names[item[0]])},
            "param_groups": [{**g, "params": [names[i] for i in g["params"]]} for g in state["param_groups"]],
        }

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False, load_directly=False,
                                 group=None):
        """A state dict from `optim_state_dict` back in the numbered form `optim.load_state_dict` takes."""
        _check_full_optim(model, "optim_state_dict_to_load")
        if is_named_optimizer:
            raise _unsupported("optim_state_dict_to_load(is_named_optimizer=True)", "named optimizers are not "
                               "provided")
        index = {name: i for i, name in _names_by_index(model, optim).items()}
        converted = {
            "state": {index[name]: value for name, value in optim_state_dict["state"].items()},
            "param_groups": [{**g, "params": [index[name] for name in g["params"]]}
                             for g in optim_state_dict["param_groups"]],
        }
        converted["state"] = dict(sorted(converted["state"].items()))
        if load_directly:
            optim.load_state_dict(converted)
        return converted

    def extra_repr(self):
        return ""


def _check_state_dict_type(unit, what):
    if unit._state_dict_type == StateDictType.FULL_STATE_DICT:
        return
    if unit.sharding_strategy != ShardingStrategy.NO_SHARD:
        raise NotImplementedError(f"{_NAME}.{what} with {unit._state_dict_type} is not supported on MindSpore: "
                                  "its sharded tensors (DTensor/ShardedTensor per rank) are not built; use "
                                  "StateDictType.FULL_STATE_DICT")
    warnings.warn("When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned.")


def _clean_state_dict_keys(unit, state_dict, prefix, local_metadata):
    """Post-hook of each unit: its keys lose the wrapper level (keeping their order), its parameters are detached
    copies (torch's full state dict holds gathered copies, never the parameters themselves), and with
    rank0_only only rank 0 keeps them."""
    config = unit._state_dict_config
    wrapped = prefix + FSDP_PREFIX
    param_names = _own_param_names(unit._fsdp_wrapped_module, prefix)
    buffer_dtypes = _own_buffer_dtypes(unit, prefix)
    drop = getattr(config, "rank0_only", False) and dist.get_rank() != 0
    copies = {}
    for key in [k for k in state_dict if k.startswith(wrapped)]:
        value = state_dict.pop(key)
        if drop:
            continue
        key = prefix + key[len(wrapped):]
        if key in param_names:  # copies even with keep_vars=True, as torch's
            if id(param_names[key]) not in copies:
                copies[id(param_names[key])] = value.detach().clone()
            value = copies[id(param_names[key])]
        elif key in buffer_dtypes:
            value = value.to(buffer_dtypes[key])
        if config.offload_to_cpu:
            value = value.cpu()
        state_dict[key] = value
    return state_dict


def _owned(module, registry):
    """(module, name) of each entry of `registry` (`_parameters` or `_buffers`) in `module` outside its nested
    FSDP units."""
    found = []

    def visit(mod):
        found.extend((mod, name) for name in getattr(mod, registry))
        for child in mod._modules.values():
            if child is not None and not isinstance(child, FullyShardedDataParallel):
                visit(child)

    visit(module)
    return found


def _own_buffer_dtypes(unit, prefix):
    """Clean state-dict name -> own dtype, for the unit's buffers cast to buffer_dtype."""
    if not unit._buffer_dtypes:
        return {}
    names = {}

    def visit(mod, path):
        for name in mod._buffers:
            if (id(mod), name) in unit._buffer_dtypes:
                names[path + name] = unit._buffer_dtypes[(id(mod), name)]
        for name, child in mod._modules.items():
            if child is not None and not isinstance(child, FullyShardedDataParallel):
                visit(child, path + name + ".")

    visit(unit._fsdp_wrapped_module, prefix)
    return names


def _own_param_names(module, prefix):
    """Clean state-dict name -> parameter, for the parameters of a unit outside its nested units."""
    names = {}

    def visit(mod, path):
        for name, param in mod._parameters.items():
            if param is not None:
                names[path + name] = param
        for name, child in mod._modules.items():
            if child is None or isinstance(child, FullyShardedDataParallel):
                continue
            visit(child, path + name + ".")

    visit(module, prefix)
    return names


def _clean_incompatible_keys(unit, incompatible):
    for keys in (incompatible.missing_keys, incompatible.unexpected_keys):
        keys[:] = [_clean(k) for k in keys]


def _own_tensors(module, buffers=True):
    """Parameters (and buffers) of `module` outside its nested FSDP units (those handle their own)."""
    found = []

    def visit(mod):
        found.extend(t for t in mod._parameters.values() if t is not None)
        if buffers:
            found.extend(t for t in mod._buffers.values() if t is not None)
        for child in mod._modules.values():
            if child is not None and not isinstance(child, FullyShardedDataParallel):
                visit(child)

    visit(module)
    return found


def _check_same_parameters_on_every_rank(module, group, strategy):
    """torch's sharded unit keeps, on each rank, that rank's shard of the parameters that rank built; the whole
    parameters kept here give its numbers only if every rank built the same ones."""
    import numpy as np

    differs = 0.0
    with no_grad():
        for param in _own_tensors(module, buffers=False):
            ours = param.detach().float()
            first = ours.clone()
            dist.broadcast(first, src=group.ranks[0], group=group)
            if not np.array_equal(first.numpy(), ours.numpy(), equal_nan=True):
                differs = 1.0
        from ... import tensor

        flag = tensor([differs])
        dist.all_reduce(flag, group=group)
    if float(flag[0]) > 0:
        raise _unsupported(f"sharding_strategy={strategy} over ranks whose modules hold different parameters",
                           "torch's units would then hold each rank's own shard of its own values; build the same "
                           "parameters on every rank (same seed or checkpoint) or use ShardingStrategy.NO_SHARD")


def _ignored_modules(module, ignored_modules, ignored_states):
    if ignored_states is not None:
        if ignored_modules is not None:
            raise ValueError("Cannot pass both ignored_modules and ignored_states at the same time. Please just "
                             "pass ignored_states.")
        states = list(ignored_states)
        if any(not isinstance(s, Module) for s in states):
            raise _unsupported("ignored_states=<parameters>", "only ignored modules are provided")
        ignored_modules = states
    return set(ignored_modules or ())


def _placed(module, device_id):
    if device_id is None:
        from ... import accelerator

        if not accelerator.is_available():
            raise RuntimeError("FSDP needs a non-CPU accelerator device, but no accelerator device is detected.")
        return module
    from ..._device import device as _device

    target = _device("cuda", device_id) if isinstance(device_id, int) else _device(device_id)
    return module.to(target)


def _compute_device(module, device_id):
    for param in module.parameters():
        return param.device
    from ..._device import device as _device

    return _device("cpu") if device_id is None else _device(device_id)


def _check_full_optim(model, what):
    settings = FullyShardedDataParallel.get_state_dict_type(model)
    if settings.state_dict_type != StateDictType.FULL_STATE_DICT and any(
            unit.sharding_strategy != ShardingStrategy.NO_SHARD
            for unit in FullyShardedDataParallel.fsdp_modules(model)):
        raise NotImplementedError(f"{_NAME}.{what} with {settings.state_dict_type} is not supported on MindSpore: "
                                  "its sharded tensors are not built; use StateDictType.FULL_STATE_DICT")


def _names_by_index(model, optim):
    """Optimizer parameter index (as in optim.state_dict()) -> the parameter's clean name in `model`."""
    by_id = {}
    for name, param in Module.named_parameters(model):
        by_id.setdefault(id(param), _clean(name))
    names, index = {}, 0
    for group in optim.param_groups:
        for param in group["params"]:
            if id(param) not in by_id:
                raise KeyError("FSDP.optim_state_dict: the optimizer holds a parameter that is not in the model")
            names[index] = by_id[id(param)]
            index += 1
    return names


def _copied(state, config):
    out = {}
    for key, value in state.items():
        if hasattr(value, "clone") and hasattr(value, "shape"):
            value = value.detach().clone()
            if config.offload_to_cpu:
                value = value.cpu()
        out[key] = value
    return out


# torch's module of this name also exports the option types
__all__ = ["FullyShardedDataParallel", "ShardingStrategy", "BackwardPrefetch", "MixedPrecision", "CPUOffload",
           "StateDictType", "StateDictConfig", "FullStateDictConfig", "LocalStateDictConfig",
           "ShardedStateDictConfig", "OptimStateDictConfig", "FullOptimStateDictConfig", "LocalOptimStateDictConfig",
           "ShardedOptimStateDictConfig", "StateDictSettings", "OptimStateKeyType"]
