"""Views inside the autograd graph: which base each one reads, so that an in-place write through a view, or
into a base while views of it are alive, is recorded on the base and replayed on its views (`_view_replay`).

torch gives a write through a view of a tensor that requires grad a `CopySlices` node on the base, and
regenerates the gradient node of every other view of that base from the base's new one. MindSpore's tape has
no such replay (its node of a view stays the one it was made with), so the shim keeps, on each base in the
graph ("root"), weak references to its live views, and `check_write` tells `_inplace.assign` when a write
needs the replay:
- a write through a view of a tracked tensor, or into a tracked tensor while views of it are alive: replayed;
- torch's own errors stay: a view of a leaf that requires grad, the outputs of split/chunk/unbind (and a
  write into their base while they are alive), a view whose elements share memory;
- a write into a tracked tensor without live views is an ordinary recorded write (`_inplace`), the usual case.

Only views made while grad mode is on, of a tensor that requires grad or is inside the graph, are tracked:
outside autograd every write is a plain memory write, which all views see. Views outside the graph are known
by weak references to their bases (`note_untracked_view`), which is how a value that requires grad written
through one of them finds the base it must give a history to (`untracked_root`).
"""
import functools
import sys
import weakref


from . import _memory
from ._runtime import grad_enabled
from .. import _mindspore as _ms

ROOT = _ROOT = "_view_root"  # on a tracked view: the tensor whose memory it reads (never itself a tracked view)
_VIEWS = "_tracked_views"  # on a root: weak references to its tracked views
_MULTI = "_multi_output_view"  # on a view from split/chunk/unbind (or a view of one)
_STAND_IN = "_copy_standing_for_view"  # on a copy tracked as a view (`register(stands_for_view=True)`)
_PRUNE_AT = 64  # dead references are dropped when a root's list grows past this
_UNTRACKED_BASE = "_untracked_view_bases"  # on a view of a tensor outside the graph: weak references to its bases
_CHAIN_PRUNE_AT = 8
_REMAKE = "_view_remake"  # on a tracked view that is MindSpore's view of its source: (source, remake(source))
DETACHED = "_data_alias_family"  # on `.data` made as a view (`_tensor._get_data`) and on views of it: no view in torch
# on an output of a module backward hook's identity Function (torch's BackwardHookFunction returns its inputs
# as views, which torch refuses to write in place): the output's place among the Function's outputs
HOOK_FUNCTION_OUTPUT = "_backward_hook_function_output"
# where MindSpore cannot count a write made through a view (2.7.x), each view records the base it is counted on
_note_counted_base = None if _ms.VIEW_WRITES_COUNTED else _ms.note_view


def note_untracked_view(base, view):
    """Remember that `view` (a view op's result outside the graph) reads `base`'s memory, and the memory of the
    tensors `base` itself is a view of, for `shares_memory_with_live_tensor`; weak references, so no tensor is
    kept alive by its views (except, on a release that counts writes through a view on its base, that base)."""
    if view is not base:  # (flatten over nothing returns its input)
        if _note_counted_base is not None:
            _note_counted_base(base, view)
        state = base.__dict__
        if DETACHED in state:  # (a view of `.data`: its history, too, never reaches the tensor `.data` was taken of)
            view.__dict__[DETACHED] = True
        detached_from = state.get(_memory.DETACHED_FROM)
        if detached_from is not None:  # (a view of `t.detach()` shares t's write counter too)
            view.__dict__[_memory.DETACHED_FROM] = detached_from
        chain = state.get(_UNTRACKED_BASE, ())
        if len(chain) >= _CHAIN_PRUNE_AT:  # (`x = x[1:]` in a loop: keep the chain short, the live bases in it)
            chain = tuple(ref for ref in chain if ref() is not None)[1 - _CHAIN_PRUNE_AT:]
        view.__dict__[_UNTRACKED_BASE] = chain + (weakref.ref(base),)


