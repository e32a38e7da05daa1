"""torch.distributed.checkpoint.state_dict for models whose parameters each process holds whole (plain modules,
DistributedDataParallel, torch.compile's wrapper): `get_model_state_dict` / `set_model_state_dict` with torch's
canonical names (the wrappers' own prefixes, `_orig_mod.` and DDP's `module.`, left out) and StateDictOptions.
accelerate's load_checkpoint_in_model loads every checkpoint through set_model_state_dict.

Sharded models (FSDP, DTensor) do not exist here; the optimizer variants, which re-key optimizer state by
parameter name, are not provided and raise NotImplementedError."""
import dataclasses

from .. import _process_group
from ..._stand_ins import unsupported


@dataclasses.dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _wrapper_attribute(module):
    """The attribute a wrapper module keeps the wrapped one under, which torch's names leave out."""
    from ..._dynamo.eval_frame import OptimizedModule
    from ...nn.parallel.distributed import DistributedDataParallel

    if isinstance(module, OptimizedModule):
        return "_orig_mod"
    if isinstance(module, DistributedDataParallel):
        return "module"
    return None


def _canonical(model, dotted):
    """torch's canonical form of a dotted attribute path from `model`: the wrappers' own attributes left out."""
    parts, current = [], model
    for part in dotted.split(".") if dotted else []:
        skip = _wrapper_attribute(current) == part
        current = getattr(current, part, None) if current is not None else None
        if not skip:
            parts.append(part)
    return ".".join(parts)


def _canonical_names(model):
    """{state_dict key: torch's canonical name} for `model`."""
    return {key: _canonical(model, key) for key in model.state_dict()}


def _canonical_prefix(name, model):
    canonical = _canonical(model, name)
    return canonical + "." if canonical else ""


def get_model_state_dict(model, *, submodules=None, options=None):
    options = options or StateDictOptions()
    canonical = _canonical_names(model)
    frozen = set()
    if options.ignore_frozen_params:
        frozen = {name for name, param in model.named_parameters() if not param.requires_grad}
    prefixes = None
    if submodules:
        prefixes = [_canonical_prefix(name, model) for name, module in model.named_modules() if module in submodules]
    state = {}
    for key, value in model.state_dict().items():
        if key in frozen:
            continue
        name = canonical[key]
        if prefixes is not None:
            prefix = next((p for p in prefixes if name.startswith(p)), None)
            if prefix is None:
                continue
            if not options.keep_submodule_prefixes:
                name = name[len(prefix):]
        state[name] = value
    return state


def set_model_state_dict(model, model_state_dict, *, options=None):
    options = options or StateDictOptions()
    if options.broadcast_from_rank0 and _process_group.is_initialized() and _process_group.get_world_size() > 1:
        raise NotImplementedError("torch.distributed.checkpoint.state_dict.set_model_state_dict(broadcast_from_rank0"
                                  "=True) with more than one process is not supported by mindnlp-shim: load the "
                                  "checkpoint on every rank")
    canonical = _canonical_names(model)
    if options.strict and any(key != name for key, name in canonical.items()):
        # (a wrapped model: torch checks its canonical names, parameters then buffers, before loading anything)
        tensors = [key for key, _ in model.named_parameters()] + [key for key, _ in model.named_buffers()]
        for key in tensors:
            if key in canonical and canonical[key] not in model_state_dict:
                raise RuntimeError(f"Missing key: {canonical[key]}.")
    key_of = {name: key for key, name in canonical.items()}
    state = {key_of.get(name, name): value for name, value in model_state_dict.items()}
    return model.load_state_dict(state, strict=options.strict)  # (its key lists in the model's own names, as torch's)


_OPTIMIZER_STATE = ("optimizer state keyed by parameter name is not provided by mindnlp-shim; use "
                    "optimizer.state_dict() / load_state_dict()")
get_optimizer_state_dict = unsupported("distributed.checkpoint.state_dict.get_optimizer_state_dict", _OPTIMIZER_STATE)
set_optimizer_state_dict = unsupported("distributed.checkpoint.state_dict.set_optimizer_state_dict", _OPTIMIZER_STATE)
get_state_dict = unsupported("distributed.checkpoint.state_dict.get_state_dict", _OPTIMIZER_STATE)
set_state_dict = unsupported("distributed.checkpoint.state_dict.set_state_dict", _OPTIMIZER_STATE)
