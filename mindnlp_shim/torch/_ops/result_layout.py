"""The memory layout of elementwise results, as torch lays them out.

torch gives the result of an elementwise op (its TensorIterator) the dim order of its operands' strides: the
sum of two transposed views is transposed, `x.t().exp()` and `x.t().clone()` keep the transposed strides, and
a later `permute` back is contiguous. MindSpore's kernels always return row-major results. torch's rule, as
documented for TensorIterator and `preserve_format`:

- all operands contiguous: a contiguous result (the common case, decided by one C call per operand);
- otherwise the dims are ordered from the innermost out by comparing, for two dims, the strides of each
  operand in argument order: the first operand whose strides differ there decides (the smaller stride goes
  inside); an operand broadcast along either dim (stride 0, or a size-1 dim of a larger result) has no say;
  equal strides move the shorter dim inside when the one inside is longer, else the next operand decides; no
  decision keeps the dims as they are. The result is dense in that order.

Here an op whose operands are not all contiguous runs on the operands permuted into that order (views), and
its row-major result is permuted back (a view, differentiable like any permute): one kernel, as before, on
operands that are mostly dense now (MindSpore's kernels copy a strided operand first, so this is also faster:
a transposed 1024x1024 sum took 15 ms, and 1.5 ms this way). Strides of size-1 dims may differ from torch's
(torch copies them from the operands in some cases; they address nothing).

Inside the autograd graph, where an operand that is not contiguous is an activation, the result stays
row-major (`_in_graph`): each consumer of a permuted activation would pay a strided copy forward and backward.
"""
import functools
import inspect

import mindspore

from ... import _mindspore as _ms
from .. import _autograd_views
from . import view_kernels

Tensor = mindspore.Tensor
_is_contiguous = _ms.is_contiguous  # (a C call: about 0.05 µs on a contiguous tensor)
_stride = _ms.stride


def follows_operands(fn, applies=None):
    """`fn` (an elementwise op) with its result laid out by torch's rule over its tensor operands (positional and
    keyword arguments other than `out`, in that order). `applies(args, kwargs)`, asked only when an operand is
    not contiguous: whether this call of `fn` is one torch lays out so (e.g. `pow` with a number as its base
    gives a contiguous result, `where(condition)` is no elementwise op)."""

    @functools.wraps(fn)
    def op(*args, **kwargs):
        for a in args:
            if type(a) is Tensor and not _is_contiguous(a):
                return _laid_out(fn, applies, args, kwargs)
        if kwargs:
            for v in kwargs.values():
                if type(v) is Tensor and not _is_contiguous(v):
                    return _laid_out(fn, applies, args, kwargs)
        return fn(*args, **kwargs)

    op.__row_major__ = fn  # (the op without the layout rule)
    return op


def follow_operands(namespace, names, applies=None):
    """Wrap, in `namespace` (a module's globals), each op in `names` with `follows_operands`; `applies` maps a
    name to its `applies` test."""
    applies = applies or {}
    wrapped = {}  # by the op's identity, so that aliases (abs, absolute) stay one function
    for name in names:
        fn = namespace[name]
        if getattr(fn, "__row_major__", None) is None:
            if id(fn) not in wrapped:
                wrapped[id(fn)] = follows_operands(fn, applies.get(name) or _unless_in_place(fn))
            namespace[name] = wrapped[id(fn)]


def _unless_in_place(fn):
    """For an op with an `inplace` parameter (activations): a call with inplace=True writes into its input, which
    keeps its own layout, and returns that input itself."""
    try:
        parameters = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    if "inplace" not in parameters:
        return None
    position = parameters.index("inplace")

    def applies(args, kwargs):
        return not (kwargs.get("inplace") or (len(args) > position and args[position]))

    return applies


def in_memory_format(fn, memory_format, tensor, *args):
    """`fn(tensor, *args)`, a row-major copy or conversion of `tensor` (clone, a dtype conversion), with its result
    laid out as torch's `memory_format` asks: `preserve_format` (or None) like `tensor`, by the rule above;
    `contiguous_format` row-major; `channels_last(_3d)` with the channels innermost."""
    order = format_order(memory_format, len(tensor._shape))
    if order is None:
        if _is_contiguous(tensor) or _in_graph((tensor,)):
            return fn(tensor, *args)
        order = memory_order([tensor])
        if order is None:
            return fn(tensor, *args)
    elif order == tuple(range(len(order))):
        return fn(tensor, *args)
    return in_order(fn, order, (tensor,) + args)