def made_as_view(tensor):
    """Whether `tensor` was made outside the graph by a view op or basic indexing (its bases may be gone)."""
    return _UNTRACKED_BASE in tensor.__dict__


def live_bases(tensor):
    """The tensors a view op made `tensor` (outside the graph) from that are still alive."""
    return [base for base in (ref() for ref in tensor.__dict__.get(_UNTRACKED_BASE, ())) if base is not None]


def forget_bases(tensor):
    """`tensor` reads a storage of its own from now on: it is no view of the tensors it was taken from."""
    tensor.__dict__.pop(_UNTRACKED_BASE, None)
    tensor.__dict__.pop(_ms.WRITE_COUNTER_OWNER, None)


def shares_memory_with_live_tensor(tensor):
    """Whether `tensor`, a tensor outside the graph, is a view whose base (or another view of it) may still be
    read: it covers only part of its storage, or a view op made it from a tensor that is still alive."""
    for base in tensor.__dict__.get(_UNTRACKED_BASE, ()):
        if base() is not None:
            return True
    shape = tensor._shape
    if 0 in shape:
        return False
    first, end = _memory.span(tensor)
    return tensor.storage_offset() != 0 or tensor.untyped_storage().nbytes() > end - first


def _tracked(tensor):
    return (tensor._requires_grad or not tensor._is_leaf) and _ms.grad_enabled()


def register(source, view, multi=False, stands_for_view=False, remake=None):
    """Record that `view` (an op's result sharing `source`'s memory) is a view of `source`'s root.
    `stands_for_view`: `view` is a copy standing for what torch makes a view (view_as_complex of a tensor in the
    graph): tracked all the same, so that writes into it or into `source` are refused as for views.
    `remake(source)`: where `view` is MindSpore's view of `source`, the same view made again (see `refresh`)."""
    if view is source or getattr(source, "_is_data_alias", False):  # (`.data` is outside autograd, as in torch)
        return
    root = getattr(source, _ROOT, None)
    if root is None:
        root = source
    first, end = _memory.span(root)
    if not stands_for_view and not first <= view.data_ptr() < end:
        return  # a copy (reshape of what cannot be viewed, an empty result), not a view
    if _note_counted_base is not None:
        _note_counted_base(source, view)
    setattr(view, _ROOT, root)
    if remake is not None:
        view.__dict__[_REMAKE] = (source, remake)
    if stands_for_view:
        setattr(view, _STAND_IN, True)
    if multi or getattr(source, _MULTI, False):
        setattr(view, _MULTI, True)
    views = getattr(root, _VIEWS, None)
    if views is None:
        views = []
        setattr(root, _VIEWS, views)
    elif len(views) >= _PRUNE_AT:
        views[:] = [ref for ref in views if ref() is not None]
    views.append(weakref.ref(view))


def view_op(fn=None, *, multi=False, same=None, by_shape=None):
    """Decorator for a torch view op `fn(input, ...)`: its result (or each result of a tuple) is tracked as a
    view of `input` when `input` is in the autograd graph, and noted as one otherwise. `same(input)`, where given,
    stands for a result that is `input` itself: torch's view ops return a distinct tensor even where they change
    nothing (`shape._alias`). `by_shape`, for an op `fn(input, other)` that reads only `other`'s shape (view_as):
    the op taking that shape, which remakes the view (`refresh`) without keeping `other` alive."""
    if fn is None:
        return functools.partial(view_op, multi=multi, same=same, by_shape=by_shape)

    @functools.wraps(fn)
    def op(input, *args, **kwargs):
        out = fn(input, *args, **kwargs)
        if type(out) is tuple:
            if same is not None:
                out = tuple(same(input) if part is input else part for part in out)
            if (input._requires_grad or not input._is_leaf) and grad_enabled():
                for at, part in enumerate(out):
                    register(input, part, multi, remake=functools.partial(_remade, fn, args, kwargs, same, at))
            else:
                for part in out:
                    note_untracked_view(input, part)
            return out
        if out is input and same is not None:
            out = same(input)
        if (input._requires_grad or not input._is_leaf) and grad_enabled():
            if by_shape is None:
                remake = functools.partial(_remade, fn, args, kwargs, same, None)
            else:
                remake = functools.partial(_remade, by_shape, (tuple(args[0]._shape),), {}, same, None)
            register(input, out, multi, remake=remake)
        else:
            note_untracked_view(input, out)
        return out

    return op


