"""FSDP's MixedPrecision for a unit whose parameters stay whole: during the unit's forward its module sees each
parameter cast to `param_dtype` (a recorded cast, so the gradient reaches the full-precision parameter as
torch's does: computed in `param_dtype`, then cast to the parameter's dtype); the root casts its floating inputs;
buffers are cast to `buffer_dtype` in place at the first forward and come back in their own dtype in the state
dict. What would round differently from torch is refused (see `check`)."""
import contextlib

_NAME = "torch.distributed.fsdp.FullyShardedDataParallel(mixed_precision=...)"


def _unsupported(why):
    return NotImplementedError(f"{_NAME} is not supported on MindSpore here: {why}")


def active(policy):
    return policy is not None and any(d is not None for d in (policy.param_dtype, policy.reduce_dtype,
                                                               policy.buffer_dtype))


def _exact_in(narrow, wide):
    """Whether every value of dtype `narrow` is a value of dtype `wide` (float16 and bfloat16 hold each other's
    values only in part)."""
    from ... import bfloat16, float16, float32, float64

    wider = {float16: (float32, float64), bfloat16: (float32, float64), float32: (float64,), float64: ()}
    return narrow == wide or wide in wider.get(narrow, ())


def check(policy, module, world_size, auto_wrap_policy):
    if not active(policy):
        return
    if world_size > 1:
        raise _unsupported("with more than one rank the gradient reduction in reduce_dtype is not built")
    if policy.keep_low_precision_grads:
        raise _unsupported("keep_low_precision_grads=True (gradients in param_dtype on full-precision parameters) "
                           "is not built")
    if auto_wrap_policy is not None and policy.param_dtype is not None and any(
            isinstance(m, tuple(policy._module_classes_to_ignore)) for m in module.modules()):
        raise _unsupported("torch wraps the modules of _module_classes_to_ignore (batch norms) as full-precision "
                           "units of their own under an auto-wrap policy; that override is not built")
    reduce_dtype = policy.reduce_dtype
    if reduce_dtype is not None:
        computed = policy.param_dtype
        for param in module.parameters():
            source = param.dtype if computed is None else computed
            if not _exact_in(source, reduce_dtype):
                raise _unsupported(f"reduce_dtype={reduce_dtype} rounds gradients computed in {source}; that "
                                   "rounding of torch's reduction is not built")


def _cast_tree(value, dtype):
    if hasattr(value, "is_floating_point") and hasattr(value, "dtype"):
        return value.to(dtype) if value.is_floating_point() and value.dtype != dtype else value
    if isinstance(value, dict):
        return type(value)((k, _cast_tree(v, dtype)) for k, v in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_cast_tree(v, dtype) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_tree(v, dtype) for v in value)
    return value


def cast_inputs(policy, is_root, args, kwargs):
    if policy is None or policy.param_dtype is None:
        return args, kwargs
    if (policy.cast_root_forward_inputs if is_root else policy.cast_forward_inputs):
        return _cast_tree(args, policy.param_dtype), _cast_tree(kwargs, policy.param_dtype)
    return args, kwargs


@contextlib.contextmanager
def low_precision_parameters(policy, owned):
    """Within, each (module, name) in `owned` holds its parameter cast to param_dtype."""
    if policy is None or policy.param_dtype is None:
        yield
        return
    swapped = []
    for module, name in owned:
        param = module._parameters[name]
        if param is not None and param.is_floating_point() and param.dtype != policy.param_dtype:
            module._parameters[name] = param.to(policy.param_dtype)
            swapped.append((module, name, param))
    try:
        yield
    finally:
        for module, name, param in swapped:
            module._parameters[name] = param


def cast_buffers(policy, owned):
    """Cast the buffers in `owned` ((module, name) pairs) to buffer_dtype in place; returns the original dtype of
    each cast buffer by (id(module), name)."""
    original = {}
    if policy is None or policy.buffer_dtype is None:
        return original
    for module, name in owned:
        buffer = module._buffers[name]
        if buffer is not None and buffer.is_floating_point() and buffer.dtype != policy.buffer_dtype:
            original[(id(module), name)] = buffer.dtype
            module._buffers[name] = buffer.to(policy.buffer_dtype)
    return original
