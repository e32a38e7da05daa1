"""Shape and layout ops: view/reshape, transposes, squeeze/unsqueeze, expand/repeat, cat/stack/split."""

import numpy as np
import mindspore
from mindspore import mint, ops
from ..._mindspore import TensorPy
from . import host_small, view_kernels
from .. import _dtype, _float8
from ._util import dims_arg, dtype_category, no_kernel, result_dtype, shape_arg, Tensor, type_name, wrap_dim, write_out
from ... import _mindspore as _ms


def _infer_shape(shape, numel):
    if -1 in shape:
        shape = list(shape)
        if shape.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    n = 1
    for s in shape:
        n *= s
    if n != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _can_view(old_shape, old_strides, new_shape):
    """Whether `new_shape` can address the same elements as a view of a tensor laid out as `old_shape` with
    `old_strides` (torch's rule for `view`): each new dimension lies within one run of old dimensions that are
    contiguous with each other (stride[d] == stride[d+1] * size[d+1]); size-1 dimensions place no constraint."""
    runs, previous_stride = [], None
    for size, stride in zip(old_shape, old_strides):
        if size == 1:
            continue
        if runs and previous_stride == stride * size:
            runs[-1] *= size
        else:
            runs.append(size)
        previous_stride = stride
    sizes = iter(n for n in new_shape if n != 1)
    for run in runs:
        covered = 1
        while covered < run:
            size = next(sizes, None)
            if size is None:
                return False
            covered *= size
        if covered != run:
            return False
    return next(sizes, None) is None


def _reshaped(input, shape, *, must_view):
    current = input._shape  # MindSpore's own tuple: reading `shape` would build a torch.Size
    numel = 1
    for d in current:
        numel *= d
    shape = _infer_shape(shape_arg(shape), numel)
    if current == shape:
        return input
    if _ms.is_contiguous(input) or numel == 0:
        return view_kernels.reshape(input, shape)
    if _can_view(current, input.stride(), shape):
        return view_kernels.reshape(input, shape)  # MindSpore makes a strided view here, as torch does
    if must_view:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return view_kernels.reshape(contiguous(input), shape)  # a copy, as torch's reshape makes (MindSpore's is slower)


def reshape(input, *shape):
    return _reshaped(input, shape, must_view=False)


def view(input, *shape, dtype=None):
    if dtype is not None:
        return view_as_dtype(input, _dtype.resolve(dtype))
    if len(shape) == 1 and (isinstance(shape[0], mindspore.dtype.Type) or shape[0].__class__ is type):
        return view_as_dtype(input, _dtype.resolve(shape[0]))
    return _reshaped(input, shape, must_view=True)


