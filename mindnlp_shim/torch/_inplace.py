"""Writing a value into an existing tensor: the one way every torch in-place op ends.

MindSpore's CPU in-place Tensor methods are silently out of place (`add_`) or have no kernel (`fill_`), so
each torch in-place op computes its result out of place and hands it to `assign`, which puts it into the
receiver while keeping the receiver's identity (its `.grad`, hooks, and a Parameter's place in its module
and optimizer). Which write, by what must observe it:
- a tensor inside an autograd graph: a recorded write (`copy_`/index assignment), so gradients see it;
- any other tensor on the CPU target: the value is copied into the receiver's own memory (`_memory.write`), so
  its base, every view of it and every NumPy array over it see the write, as in torch;
- on device targets, a view taken by indexing gets index assignment (MindSpore forwards it to the base) and
  any other tensor has its data swapped for the new value (`_mindspore.update_data`).
"""
import mindspore
from mindspore import ops
from .._mindspore import TensorPy

from . import _autograd_views, _memory, _view_replay
from ._runtime import ON_CPU
from .. import _mindspore as _ms

_ms_setitem = mindspore.Tensor.__setitem__
_ms_copy = mindspore.Tensor.copy_  # MindSpore's own, captured before the torch binding replaces it
_update_data = _ms.update_data


def swap_data(tensor, new):
    """`tensor` takes `new`'s storage, shape and dtype, keeping its identity (torch's `t.data = new`).

    After a dtype or shape change MindSpore's PyNative executor still holds the tensor's old type and shape in
    its per-tensor caches, and primitives with constant arguments (Gather, ReduceSum, BiasAdd) then infer the
    old ones for it; clearing those caches makes every op see the new type and shape (transformers resizes a
    tied output bias with `bias.data = pad(...)`). Clearing also drops the executor's grad flag, which is put
    back."""
    new = getattr(new, "_memory_owner", new)  # (a `.data` alias does not own its memory: see _tensor.py)
    changes_dtype = new.dtype != tensor.dtype
    changes_layout = changes_dtype or tuple(new.shape) != tuple(tensor.shape)
    _update_data(tensor, new)
    tensor.__dict__.pop("_memory_owner", None)
    if changes_layout:  # a leaf's autograd node keeps the dtype and shape it had when it began requiring grad
        tensor._dtype_swapped = True  # (see leaf_meta_is_stale)
        _ms.clear_executor_caches()


def leaf_meta_is_stale(tensor):
    """Whether `tensor` is a leaf whose dtype or shape changed (Module.double(), .half(), `p.data = p.data.double()`,
    `p.data = larger`, torch.utils.swap_tensors) after its autograd node was made: MindSpore casts the gradient that
    a custom Function (or a view) returns for such a leaf to the node's old dtype (a float64 Linear weight got a
    float32 .grad) and refuses one of another shape; plain ops do not."""
    if tensor is None or not getattr(tensor, "_dtype_swapped", False):  # (the common case: one dict lookup)
        return False
    node = tensor._grad_node if tensor._is_leaf else None
    if node is None:
        return False
    recorded = _ms.node_input_dtype(node)
    # (a release that does not say: taken as stale)
    return recorded is None or recorded != tensor.dtype or _ms.node_input_shape(node) != tuple(tensor.shape)


def _fresh_copy(value):
    """A copy that shares no storage with `value` (so later writes into either stay separate)."""
    if ON_CPU and value.dtype != mindspore.bfloat16:
        return mindspore.Tensor.from_numpy(value.asnumpy().copy())
    return ops.add(value, _ms.zeros((), value.dtype)) if value.dtype != mindspore.bool_ else \
        ops.logical_and(value, True)


