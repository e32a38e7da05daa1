"""Which MindSpore computation serves a torch op on the process's device target: the one place that decides.

Ops choose their MindSpore kernels in `_ops/*` and `nn/functional.py`, picking calls that have kernels on
every target (see docs/architecture.md). What differs per target is dtype support: MindSpore 2.10's CPU
backend has bfloat16 kernels only for a few elementwise, copy and shape ops, so on the CPU every other op
computes bf16 inputs in float32 and returns bf16, the fallback torch itself uses for ops without
low-precision kernels. `adapt_module` applies that rule to each public op of a module.
"""
import functools

import mindspore
from mindspore import ops

from . import _dtype, _float8
from .. import _mindspore as _ms
from ._runtime import DEVICE_TARGET

Tensor = mindspore.Tensor
BF16 = mindspore.bfloat16
F32 = mindspore.float32
E4M3, E5M2 = mindspore.float8_e4m3fn, mindspore.float8_e5m2
_NOT_NATIVE = frozenset({BF16, E4M3, E5M2})  # dtypes the wrapper below looks at: bf16 upcasts, float8 refuses

# Ops with native bf16 kernels per target (measured for CPU in the reference tables); others upcast.
NATIVE_BF16 = {
    # CPU: bf16 forward kernels exist for add/mul/div/cat/split, but their backward needs ReduceSum/Sub,
    # which have none; so only creation and pure layout ops (whose backward is layout too) stay native.
    "CPU": frozenset({
        "cat", "concat", "concatenate", "reshape", "view", "view_as", "reshape_as", "view_as_dtype", "transpose",
        "swapaxes", "swapdims", "t", "permute", "movedim", "moveaxis", "unsqueeze", "squeeze", "flatten",
        "unflatten", "contiguous", "atleast_1d", "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones",
        "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace",
        "eye", "scalar_tensor", "broadcast_shapes",
        "layer_norm",  # computes low-precision input in float32 itself and returns the input's dtype, as torch
    }),
}


# torch view ops that are computed in float32 for bf16 only inside autograd, and keep sharing memory (`bf16_view`).
# The view ops built on them (narrow, select, chunk, unbind, tensor_split, expand_as, broadcast_to, ...) and basic
# indexing are marked in their modules as computing bf16 themselves.
BF16_VIEWS = frozenset({"expand", "diagonal", "split", "split_with_sizes"})


def _has_bf16(values, dtypes=frozenset({BF16})):
    # a tensor's dtype is always MindSpore's singleton object (see _dtype's fast comparisons)
    for v in values:
        if type(v) is Tensor:
            if v.dtype in dtypes:
                return True
        elif isinstance(v, (list, tuple)) and v and type(v[0]) is Tensor:
            if any(type(t) is Tensor and t.dtype in dtypes for t in v):  # (index tuples mix in slices)
                return True
    return False


def _has_float8(args, kwargs):
    return _has_bf16(args, _FLOAT8) or _has_bf16(kwargs.values(), _FLOAT8)


_FLOAT8 = frozenset({E4M3, E5M2})


def _to_f32(v):
    if type(v) is Tensor:
        return ops.cast(v, F32) if v.dtype == BF16 else v
    if isinstance(v, (list, tuple)) and v and type(v[0]) is Tensor:
        return type(v)(_to_f32(t) for t in v) if not hasattr(v, "_fields") else v
    return v


def _to_bf16(out):
    if type(out) is Tensor:
        return ops.cast(out, BF16) if out.dtype == F32 else out
    if isinstance(out, tuple):
        converted = [_to_bf16(o) for o in out]
        return type(out)(*converted) if hasattr(out, "_fields") else type(out)(converted)
    if isinstance(out, list):
        return [_to_bf16(o) for o in out]
    return out


def _only_bf16_floats(values):
    """True when torch's result dtype is bf16: every floating tensor among `values` is bf16, or the wider
    ones are 0-d beside a bf16 tensor with dims (a 0-d tensor does not widen a same-kind tensor with dims)."""
    bf16_with_dims = wider_0d = False
    for v in values:
        items = v if isinstance(v, (list, tuple)) else (v,)
        for t in items:
            if type(t) is Tensor:
                if t.dtype in _FLOATS_ABOVE_BF16:
                    if t.ndim:
                        return False
                    wider_0d = True
                elif t.dtype is BF16 and t.ndim:
                    bf16_with_dims = True
    return bf16_with_dims or not wider_0d


_FLOATS_ABOVE_BF16 = frozenset({mindspore.float16, mindspore.float32, mindspore.float64})