def view_as_dtype(input, dtype):
    if dtype == input.dtype:
        return input
    from .. import _dtype

    old, new = _dtype.ITEMSIZE[input.dtype], _dtype.ITEMSIZE[dtype]
    names = f"{type_name(input.dtype)} as {type_name(dtype)}"
    if old != new:  # torch's conditions for a view across element sizes
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names} (different element sizes)")
        if input.shape[-1] != 1 and input.stride()[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names} (different element sizes), but got "
                               f"{input.stride()[-1]}")
        if new > old and input.shape[-1] % (new // old):
            raise RuntimeError(f"self.size(-1) must be divisible by {new // old} to view {names} (different "
                               f"element sizes), but got {input.shape[-1]}")
    from .._memory import host_view
    from .._runtime import ON_CPU

    if input.dtype in _float8.FLOAT8 or dtype in _float8.FLOAT8:
        return _float8_view(input, dtype)
    if ON_CPU and input.is_contiguous():
        # the same memory read as `dtype`: writes through either show in the other, as torch's view (bfloat16
        # through its NumPy type from ml_dtypes, which `host_view` lays out)
        return Tensor.from_numpy(host_view(input).view(_dtype.to_numpy_dtype(dtype)))
    if ON_CPU and 0 not in input._shape:
        return _strided_view_as_dtype(input, dtype, old, new, names)
    # other targets, and an empty tensor (no memory to share): a copy of the bytes read as `dtype`
    arr = np.ascontiguousarray(input.asnumpy())
    return Tensor.from_numpy(arr.view(_dtype.to_numpy_dtype(dtype)))


def _float8_view(input, dtype):
    """A view across a float8 dtype: through MindSpore's dtype view to and from uint8 bytes (NumPy has no
    float8 type), the rest as for any other dtype."""
    from .. import _float8

    _float8._require_views()
    u8 = mindspore.uint8
    if input.dtype in _float8.FLOAT8:
        input = _ms.view_dtype(input, u8)
        return input if dtype is u8 else (_ms.view_dtype(input, dtype) if dtype in _float8.FLOAT8
                                          else view_as_dtype(input, dtype))
    return _ms.view_dtype(view_as_dtype(input, u8), dtype)


def _strided_view_as_dtype(input, dtype, old, new, names):
    """A non-contiguous tensor's memory read as `dtype`, aliased: its whole storage read as `dtype`, then the
    input's sizes, strides and offset in units of the new element (torch's rules for element sizes)."""
    from .._memory import host_view

    stride, offset = list(input.stride()), input.storage_offset()
    if new > old:  # a new element spans `factor` old ones: the other strides and the offset must divide
        factor = new // old
        for i, step in enumerate(stride[:-1]):
            if step % factor:
                raise RuntimeError(f"self.stride({i}) must be divisible by {factor} to view {names} (different "
                                   f"element sizes), but got {step}")
        if offset % factor:
            raise RuntimeError(f"self.storage_offset() must be divisible by {factor} to view {names} (different "
                               f"element sizes), but got {offset}")
        scale = lambda n: n // factor  # noqa: E731
    else:
        scale = lambda n: n * (old // new)  # noqa: E731
    size = list(input._shape)
    size[-1] = scale(size[-1])
    stride = [scale(step) for step in stride[:-1]] + [1 if old != new else stride[-1]]
    count = _ms.untyped_storage(input).nbytes() // old
    whole = _ms.as_strided(ops.stop_gradient(input), (count,), (1,), 0)  # (the storage from its first element)
    whole = Tensor.from_numpy(host_view(whole).view(_dtype.to_numpy_dtype(dtype)))
    return _ms.as_strided(whole, tuple(size), tuple(stride), scale(offset))


def view_as(input, other):
    return view(input, other.shape)


def reshape_as(input, other):
    return reshape(input, other.shape)


def transpose(input, dim0, dim1):
    n = len(input._shape)
    dim0, dim1 = wrap_dim(dim0, n), wrap_dim(dim1, n)  # (a 0-d or 1-d tensor takes dims -1 and 0 only)
    if dim0 == dim1:
        return input
    perm = list(range(n))
    perm[dim0], perm[dim1] = dim1, dim0
    return view_kernels.permute(input, tuple(perm))


swapaxes = swapdims = transpose


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return transpose(input, 0, 1) if input.ndim == 2 else input


def permute(input, *dims):
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims, n = dims_arg(dims), len(input._shape)
    if len(dims) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                           f"the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = "
                           f"{len(dims)}")
    dims = tuple(wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if dims == tuple(range(n)):
        return input
    return view_kernels.permute(input, dims)


def movedim(input, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.ndim
    src = [wrap_dim(s, n) for s in src]
    dst = [wrap_dim(d, n) for d in dst]
    order = [d for d in range(n) if d not in src]
    perm = [None] * n
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return permute(input, perm)


moveaxis = movedim


def unsqueeze(input, dim):
    return view_kernels.expand_dims(input, wrap_dim(dim, len(input._shape) + 1))


def squeeze(input, dim=None):
    if dim is None:
        axes = tuple(i for i, s in enumerate(input.shape) if s == 1)
    else:
        dims = [wrap_dim(d, input.ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))]
        for i, d in enumerate(dims):
            if d in dims[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        axes = tuple(sorted(d for d in dims if input.ndim and input.shape[d] == 1))  # (a 0-d tensor takes dim 0/-1)
    if not axes:
        return input
    return ops.squeeze(input, axes)


def _squeeze_method(self, *dims, **kwargs):
    """Tensor.squeeze: also takes its dims as separate arguments (`t.squeeze(0, 1)`, as transformers'
    speculative sampling calls it); torch.squeeze takes one int or tuple."""
    if len(dims) > 1:
        if kwargs:
            raise TypeError("squeeze() received an invalid combination of arguments")
        return squeeze(self, dims)
    return squeeze(self, *dims, **kwargs)


def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        wrap_dim(start_dim, 0), wrap_dim(end_dim, 0)  # (torch's IndexError for dims a 0-d tensor does not take)
        return reshape(input, 1)
    s, e = wrap_dim(start_dim, input.ndim), wrap_dim(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input  # torch's flatten returns its input itself where it flattens nothing
    shape = input.shape[:s] + (-1,) + input.shape[e + 1:]
    return reshape(input, shape)


def unflatten(input, dim, sizes):
    dim = wrap_dim(dim, input.ndim)
    inner = _infer_shape(sizes, input.shape[dim])
    return reshape(input, input.shape[:dim] + inner + input.shape[dim + 1:])


def expand(input, *sizes):
    sizes = shape_arg(sizes)
    lead = len(sizes) - input.ndim
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({input.ndim})")
    shape = tuple(input.shape)
    target = tuple(shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    if target == shape:
        return input
    for i, size in enumerate(target):  # torch's errors (MindSpore's broadcast raises a ValueError of its own)
        if i < lead:
            if size < 0:
                raise RuntimeError(f"The expanded size of the tensor ({size}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        elif size != shape[i - lead] and shape[i - lead] != 1 or size < 0:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size "
                               f"({shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(shape)}")
    return ops.broadcast_to(input, target)


def expand_as(input, other):
    return expand(input, other.shape)


expand_as.__wrapped_for_bf16__ = True  # `other` gives only a shape; `expand` computes bfloat16 itself


def broadcast_to(input, size):
    return expand(input, size)


def broadcast_tensors(*tensors):
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    """The torch.Size every shape broadcasts to; shapes are ints, tuples or lists of ints, read from the last
    dimension on, in order (so torch's errors come from the same argument)."""
    from collections.abc import Sequence
    from .._size import Size

    given = []
    for shape in shapes:
        if isinstance(shape, int):
            shape = (shape,)
        elif not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
        given.append(tuple(shape))
    result = [1] * max((len(shape) for shape in given), default=0)
    for index, shape in enumerate(given):
        for dim in range(-1, -1 - len(shape), -1):
            size = shape[dim]
            if size == 1 or size == result[dim]:
                continue
            if result[dim] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {dim}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {result}")
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            result[dim] = size
    return Size(result)


def repeat(input, *sizes):
    sizes = shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    x = input.reshape((1,) * (len(sizes) - input.ndim) + tuple(input.shape))
    if 0 in x._shape or 0 in sizes:  # (MindSpore's Tile fails on an empty result)
        return _empty_like_result(x, tuple(n * r for n, r in zip(x._shape, sizes)))
    return ops.tile(x, sizes)


def _empty_like_result(x, shape):
    """An empty result of `shape` computed from `x` (empty too, or repeated zero times): in the graph when `x` is,
    as torch's; MindSpore's kernels (Tile, a gather's gradient) fail on empty operands."""
    if x._requires_grad:
        return ops.broadcast_to(ops.mul(ops.reduce_sum(x), 0), shape)
    return _ms.zeros(shape, x.dtype)


def tile(input, dims):
    dims = tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def _repeat_counts(repeats, output_size):
    """torch.repeat_interleave(repeats): each index i of the 1-d integer tensor `repeats`, repeats[i] times."""
    if repeats.dtype not in _dtype.INTEGRAL:
        raise no_kernel("repeat_interleave_cpu", repeats.dtype)
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = repeats.asnumpy()
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    return Tensor(np.repeat(np.arange(len(counts), dtype=counts.dtype), counts))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:
        return _repeat_counts(input, output_size)
    if dim is not None and input.ndim == 0:  # (torch refuses any dim of a 0-d input)
        if isinstance(repeats, Tensor):
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = wrap_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if repeats.numel() == 1:
            repeats = int(repeats.item())
    length = input.shape[dim] if input.ndim else 1
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        if input.numel() and repeats and input.dtype != mindspore.bool_:
            return ops.repeat_interleave(input, repeats, dim)
        counts = np.full(length, repeats, dtype=np.int64)
    else:
        counts = repeats.asnumpy()
        if counts.shape[0] != length:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.shape[0]} and input.size(0) = {length}")
    # Every other case is a selection of slices along dim: MindSpore's RepeatElements takes no bool, and its Tile
    # fails on an empty input or result ("fast stride can not be equal to 0").
    index = _repeat_counts(Tensor(counts), output_size)
    x = input if input.ndim else input.reshape(1)
    if x.numel() == 0 or index.numel() == 0:
        return _empty_like_result(x, x.shape[:dim] + (index.numel(),) + x.shape[dim + 1:])
    from .indexing import index_select
    return index_select(x, dim, index)


def _repeat_interleave_method(self, repeats, dim=None, *, output_size=None):
    """Tensor.repeat_interleave: `repeats` is required (the one-tensor form is the function's only)."""
    return repeat_interleave(self, repeats, dim, output_size=output_size)


def _promote_all(tensors):
    first = tensors[0]._dtype
    if all(t._dtype is first for t in tensors):  # the usual case; tensors carry MindSpore's singleton dtypes
        return tensors
    dt = result_dtype(t.dtype for t in tensors)
    return [t if t.dtype == dt else t.astype(dt) for t in tensors]


def _tensor_list(tensors, name):
    """The tensors of a list argument: a list or tuple, as torch takes (iterating a tensor took its rows)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    return list(tensors)


def cat(tensors, dim=0, *, out=None):
    if out is not None:
        return _cat_out(cat(tensors, dim), out, "cat")
    if _holds_float8(tensors):
        return _float8_joined(cat, tensors, dim, "torch.cat")
    if type(tensors) in (list, tuple) and len(tensors) == 2:  # the usual call, before the general checks
        a, b = tensors
        a_shape, b_shape = a._shape, b._shape
        if a._dtype is b._dtype and len(a_shape) == len(b_shape) and a_shape != (0,) and b_shape != (0,):
            dim = dim if dim >= 0 else dim + len(a_shape)
            on_host = host_small.cat(tensors, dim)
            return on_host if on_host is not None else ops.cat((a, b), dim)
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    # torch skips 1-D empty tensors when concatenating, after they took part in the result dtype
    tensors = _promote_all(tensors)
    nonempty = [t for t in tensors if t._shape != (0,)]
    if len(nonempty) <= 1:
        return _cat_of_one(nonempty[0] if nonempty else tensors[0], tensors)
    ndim = len(nonempty[0]._shape)
    for t in nonempty[1:]:
        if len(t._shape) != ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ndim} and {t.ndim}")
    on_host = host_small.cat(nonempty, wrap_dim(dim, ndim))
    if on_host is not None:
        return on_host
    return ops.cat(tuple(nonempty), wrap_dim(dim, ndim))


concat = concatenate = cat


def _holds_float8(tensors):
    return type(tensors) in (list, tuple) and any(type(t) is Tensor and t._dtype in _float8.FLOAT8 for t in tensors)


def _float8_joined(join, tensors, dim, name):
    """cat/stack of float8 tensors of one dtype: their bytes joined (no CPU kernel joins float8)."""
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) != 1:
        raise _float8.unsupported(f"{name} of float8 tensors with tensors of other dtypes")
    _float8._require_views()
    u8 = mindspore.uint8
    return _ms.view_dtype(join([_ms.view_dtype(t, u8) for t in tensors], dim), dtypes.pop())


def _cat_of_one(kept, tensors):
    """cat of one tensor after the skipped empty ones: a new tensor (cat never returns its input, so writes to
    the result must not reach it)."""
    from .._tensor import clone

    if 0 not in kept._shape:
        return clone(kept)
    # no Clone kernel for an empty tensor; one that requires grad gives a result in the graph, as torch's
    if not kept._requires_grad:
        return _ms.zeros(kept._shape, kept._dtype)
    if kept._dtype is mindspore.bfloat16:  # (MindSpore 2.8 has no bfloat16 Mul kernel; the casts are exact)
        return ops.mul(kept.astype(mindspore.float32), 0).astype(mindspore.bfloat16)
    return ops.mul(kept, 0)


def _cat_out(result, out, name):
    # torch's cat refuses an out of a lower kind with a TypeError (other ops: RuntimeError)
    if isinstance(out, Tensor) and dtype_category(result.dtype) > dtype_category(out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {type_name(out.dtype)}")
    return write_out(out, result, name)


def stack(tensors, dim=0, *, out=None):
    if out is not None:
        return _cat_out(stack(tensors, dim), out, "stack")
    if _holds_float8(tensors):
        return _float8_joined(stack, tensors, dim, "torch.stack")
    tensors = _promote_all(_tensor_list(tensors, "stack"))
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return ops.stack(tuple(tensors), wrap_dim(dim, tensors[0].ndim + 1))


stack.handles_float8 = cat.handles_float8 = True


def hstack(tensors, *, out=None):
    if out is not None:
        return _cat_out(hstack(tensors), out, "hstack")
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in _tensor_list(tensors, "hstack")]  # torch.atleast_1d first
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors, *, out=None):
    if out is not None:
        return _cat_out(vstack(tensors), out, "vstack")
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in _tensor_list(tensors, "vstack")], 0)  # atleast_2d


def split(tensor, split_size_or_sections, dim=0):
    dim = wrap_dim(dim, tensor.ndim)
    length = tensor.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [step] * (length // step) + ([length % step] if length % step else [])
        if not sizes:
            sizes = [0]
    else:
        sizes = list(split_size_or_sections)
    return _split_sizes(tensor, sizes, dim)


_narrow = mint.narrow  # a view over the same storage, as Split's pieces are


def _split_sizes(tensor, sizes, dim):
    total = 0
    for s in sizes:
        total += s
    if total != tensor.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {tensor.shape[dim]} "
                           f"(input tensor's size at dimension {dim}), but got split_sizes={list(sizes)}")
    if len(sizes) == 1:
        return (tensor,)
    if not tensor._requires_grad and tensor._is_leaf and 0 not in sizes:
        # outside the graph, one Narrow view per piece (about 14 µs each) instead of MindSpore's Split (about
        # 200 µs for three pieces of a small tensor: GPT-2 splits q, k and v this way every layer and token)
        starts = [0]
        for size in sizes[:-1]:
            starts.append(starts[-1] + size)
        return tuple(_narrow(tensor, dim, start, size) for start, size in zip(starts, sizes))
    return tuple(ops.split(tensor, list(sizes), dim))


def split_with_sizes(tensor, split_sizes, dim=0):
    return _split_sizes(tensor, list(split_sizes), wrap_dim(dim, tensor.ndim))


def chunk(input, chunks, dim=0):
    dim = wrap_dim(dim, input.ndim)
    length = input.shape[dim]
    step = -(-length // chunks) if length else 1
    return split(input, step, dim) if length else (input,)


def tensor_split(input, indices_or_sections, dim=0):
    dim = wrap_dim(dim, input.ndim)
    n = input.shape[dim]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    else:
        bounds = [0] + [min(int(i), n) for i in indices_or_sections] + [n]
        sizes = [max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    return tuple(narrow(input, dim, _total(sizes[:i]), s) for i, s in enumerate(sizes))


def _total(values):
    total = 0
    for v in values:
        total += v
    return total


def unbind(input, dim=0):
    dim = wrap_dim(dim, input.ndim)
    return tuple(select(input, dim, i) for i in range(input.shape[dim]))


def narrow(input, dim, start, length):
    shape = input._shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, len(shape))
    if isinstance(start, Tensor):
        start = int(start.item())
    size = shape[dim]  # (checked here: the slice below would clamp a range that does not fit, or wrap a negative one)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    index = (slice(None),) * dim + (slice(start, start + length),)
    return input[index]


def select(input, dim, index):
    dim = wrap_dim(dim, input.ndim)
    return input[(slice(None),) * dim + (index,)]


def flip(input, dims):
    dims = tuple(wrap_dim(d, input.ndim) for d in ([dims] if isinstance(dims, int) else dims))
    if 0 in input._shape or not input._shape:
        # nothing to reverse (MindSpore's ReverseV2 kernel refuses rank 0, and can die with SIGFPE on an empty
        # input once it has run on other shapes)
        return ops.reshape(input, input._shape)
    return ops.flip(input, dims)


def roll(input, shifts, dims=None):
    if dims is None:
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    out = input
    for s, d in zip(shifts, dims):
        d = wrap_dim(d, input.ndim)
        n = input.shape[d]
        if n == 0:  # (an empty tensor rolls into itself)
            continue
        s %= n
        if s:
            out = cat([narrow(out, d, n - s, s), narrow(out, d, 0, n - s)], d)
    return out


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """n-th forward difference along `dim`: out[i] = x[i+1] - x[i], applied n times."""
    if out is not None:
        return write_out(out, diff(input, n, dim, prepend, append), "diff")
    dim = wrap_dim(dim, input.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        later, earlier = narrow(x, dim, 1, length - 1), narrow(x, dim, 0, length - 1)
        x = ops.logical_xor(later, earlier) if x.dtype == mindspore.bool_ else ops.sub(later, earlier)
    return x


def tril(input, diagonal=0, *, out=None):
    if out is not None:
        return write_out(out, tril(input, diagonal), "tril", exact=True)
    if 0 in input._shape and input.ndim >= 2:  # (MindSpore's kernel refuses an empty matrix)
        return ops.reshape(input, input._shape)
    return ops.tril(input, diagonal)


def triu(input, diagonal=0, *, out=None):
    if out is not None:
        return write_out(out, triu(input, diagonal), "triu", exact=True)
    if 0 in input._shape and input.ndim >= 2:  # (MindSpore's kernel refuses an empty matrix)
        return ops.reshape(input, input._shape)
    return ops.triu(input, diagonal)


def diagonal(input, offset=0, dim1=0, dim2=1):
    if not ((input._requires_grad or not input._is_leaf) and _ms.grad_enabled()):
        return ops.diagonal(input, offset, dim1, dim2)
    result = ops.diagonal(ops.stop_gradient(input), offset, dim1, dim2)
    if 0 in result._shape:
        from .._tensor import _empty_on_graph  # (MindSpore 2.7-2.8's backward of an empty diagonal kills the process)

        return _empty_on_graph(input, result)
    # inside autograd the gradient comes from a gather of the diagonal's elements and the memory is the view's:
    # MindSpore's own Diagonal node makes any later write into the base fail its backward (a version check on the
    # diagonal that torch does not make)
    from .._inplace import swap_storage_only

    elements = np.diagonal(np.arange(input.numel(), dtype=np.int64).reshape(tuple(input.shape)), offset,
                           wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim))
    out = ops.gather(ops.reshape(input, (-1,)), Tensor(np.ascontiguousarray(elements)), 0)
    swap_storage_only(out, result)
    return out


from .dense import contiguous  # noqa: E402,F401  (the one definition; fast dense copies live there)


def atleast_1d(input):
    return input.reshape(1) if input.ndim == 0 else input


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(ops.meshgrid(*tensors, indexing=indexing))


# views built on other views (basic indexing, narrow, select, split, expand): those compute bfloat16 themselves,
# keeping the result a view of the input's memory (`_backend.bf16_view`)
for _view in (narrow, select, chunk, unbind, tensor_split, broadcast_to, broadcast_tensors):
    _view.__wrapped_for_bf16__ = True

from ._util import accept_numpy_names  # noqa: E402
from .. import _backend as _backend_table  # noqa: E402

accept_numpy_names(globals(), __name__)
_backend_table.adapt_module(globals(), __name__)


# ---------------------------------------------------------------- views inside the autograd graph
def _alias(input):
    """A new tensor over `input`'s elements with its shape and strides. torch's view ops return a distinct tensor
    even where nothing changes (`x.view(x.shape)`, `x.transpose(0, 0)`, `x.expand_as(x)`, `x[...]`): its own
    hooks, `.grad`, `requires_grad`, attributes and graph node. Returning `input` itself would let a hook on the
    view see the gradient of every use of `input`, and a view of a leaf would answer as the leaf."""
    if _ms.is_contiguous(input):
        return view_kernels.reshape(input, input._shape)
    return view_kernels.permute(input, tuple(range(len(input._shape))))  # (the identity permutation keeps the strides)


def _track_views():
    """The view ops' results are distinct tensors (`_alias`) and are registered as views of their input when it
    is in the autograd graph (`_autograd_views`): a later in-place write that torch would replay through them is
    refused. `flatten` alone returns its input where it flattens nothing, as torch's does."""
    from .. import _autograd_views

    module = globals()
    by_shape = {"view_as": view, "reshape_as": reshape, "expand_as": expand}  # (the ops before they are wrapped)
    for name in ("view", "reshape", "view_as", "reshape_as", "transpose", "t", "permute", "movedim", "unsqueeze",
                 "squeeze", "unflatten", "expand", "expand_as", "broadcast_to", "narrow", "select",
                 "diagonal", "tensor_split"):
        module[name] = _autograd_views.view_op(module[name], same=_alias, by_shape=by_shape.get(name))
    module["flatten"] = _autograd_views.view_op(module["flatten"])
    for name in ("split", "split_with_sizes", "chunk", "unbind"):  # torch's multi-output views
        module[name] = _autograd_views.view_op(module[name], multi=True, same=_alias)
    module["swapaxes"] = module["swapdims"] = module["transpose"]
    module["moveaxis"] = module["movedim"]


_track_views()