def _as_value(tensor, value):
    if not isinstance(value, TensorPy):  # the C base class: isinstance against Tensor's ABC is several times slower
        fill_dtype = mindspore.float32 if tensor.dtype == mindspore.bfloat16 else tensor.dtype  # no bf16 fill on CPU
        value = ops.fill(fill_dtype, tuple(tensor.shape), value)
        return value if value.dtype == tensor.dtype else ops.cast(value, tensor.dtype)
    if value.dtype is not tensor.dtype:  # (dtypes are singletons)
        value = ops.cast(value, tensor.dtype)
    if value._shape != tensor._shape:  # MindSpore's own tuples: `shape` would build two torch.Size
        value = ops.broadcast_to(value, tensor._shape)
    if not value.is_contiguous():
        value = value.contiguous()
    return value


def assign(tensor, value, *, value_is_fresh=False, check_overlap=True):
    """Write `value` (tensor or Python scalar, broadcast and cast to `tensor`) into `tensor`; return `tensor`.

    `value_is_fresh` says `value` is a new tensor nobody else holds (an op's result), so it may become the
    receiver's storage without a copy. `check_overlap=False` for the writes torch allows into a tensor whose
    elements share memory (an expanded one): fill_, zero_, masked_fill_."""
    if value is tensor:
        return tensor
    is_leaf = tensor._is_leaf
    if is_leaf and tensor._requires_grad and _ms.grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if ON_CPU and (is_leaf and not _records(value) or not _ms.grad_enabled()):
        # outside autograd (a tensor of the graph written under no_grad too): a counted write into the memory;
        # the views in the graph over it keep their gradients (`_autograd_views.refresh`)
        write_memory(tensor, value, check_overlap)
        return tensor
    converted = _as_value(tensor, value)
    fresh = value_is_fresh or converted is not value
    is_view = getattr(tensor, "parent_tensor_", None) is not None
    if is_leaf and _records(value):
        _recorded_write_into_leaf(tensor, converted, is_view, check_overlap)
        _memory.count_on_sources(tensor)  # (a detached tensor: torch's write count is its source's too)
        return tensor
    if not is_leaf:
        root = _autograd_views.check_write(tensor)
        if root is not None:  # torch's CopySlices: the write goes onto the root's history, its views replayed
            _view_replay.write(tensor, root, converted, _autograd_views.live_views(root))
            return tensor
        if converted._is_leaf and not converted._requires_grad and _ms.grad_enabled():
            # a value off the graph: torch still connects the old value, with a zero gradient (so the leaves
            # behind it get zeros, not None); a `where` on a false mask does that without touching the value
            never = _ms.zeros(converted._shape, mindspore.bool_)
            if converted._dtype is mindspore.bfloat16:  # (no bfloat16 Select kernel; the casts are exact)
                converted = ops.where(never, tensor.astype(mindspore.float32),
                                      converted.astype(mindspore.float32)).astype(mindspore.bfloat16)
            else:
                converted = ops.where(never, tensor, converted)
        if ON_CPU:
            _recorded_write_in_place(tensor, converted, is_view, check_overlap)
        elif is_view or not tensor.is_contiguous():
            _ms_setitem(tensor, Ellipsis, converted)
        else:
            _ms_copy(tensor, converted)
    elif is_view:
        _ms_setitem(tensor, Ellipsis, converted)
    else:
        take_storage(tensor, converted if fresh else _fresh_copy(converted))
    return tensor