_FORMAT_RANKS = {"channels_last": 4, "channels_last_3d": 5}


def format_order(memory_format, ndim):
    """The dim order (outermost first) torch's `memory_format` gives a tensor of `ndim` dims; None for
    `preserve_format` (the tensor's own order). torch refuses channels_last for other ranks than 4 (5 for
    channels_last_3d)."""
    name = "preserve_format" if memory_format is None else getattr(memory_format, "name", None)
    if name == "preserve_format":
        return None
    if name == "contiguous_format":
        return tuple(range(ndim))
    rank = _FORMAT_RANKS.get(name)
    if rank is None:
        raise TypeError(f"memory_format must be a torch.memory_format, not {type(memory_format).__name__}")
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {name} format")
    return (0,) + tuple(range(2, rank)) + (1,)


def suggested_format_name(tensor):
    """torch's `suggest_memory_format` of `tensor`: channels_last(_3d) where its dims lie in that order in
    memory, else contiguous_format."""
    n = len(tensor._shape)
    if n in (4, 5) and not _is_contiguous(tensor):
        channels_last = (0,) + tuple(range(2, n)) + (1,)
        if memory_order([tensor]) == channels_last:
            return "channels_last" if n == 4 else "channels_last_3d"
    return "contiguous_format"


def _laid_out(fn, applies, args, kwargs):
    if kwargs.get("out") is not None or (applies is not None and not applies(args, kwargs)):
        return fn(*args, **kwargs)  # (out= keeps out's own layout: the value is written into it)
    tensors = [a for a in args if type(a) is Tensor] + [v for k, v in kwargs.items() if type(v) is Tensor and k != "out"]
    if _in_graph(tensors):
        return fn(*args, **kwargs)
    order = memory_order(tensors)
    if order is None:
        return fn(*args, **kwargs)
    return in_order(fn, order, args, kwargs)


def _in_graph(tensors):
    """Whether an operand that is not contiguous is an activation of the autograd graph (it has a history and
    requires grad, grad mode on): then the result stays row-major. MindSpore's kernels copy every strided
    operand, so a permuted result costs its consumers a strided copy each, forward and backward, where torch
    reads strides for free (Llama's rotary embedding on transposed heads: 15% more time for that block of a
    training step). Outside the graph, and for operands that are leaves (parameters, frozen weights), the rule
    applies."""
    if not _ms.grad_enabled():
        return False
    for t in tensors:
        if not t._is_leaf and not _is_contiguous(t) and t.requires_grad:
            return True
    return False


def in_order(fn, order, args, kwargs=None):
    """`fn(*args, **kwargs)` computed with its tensor operands permuted by `order` (dims outermost first) and its
    result, row-major there, permuted back: the result is dense with its dims in `order` in memory."""
    n = len(order)
    args = tuple(_permuted(a, order, n) for a in args)
    if kwargs:
        kwargs = {k: _permuted(v, order, n) if k != "out" else v for k, v in kwargs.items()}
    result = fn(*args, **(kwargs or {}))
    if type(result) is not Tensor or len(result._shape) != n:
        raise RuntimeError(f"mindnlp-shim: {getattr(fn, '__name__', fn)} gave a result of another rank than its "
                           f"operands' broadcast ({n} dims) where an elementwise result was expected")
    back = [0] * n
    for position, dim in enumerate(order):
        back[dim] = position
    back = tuple(back)
    laid_out = view_kernels.permute(result, back)
    # torch's result is no view, but here it is MindSpore's view of the kernel's result: an in-place write into it
    # must reach its memory and, inside autograd, its gradient as a write through any view does
    if (result._requires_grad or not result._is_leaf) and _ms.grad_enabled():
        _autograd_views.register(result, laid_out, remake=functools.partial(_permuted_back, back))
    else:
        _autograd_views.note_untracked_view(result, laid_out)
    return laid_out


def _permuted_back(back, source):
    return view_kernels.permute(source, back)