def upcast_bf16(fn):
    """Run `fn` in float32 when an input tensor is bfloat16. Results come back in bfloat16 when torch's
    result would be bf16 (all floating inputs bf16, no explicit `dtype=`); `inplace=True` writes into the
    caller's bf16 tensor."""
    import inspect

    try:
        takes_inplace = "inplace" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        takes_inplace = False

    handles_float8 = getattr(fn, "handles_float8", False)  # (an op that moves float8 bytes itself)
    # what a call without keyword arguments may skip to (an inner wrapper that only renames keywords)
    positional_fn = getattr(fn, "__without_keywords__", fn)
    dtype_check = getattr(fn, "__dtype_check__", None)  # (torch's refusal of mixed dtypes, before the casts)

    @functools.wraps(fn)
    def op(*args, **kwargs):
        # Fast path, inlined because it runs before every op: plain tensors read through the C-level `_dtype`
        # (the `dtype` property is a Python call); sequences and keyword arguments take the full test.
        for v in args:
            if type(v) is Tensor:
                if v._dtype is BF16 or v._dtype is E4M3 or v._dtype is E5M2:
                    break
            elif isinstance(v, (list, tuple)) and _has_bf16((v,), _NOT_NATIVE):
                break
        else:
            if not kwargs:
                return positional_fn(*args)
            if not _has_bf16(kwargs.values(), _NOT_NATIVE):
                return fn(*args, **kwargs)
        if _has_float8(args, kwargs):  # MindSpore's CPU kernels do not compute on float8
            if handles_float8:
                return fn(*args, **kwargs)
            raise _float8.unsupported(f"torch.{fn.__name__}")
        if dtype_check is not None:
            dtype_check(*args, **kwargs)
        if kwargs.get("out") is not None:
            # an op's out= branch computes its value by calling the op again without out (this wrapper, so in
            # float32), then writes it into `out` under torch's dtype rule for a bf16 result
            return fn(*args, **kwargs)
        back_to_bf16 = "dtype" not in kwargs and _only_bf16_floats(args) and _only_bf16_floats(kwargs.values())
        inplace = takes_inplace and kwargs.get("inplace", False)
        if inplace:
            kwargs = dict(kwargs, inplace=False)
        computing = _dtype.BFLOAT16_IN_FLOAT32
        outer, computing.active = computing.active, back_to_bf16
        try:
            out = fn(*(_to_f32(a) for a in args), **{k: _to_f32(v) for k, v in kwargs.items()})
        finally:
            computing.active = outer
        if back_to_bf16:
            out = _to_bf16(out)
        if inplace:
            from ._inplace import assign

            return assign(args[0], out, value_is_fresh=True)
        return out

    op.__wrapped_for_bf16__ = True
    return op


def for_target(fn, name):
    """`fn` as this target runs it: computed in float32 for bf16 inputs unless the target has a native bf16
    kernel for the op `name`. For ops that live outside the `_ops` modules (e.g. Tensor indexing)."""
    native = NATIVE_BF16.get(DEVICE_TARGET)
    return fn if native is None or name in native else upcast_bf16(fn)


def view_for_target(fn, name, *, is_view=None, registers=False):
    """`fn`, a torch view op (its result shares its input's memory), as this target runs it; see `bf16_view`.
    `is_view(input, *args)`, where given, tells the calls that make a view from those that copy (indexing:
    basic items make a view, index tensors a copy, which is computed in float32 as any other op)."""
    native = NATIVE_BF16.get(DEVICE_TARGET)
    return fn if native is None or name in native else bf16_view(fn, is_view=is_view, registers=registers)


def bf16_view(fn, *, is_view=None, registers=False):
    """A view op for bf16 inputs on a target without bf16 kernels for its backward (CPU: StridedSliceGrad,
    BroadcastTo's ReduceSum, Gather). Computing it in float32 as other ops are would return a copy, so a write
    through the result, or into the input, would no longer reach the other: torch's aliasing silently lost.
    Outside autograd the op runs on the bf16 input itself (MindSpore's views move no data, so no kernel is
    needed); inside autograd the result is computed in float32 for its gradient and then reads the memory of the
    same view of the input (the node kept, as `_getitem_stepped` does), so it is a view as torch's is and
    writes through it are replayed on the input (`_view_replay`). `registers`: the result is tracked as a view of
    the input here (for callers that do not do it themselves)."""
    upcast = upcast_bf16(fn)

    @functools.wraps(fn)
    def op(input, *args, **kwargs):
        if type(input) is not Tensor or input._dtype is not BF16 or (is_view is not None and not is_view(input, *args)):
            return upcast(input, *args, **kwargs)  # (its fast path returns `fn`'s answer for other dtypes)
        if not ((input._requires_grad or not input._is_leaf) and _ms.grad_enabled()):
            return fn(input, *args, **kwargs)
        out = upcast(input, *args, **kwargs)  # the node
        memory = fn(ops.stop_gradient(input), *args, **kwargs)  # the view's memory, off the tape
        from . import _autograd_views, _inplace

        for part, view in zip(out, memory) if type(out) is tuple else ((out, memory),):
            if 0 not in part._shape:
                _inplace.swap_storage_only(part, view)
                if registers:
                    _autograd_views.register(input, part)
        return out

    op.__wrapped_for_bf16__ = True
    return op


def adapt_module(namespace, module_name):
    """Wrap, in `namespace` (a module's globals), each public op defined in that module that lacks a native
    bf16 kernel on this target; then make the ops torch's autocast lists name autocast-aware (outermost)."""
    from .amp import autocast_policy

    native = NATIVE_BF16.get(DEVICE_TARGET)
    if native is not None:  # None on GPU/Ascend, where MindSpore has bf16 kernels for these ops
        _upcast_bf16_ops(namespace, module_name, native)
    autocast_policy.adapt_module(namespace, module_name)


def _upcast_bf16_ops(namespace, module_name, native):
    for name, value in list(namespace.items()):
        if (name.startswith("_") or name in native or not callable(value) or isinstance(value, type)
                or getattr(value, "__module__", None) != module_name or getattr(value, "__wrapped_for_bf16__", False)):
            continue
        namespace[name] = bf16_view(value) if name in BF16_VIEWS else upcast_bf16(value)