def _recorded_write_into_leaf(tensor, value, is_view, check_overlap):
    """A value that requires grad written into a tensor outside the graph (`total += loss`, `buf.copy_(h)`): as
    in torch, the tensor joins the graph, its node the write. Through a view of such a tensor (`buf[:2].copy_(h)`)
    torch gives the base the write's history: the write is recorded on the base and replayed on the view."""
    detached = _autograd_views.DETACHED in tensor.__dict__
    if is_view or _autograd_views.shares_memory_with_live_tensor(tensor):
        root = _autograd_views.untracked_root(tensor)
        if root is None and detached and ON_CPU:  # (a view of a `.data` no longer alive: no one else to reach)
            _view_replay.write(tensor, tensor, value, ())
            return
        chain = None if root is None else _untracked_chain(tensor, root)
        if root is None or _autograd_views.other_untracked_views_alive(root, chain):
            raise NotImplementedError(
                "an in-place write of a value that requires grad into a view of a tensor outside the autograd graph "
                "is not supported by mindnlp-shim on MindSpore where other views of that tensor (taken outside "
                "autograd) may be alive, or its base is not known: torch would give them the write's history too, "
                "which the shim cannot reach. Take the other views after the write, or write into the base with "
                "index assignment (`buf[:2] = h`)")
        _view_replay.write(tensor, root, value, chain)
        return
    if _autograd_views.other_untracked_views_alive(tensor, ()):
        # torch replays the write on the views too (each view's history becomes the base's new one); the shim
        # does not know them from here, and leaving them behind would give them no gradient without an error
        raise NotImplementedError(
            "an in-place write of a value that requires grad into a tensor outside the autograd graph while views "
            "of it (taken outside autograd) are alive is not supported by mindnlp-shim on MindSpore: torch would "
            "give those views the write's history, which the shim cannot reach. Take the views after the write, "
            "or write out of place (`buf = buf + h`)")
    if ON_CPU and (detached or _autograd_views.made_as_view(tensor)):
        # a view whose bases are gone, or `.data` of a tensor outside the graph (torch's .data is no view): only this
        # tensor records the write. MindSpore's in-place op would record it on the MindSpore base instead (its
        # CopySlices for a write into a view), leaving this tensor without a gradient, or refuse it where that base
        # is a leaf it marks as requiring grad
        _view_replay.write(tensor, tensor, value, ())
    elif ON_CPU:
        _recorded_write_in_place(tensor, value, False, check_overlap)
    else:
        _ms_copy(tensor, value)  # recorded, in place


def _untracked_chain(view, root):
    """`view` and the live tensors it was taken from on the way from `root`: each takes its node from the write."""
    chain = [base() for base in view.__dict__.get(_autograd_views._UNTRACKED_BASE, ())]
    after_root = False
    found = []
    for base in chain:
        if base is root:
            after_root = True
        elif after_root and base is not None:
            found.append(base)
    return found + [view]


def _recorded_write_in_place(tensor, value, is_view, check_overlap):
    """CPU target, a tensor inside the autograd graph: the recorded write gives it its gradient; its values go
    into the memory it shares with its base and views. (MindSpore's recorded write into a view either puts
    the values elsewhere or gives the view a new storage: the storage is put back, keeping the new node.)"""
    if not is_view and tensor.is_contiguous() and not tensor.storage_offset():
        before = _ms.write_count(tensor) if _ms.VIEW_COPIES_DROPPED else None
        try:
            _ms_copy(tensor, value)  # in place, recorded
        except RuntimeError as exc:
            _refuse_custom_function_view(exc)
        if before is not None and _ms.write_count(tensor) == before and 0 not in tensor._shape:
            _copy_dropped(tensor, value)
        return
    if check_overlap and _memory.has_internal_overlap(tensor):
        raise RuntimeError(_memory.OVERLAP_MESSAGE)
    shared = ops.stop_gradient(tensor)  # the same memory, off the tape
    if is_view or not tensor.is_contiguous():
        _ms_setitem(tensor, Ellipsis, value)
    else:
        _ms_copy(tensor, value)
    if tensor.data_ptr() != shared.data_ptr():
        swap_storage_only(tensor, shared)
    _memory.write(tensor, _memory.host_view(value), check_overlap=False)


def _refuse_custom_function_view(exc):
    """MindSpore refuses a recorded write into a view made inside a custom-gradient function. The shim's own
    Functions return plain tensors (`_function_outputs`); what is left is a user `torch.autograd.Function`
    returning a view or an input, or a checkpointed region returning one of its inputs as it is (torch refuses
    these too, except the last with use_reentrant=False): say so in torch's terms; re-raise anything else."""
    if "output of custom cell" not in str(exc):
        raise exc
    raise _custom_function_view_refused() from exc