def _permuted(a, order, n):
    """Operand `a` with its dims in `order` (a permutation of the result's n dims): a view. An operand of fewer
    dims (aligned to the result's last ones, as broadcasting aligns them) is permuted within its own dims where
    `order` keeps its dims innermost, otherwise given size-1 leading dims first."""
    if type(a) is not Tensor:
        return a
    k = len(a._shape)
    if k == 0:
        return a
    if k < n:
        lead = n - k
        if all(d >= lead for d in order[lead:]):
            own = tuple(d - lead for d in order[lead:])
            return a if own == tuple(range(k)) else view_kernels.permute(a, own)
        for _ in range(lead):
            a = view_kernels.expand_dims(a, 0)
    return view_kernels.permute(a, order)


def row_major(a, b):
    """Whether torch lays out the elementwise result of operands `a` and `b` (tensors or numbers) row-major: the
    binary operators' host path for small tensors (`_bindings._host_first`) computes only such results."""
    if type(a) is Tensor:
        if type(b) is Tensor:
            if _is_contiguous(a) and _is_contiguous(b):
                return True
            return memory_order((a, b)) is None
        return _is_contiguous(a) or memory_order((a,)) is None
    return type(b) is not Tensor or _is_contiguous(b) or memory_order((b,)) is None


def broadcast_shape(shapes):
    """The broadcast of `shapes` (tuples), or None where they do not broadcast (the op then raises torch's
    error itself)."""
    n = max(len(s) for s in shapes)
    out = [1] * n
    for s in shapes:
        lead = n - len(s)
        for i, size in enumerate(s):
            at = out[lead + i]
            if size != at:
                if at == 1:
                    out[lead + i] = size
                elif size != 1:
                    return None
    return tuple(out)


def memory_order(tensors):
    """torch's dim order (outermost first) for the elementwise result of `tensors` (its operands in argument
    order, not all contiguous), or None where that is the row-major order. Remembered per operand geometry: a
    model asks the same question at every step (decoding: every token)."""
    key = tuple((t._shape, tuple(_stride(t))) for t in tensors)
    order = _ORDERS.get(key, _UNKNOWN)
    if order is _UNKNOWN:
        if len(_ORDERS) >= _ORDERS_KEPT:
            _ORDERS.clear()
        order = _ORDERS[key] = _order_of(key)
    return order


_ORDERS = {}
_ORDERS_KEPT = 4096
_UNKNOWN = object()


def _order_of(geometry):
    """`memory_order` of operands given as (shape, strides) pairs."""
    shape = broadcast_shape([own for own, _ in geometry])
    if shape is None:
        return None
    n = len(shape)
    if n < 2:
        return None
    rows = []  # each operand's strides over the result's dims; 0 where it is broadcast
    for own, strides in geometry:
        if not own:
            continue
        lead = n - len(own)
        rows.append([0] * lead + [0 if size == 1 and shape[lead + i] != 1 else s
                                  for i, (size, s) in enumerate(zip(own, strides))])
    order = tuple(reversed(_inner_first(shape, rows)))
    # where only size-1 dims move, the memory is row-major's (only their strides differ): no permutes
    longer = [d for d in order if shape[d] != 1]
    return None if longer == sorted(longer) else order


def _inner_first(shape, rows):
    """The dims sorted from the innermost out by `_goes_inside`: insertion from the row-major order, where a
    dim moves inside past every dim that compares undecided and stops at the first that should stay inside
    of it."""
    n = len(shape)
    dims = list(range(n - 1, -1, -1))  # row-major: the last dim innermost
    for i in range(1, n):
        moving = i
        for j in range(i - 1, -1, -1):
            decision = _goes_inside(shape, rows, dims[j], dims[moving])
            if decision > 0:
                dims[j], dims[moving] = dims[moving], dims[j]
                moving = j
            elif decision < 0:
                break
    return dims


def _goes_inside(shape, rows, inner, outer):
    """1 when dim `outer` belongs inside dim `inner` (they swap), -1 when `inner` stays inside, 0 undecided:
    the first operand (in argument order) not broadcast along either dim whose strides differ decides; equal
    strides decide for the swap only when `inner` is the longer dim."""
    for row in rows:
        a, b = row[inner], row[outer]
        if a == 0 or b == 0:
            continue
        if a < b:
            return -1
        if a > b:
            return 1
        if shape[inner] > shape[outer]:
            return 1
    return 0