def _remade(fn, args, kwargs, same, at, source):
    """The view op's result (its part `at` of a tuple) made again from `source`, as `view_op` made it."""
    out = fn(source, *args, **kwargs)
    if at is not None:
        out = out[at]
    return same(source) if out is source and same is not None else out


def refresh(tensor):
    """After a write outside the graph (counted) into `tensor`'s memory: every live view in the graph over that
    memory that is MindSpore's view is made again from its source, keeping its identity.

    MindSpore, like torch, regenerates the autograd node of a view whose storage's write count changed since the
    view was made ("rebase"), as an AsStrided of its base, but that node's backward gives zeros (2.10) or fails
    ("The pointer[base_shape] is null", 2.7.1) where the base has no in-place write in the graph, as after a write
    under no_grad or by an optimizer. The remade view reads the same memory, shares the counter and has a node
    made now: its gradient is torch's (a write outside the graph changes no base's node)."""
    state = tensor.__dict__
    root = state.get(_ROOT, tensor)
    if _VIEWS not in root.__dict__:  # (the usual case: no views in the graph over it)
        return
    views = _live_views(root)
    if not views:
        return
    enabled = _ms.grad_enabled()
    _ms.set_grad_enabled(True)
    try:
        for view in views:  # (oldest first: a view's source, a view itself, is remade before it)
            recipe = view.__dict__.get(_REMAKE)
            if recipe is None:
                continue  # (not MindSpore's view: a gather that took the memory, which keeps its node)
            source, remake = recipe
            fresh = remake(source)
            if fresh is not source and fresh.data_ptr() == view.data_ptr() and fresh._shape == view._shape and \
                    _ms.stride(fresh) == _ms.stride(view):
                view.assign_value_cpp(fresh)  # (its node and autograd state; the same memory and counter)
    finally:
        _ms.set_grad_enabled(enabled)


_memory.views_written = refresh


def _live_views(root):
    views = getattr(root, _VIEWS, None)
    if not views:
        return []
    alive = [view for view in (ref() for ref in views) if view is not None]
    views[:] = [weakref.ref(view) for view in alive]
    return alive


def live_views(root):
    """The tracked views of `root` that are still alive."""
    return _live_views(root)


def untracked_root(view):
    """The oldest live tensor outside the graph that `view` (a view made outside the graph) was taken from,
    reading the memory `view` reads, or None where none is known. Raises torch's error where that base is in the
    graph (a view made under no_grad of a tensor that requires grad)."""
    first, end = _memory.span(view)
    parents = []
    parent = getattr(view, "parent_tensor_", None)  # (MindSpore's own record of an indexing view's base)
    while parent is not None and parent is not view and len(parents) < _CHAIN_PRUNE_AT:
        parents.insert(0, parent)
        parent = getattr(parent, "parent_tensor_", None)
    bases = [ref() for ref in view.__dict__.get(_UNTRACKED_BASE, ())] + parents  # (oldest first, then those)
    for base in bases:
        if base is None or base is view:
            continue
        start, stop = _memory.span(base)
        if start <= first and end <= stop:
            if base._requires_grad or not base._is_leaf:
                raise RuntimeError(
                    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. This "
                    "view is the output of a function that returns multiple views or was created in no_grad mode. "
                    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                    "code by moving both the view and the inplace either both inside the no_grad block (if you "
                    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                    "tracked).")
            return base
    return None