def _custom_function_view_refused():
    return NotImplementedError(
        "an in-place write into this tensor inside autograd is not supported on MindSpore: it is a view made "
        "inside a custom-gradient function (a torch.autograd.Function that returns a view or one of its inputs, "
        "or a checkpointed function that returns one of its inputs); write out of place instead (torch.where "
        "or masked_fill), or return a clone")


def _copy_dropped(tensor, value):
    """MindSpore dropped its copy into `tensor`, a view to it (2.7.x: neither written nor recorded). Outside
    autograd the values go into the memory; inside, a tensor that took other data through a pass-through Function
    (`_ms.update_data`) takes the write's node as a base does (`_view_replay`); any other is a view made inside a
    custom-gradient function, refused as the releases that say so refuse it."""
    if not _ms.grad_enabled():
        _memory.write(tensor, _memory.host_view(value), check_overlap=False)
    elif _ms.DATA_CARRIED in tensor.__dict__:
        _view_replay.write(tensor, tensor, value, ())
    else:
        raise _custom_function_view_refused()


def swap_storage_only(tensor, view):
    """`tensor` reads `view`'s memory from now on (same shape and dtype) and keeps its autograd node: a result
    computed for its gradient becomes an alias of the memory it was computed from."""
    _update_data(tensor, view)


def _records(value):
    """Whether writing `value` must be recorded by autograd (a tensor that requires grad, grad mode on)."""
    return isinstance(value, TensorPy) and (value._requires_grad or not value._is_leaf) and \
        _ms.grad_enabled()


def write_memory(tensor, value, check_overlap=True):
    """CPU target: copy `value` (tensor or Python scalar) into `tensor`'s own storage, cast to its dtype and
    broadcast to its shape, so every alias of that storage sees it."""
    if isinstance(value, TensorPy):
        if value.dtype is not tensor.dtype:  # (dtypes are singletons) MindSpore's cast, as for every op result
            value = ops.cast(value, tensor.dtype)
        value = _memory.host_view(value)
    try:
        _memory.write(tensor, value, check_overlap)
    except ValueError as exc:  # NumPy's broadcast error
        raise RuntimeError(f"the value of shape {tuple(getattr(value, 'shape', ()))} cannot be written into a "
                           f"tensor of shape {tuple(tensor.shape)}: {exc}") from None


def take_storage(tensor, value, check_overlap=True):
    """`tensor` (a leaf outside autograd) gets the values of `value`, a fresh contiguous tensor of its dtype
    and shape that nobody else holds; returns `tensor`. On the CPU target the values are copied into the
    tensor's own storage (its aliases see them); elsewhere the tensor takes `value`'s storage."""
    if ON_CPU:
        _memory.write(tensor, _memory.host_view(value), check_overlap)
    else:
        _update_data(tensor, value)
    return tensor


def can_take_storage(tensor, value):
    """Whether `assign(tensor, value, value_is_fresh=True)` comes down to `take_storage`: `tensor` is a plain
    leaf (no grad, no view, no `.data` alias) and `value` a contiguous tensor of its own dtype and shape. The
    in-place ops test this first, so their usual call skips the general checks."""
    return (type(value) is mindspore.Tensor and value is not tensor and tensor._is_leaf
            and not tensor._requires_grad and value._is_leaf and not value._requires_grad  # (not recorded)
            and value._dtype is tensor._dtype and value._shape == tensor._shape
            and getattr(tensor, "parent_tensor_", None) is None and not getattr(tensor, "_is_data_alias", False)
            and value.is_contiguous())


def inplace_of(fn):
    """`Tensor.<op>_` from the out-of-place `<op>`: compute, then write the result into the receiver."""

    def method(self, *args, **kwargs):
        return assign(self, fn(self, *args, **kwargs), value_is_fresh=True)

    method.__name__ = fn.__name__ + "_"
    return method