def other_untracked_views_alive(root, replayed):
    """Whether a view of `root` (a tensor outside the graph) other than the tensors of `replayed` may be alive:
    each view made outside the graph holds a weak reference to its bases (`note_untracked_view`), and CPython
    gives an object one plain weak reference, shared by all its holders, so its holders can be counted. torch would
    give such a view the write's history; the shim cannot reach it, so the write is refused instead."""
    for ref in weakref.getweakrefs(root):
        if type(ref) is not weakref.ref or ref.__callback__ is not None:
            continue
        ours = sum(1 for tensor in replayed for held in tensor.__dict__.get(_UNTRACKED_BASE, ()) if held is ref)
        if sys.getrefcount(ref) - 3 > ours:  # (less the references of this loop, its list and the call itself)
            return True
    return False


_MULTI_BASE_MESSAGE = (
    "an output of a split/chunk/unbind of this tensor is alive and would be a view whose base has been modified "
    "inplace; torch refuses to use such a view afterwards. Write into a clone, or drop the views first.")


def _refuse_stand_in():
    raise NotImplementedError(
        "an in-place write inside autograd into the result of view_as_complex of a tensor in the graph, or into "
        "that tensor while the result is alive, is not supported by mindnlp-shim on MindSpore: the result is a "
        "copy there, so the write would not reach the other. Use out-of-place ops.")


def _refuse_other_dtype():
    raise NotImplementedError(
        "an in-place write inside autograd through a view of another dtype (Tensor.view(dtype)) of a tensor in the "
        "graph, or into that tensor while such a view is alive, is not supported by mindnlp-shim on MindSpore: "
        "the write cannot be replayed across dtypes. Use out-of-place ops.")


def check_write(tensor, check_overlap=True):
    """For an in-place write into `tensor` (grad mode on): the root whose views torch would replay after it
    (`tensor`'s root, or `tensor` itself with live views), or None for an ordinary write; torch's errors where
    torch refuses the write. `check_overlap=False` for index assignment, whose overlap check is on the selected
    elements only."""
    if not _ms.grad_enabled():
        return None
    root = getattr(tensor, _ROOT, None)
    _refuse_hook_function_output(tensor, root)
    if root is not None:
        if check_overlap and _memory.has_internal_overlap(tensor):
            raise RuntimeError(_memory.OVERLAP_MESSAGE)  # (torch refuses even a fill of an expanded view here)
        if getattr(tensor, _MULTI, False):
            raise RuntimeError(
                "Output of a split/chunk/unbind is a view and is being modified inplace. This view is the output of "
                "a function that returns multiple views. Such functions do not allow the output views to be "
                "modified inplace. You should replace the inplace operation by an out-of-place one.")
        if root._is_leaf and root._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        live = _live_views(root)
        if any(getattr(view, _MULTI, False) for view in live):
            raise RuntimeError(_MULTI_BASE_MESSAGE)
        _check_replayable(root, live)
        return root
    if not _tracked(tensor):
        return None
    live = _live_views(tensor)
    if live:
        if any(getattr(view, _MULTI, False) for view in live):
            raise RuntimeError(_MULTI_BASE_MESSAGE)
        _check_replayable(tensor, live)
        return tensor
    return None


def _refuse_hook_function_output(tensor, root):
    place = getattr(tensor, HOOK_FUNCTION_OUTPUT, None)
    which = f"Output {place} of BackwardHookFunction"
    if place is None and root is not None:
        place = getattr(root, HOOK_FUNCTION_OUTPUT, None)
        which = f"A view of output {place} of BackwardHookFunction"
    if place is not None:
        raise RuntimeError(
            f"{which} is a view and is being modified inplace. This view was created inside a custom Function (or "
            "because an input was returned as-is) and the autograd logic to handle view+inplace would override the "
            "custom backward associated with the custom Function, leading to incorrect gradients. This behavior is "
            "forbidden. You can fix this by cloning the output of the custom Function.")


def _check_replayable(root, views):
    for view in views:
        if getattr(view, _STAND_IN, False):
            _refuse_stand_in()
        if view.dtype != root.dtype:
            _refuse_other_dtype()
