"""Top-level torch functions composed from existing ops (their gradients are those of the ops they use):
block_diag, cartesian_prod, combinations, cdist, dist, kron, tensordot, vdot, mv, chain_matmul, trapezoid and
cumulative_trapezoid, corrcoef, complex and polar, atleast_2d/3d, column_stack, dstack, the window functions,
tril_indices/triu_indices, unravel_index, frexp, vander and pinverse."""
import builtins
import itertools

import mindspore
import numpy as np
from mindspore import ops

from .. import _dtype
from . import creation, linalg as products, pointwise as pw, reduction as red, shape as sh
from . import product_dtypes
from .special_math import view_as_real
from ._util import no_kernel, Tensor, type_name, write_out
from .._runtime import grad_enabled
from ..autograd.function import Function
from ..return_types import return_type
from ... import _mindspore as _ms


def _float_default(dtype):
    return dtype if dtype is not None else _dtype.get_default_dtype()


# ---------------------------------------------------------------- products
def block_diag(*tensors):
    """The tensors (0-d, 1-d rows or 2-d) placed along the diagonal of a zero matrix."""
    mats = [t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t for t in tensors]
    if any(m.ndim != 2 for m in mats):
        raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions")
    if not mats:
        return _ms.zeros((1, 0), _dtype.get_default_dtype())
    from ._util import result_dtype

    dt = result_dtype([m.dtype for m in mats])
    total = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        m = m.astype(dt) if m.dtype != dt else m
        parts = [p for p in (_ms.zeros((m.shape[0], left), dt), m,
                             _ms.zeros((m.shape[0], total - left - m.shape[1]), dt)) if p.shape[1]]
        rows.append(sh.cat(parts, 1) if len(parts) > 1 else parts[0] if parts else _ms.zeros((m.shape[0], 0), dt))
        left += m.shape[1]
    return sh.cat(rows, 0)


def cartesian_prod(*tensors):
    """All tuples of the 1-d tensors' elements, as rows (a 1-d tensor for one input)."""
    if len(tensors) == 1:
        return tensors[0]
    lengths = [t.shape[0] for t in tensors]
    columns = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = lengths[i]
        columns.append(sh.expand(t.reshape(shape), tuple(lengths)).reshape(-1))
    return sh.stack(columns, 1)


def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-d tensor's elements, as rows."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _ms.zeros((0,), input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.asarray(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    if idx.shape[0] == 0:
        return _ms.zeros((0, r), input.dtype)
    from .indexing import index_select

    return sh.stack([index_select(input, 0, Tensor(idx[:, k])) for k in range(r)], 1)


def kron(input, other, *, out=None):
    """The Kronecker product: out[i*m + k, ...] = input[i, ...] * other[k, ...]."""
    if out is not None:
        return write_out(out, kron(input, other), "kron")
    nd = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (nd - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (nd - other.ndim) + tuple(other.shape))
    # interleave: a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...)
    a_shape, b_shape = [], []
    for x, y in zip(a.shape, b.shape):
        a_shape += [x, 1]
        b_shape += [1, y]
    prod = pw.mul(a.reshape(a_shape), b.reshape(b_shape))
    return prod.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


def tensordot(a, b, dims=2, out=None):
    """The contraction of a's dims_a with b's dims_b (dims: a count of trailing/leading dims, or two lists)."""
    if out is not None:
        return write_out(out, tensordot(a, b, dims), "tensordot", exact=True, differentiable=False)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    dims_a = [d % a.ndim for d in dims_a]
    dims_b = [d % b.ndim for d in dims_b]
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = int(np.prod([a.shape[d] for d in dims_a])) if dims_a else 1
    am = sh.permute(a, free_a + dims_a).reshape(-1, k)
    bm = sh.permute(b, dims_b + free_b).reshape(k, -1)
    return products.matmul(am, bm).reshape(tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))


def vdot(input, other, *, out=None):
    """sum(conj(input) * other) of two 1-d tensors."""
    if out is not None:
        return write_out(out, vdot(input, other), "vdot", exact=True)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype in _dtype.COMPLEX:
        input = ops.conj(input)
    return products.dot(input, other)


@product_dtypes.checked_by(product_dtypes.mv)
def mv(input, vec, *, out=None):
    """The product of a matrix and a vector."""
    if out is not None:
        return write_out(out, mv(input, vec), "mv", exact=True)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {input.ndim}, {vec.ndim}")
    product_dtypes.mv(input, vec)
    return products.matmul(input, vec)


def chain_matmul(*matrices, out=None):
    """The product of 2-d matrices in order (deprecated in torch for linalg.multi_dot)."""
    if out is not None:
        return write_out(out, chain_matmul(*matrices), "chain_matmul", exact=True)
    if len(matrices) == 1:
        return matrices[0]
    from .linalg_matrix_functions import multi_dot

    return multi_dot(matrices)


def dist(input, other, p=2):
    """The p-norm of input - other."""
    return products.vector_norm(pw.sub(input, other), p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 and each row of x2 (batched over leading dims)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    diff = pw.sub(sh.unsqueeze(x1, -2), sh.unsqueeze(x2, -3))
    if p == float("inf") and grad_enabled() and diff.requires_grad:
        return _ChebyshevDistance.apply(diff)
    return products.vector_norm(diff, p, -1)


class _ChebyshevDistance(Function):
    """max |diff| over the last dimension, recorded with cdist's gradient in torch: sign(diff) to every
    coordinate where |diff| reaches the maximum, each in full (a max reduction would split it among ties)."""

    @staticmethod
    def forward(ctx, diff):
        distance = ops.amax(ops.abs(diff), -1)
        ctx.save_for_backward(diff, distance)
        return distance

    @staticmethod
    def backward(ctx, grad):
        diff, distance = ctx.saved_tensors
        reaches = ops.equal(ops.abs(diff), ops.expand_dims(distance, -1)).astype(grad.dtype)
        return ops.mul(ops.mul(ops.sign(diff), reaches), ops.expand_dims(grad, -1))


# ---------------------------------------------------------------- integration and statistics
def _spacing(y, x, dx, dim):
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx; only one may be given")
    if x is None:
        return 1.0 if dx is None else dx
    if x.ndim == 1:
        d = sh.diff(x)
        shape = [1] * y.ndim
        shape[dim % y.ndim] = d.shape[0]
        return d.reshape(shape)
    return sh.diff(x, dim=dim)


def _pair_sums(y, dim):
    n = y.shape[dim]
    return pw.add(sh.narrow(y, dim, 1, n - 1), sh.narrow(y, dim, 0, n - 1))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim: sum of (y[i] + y[i+1]) / 2 times the spacing."""
    if y.dtype == mindspore.bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    if y.shape[dim] == 0:
        return red.sum(y, dim)
    spacing = _spacing(y, x, dx, dim)
    if y.dtype not in _dtype.FLOATING and y.dtype not in _dtype.COMPLEX:
        y = y.astype(_dtype.get_default_dtype())
    return red.sum(pw.mul(_pair_sums(y, dim), spacing), dim) / 2 if isinstance(spacing, Tensor) else \
        pw.mul(red.sum(_pair_sums(y, dim), dim), spacing / 2)


def trapz(y, x=None, *, dx=None, dim=-1):
    """torch.trapz: trapezoid (x given positionally, or dx as a number)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return trapezoid(y, dx=x, dim=dim)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along dim (one element shorter than y)."""
    if y.dtype == mindspore.bool_:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
    if y.shape[dim] == 0:
        return y
    spacing = _spacing(y, x, dx, dim)
    if y.dtype not in _dtype.FLOATING and y.dtype not in _dtype.COMPLEX:
        y = y.astype(_dtype.get_default_dtype())
    return red.cumsum(pw.div(pw.mul(_pair_sums(y, dim), spacing), 2.0), dim)


def corrcoef(input):
    """Pearson correlation coefficients of the rows (variables) of a 1-d or 2-d tensor, clipped to [-1, 1]."""
    from .statistics import cov

    c = cov(input)
    if c.ndim == 0:
        return pw.div(c, c)
    d = sh.diagonal(c)
    std = pw.sqrt(d)
    c = pw.div(pw.div(c, sh.unsqueeze(std, 1)), sh.unsqueeze(std, 0))
    return pw.clamp(c, -1, 1) if c.dtype not in _dtype.COMPLEX else c


# ---------------------------------------------------------------- complex numbers
def complex(real, imag, *, out=None):
    """real + i imag (float32 -> complex64, float64 -> complex128)."""
    if out is not None:
        return write_out(out, complex(real, imag), "complex", exact=True)
    if real.dtype != imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {_name(real.dtype)} but got scalar type "
                           f"{_name(imag.dtype)} for second argument")
    if real.dtype not in (mindspore.float32, mindspore.float64):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_name(real.dtype)} "
                           f"and {_name(imag.dtype)}")
    shape = tuple(np.broadcast_shapes(tuple(real.shape), tuple(imag.shape)))
    return ops.Complex()(sh.broadcast_to(real, shape), sh.broadcast_to(imag, shape))


def _name(dt):
    return str(dt).replace("torch.", "").capitalize()


def polar(abs, angle, *, out=None):
    """abs (cos(angle) + i sin(angle))."""
    if out is not None:
        return write_out(out, polar(abs, angle), "polar", exact=True)
    return complex(pw.mul(abs, pw.cos(angle)), pw.mul(abs, pw.sin(angle)))


# ---------------------------------------------------------------- shapes
def atleast_2d(*tensors):
    def one(t):
        return t.reshape(1, 1) if t.ndim == 0 else sh.unsqueeze(t, 0) if t.ndim == 1 else t

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(one(t) for t in tensors[0])
    return one(tensors[0]) if len(tensors) == 1 else tuple(one(t) for t in tensors)


def atleast_3d(*tensors):
    def one(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, -1, 1)
        return sh.unsqueeze(t, -1) if t.ndim == 2 else t

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(one(t) for t in tensors[0])
    return one(tensors[0]) if len(tensors) == 1 else tuple(one(t) for t in tensors)


def column_stack(tensors, *, out=None):
    """1-d (and 0-d) tensors as columns, then concatenated along dim 1."""
    cols = [t.reshape(-1, 1) if t.ndim <= 1 else t for t in sh._tensor_list(tensors, "column_stack")]
    return sh.cat(cols, 1, out=out)  # (out= as torch.cat's)


def dstack(tensors, *, out=None):
    return sh.cat(list(atleast_3d(tuple(sh._tensor_list(tensors, "dstack")))), 2, out=out)  # (out= as torch.cat's)


def _integral_indices(dtype, name):
    if dtype is not None and dtype not in (mindspore.int32, mindspore.int64):  # (torch's only index kernels)
        raise no_kernel(name, dtype)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of a row x col matrix's lower triangle (diagonal `offset`), row by row."""
    _integral_indices(dtype, "tril_indices")
    r, c = np.tril_indices(row, offset, col)
    return creation.tensor(np.stack([r, c]).astype(np.int64), dtype=dtype or mindspore.int64, device=device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    _integral_indices(dtype, "triu_indices")
    r, c = np.triu_indices(row, offset, col)
    return creation.tensor(np.stack([r, c]).astype(np.int64), dtype=dtype or mindspore.int64, device=device)


def unravel_index(indices, shape):
    """The coordinates of flat indices in a tensor of `shape`, as a tuple of tensors."""
    if isinstance(indices, Tensor) and (indices.is_floating_point() or indices.dtype == mindspore.bool_):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    flat = indices.asnumpy() if isinstance(indices, Tensor) else np.asarray(indices)
    size = int(np.prod(shape))
    if ((flat < -size) | (flat >= size)).any():
        raise RuntimeError("'indices' must be in range [-prod(shape), prod(shape) - 1]")
    coords = np.unravel_index(np.where(flat < 0, flat + size, flat), shape)
    return tuple(Tensor(np.asarray(c, np.int64)) for c in coords)


def frexp(input, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2^exponent, |mantissa| in [0.5, 1)."""
    if out is not None:
        from ..autograd.grad_mode import is_grad_enabled
        from ._util import write_outs

        if is_grad_enabled() and input.requires_grad:  # (computed on the host: the check torch makes, here)
            raise RuntimeError("frexp(): functions with out=... arguments don't support automatic differentiation, "
                               "but one of the arguments requires grad.")
        return write_outs(out, frexp(input), "frexp")
    if input.dtype not in _dtype.FLOATING:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(input.asnumpy())
    result = return_type("frexp", ["mantissa", "exponent"])
    return result(Tensor(np.require(m, requirements="C")), Tensor(np.require(e.astype(np.int32), requirements="C")))


# ---------------------------------------------------------------- window functions
def _check_window_dtype(dtype, name):
    """torch's windows are floating point (a complex dtype fails in its arange)."""
    if dtype in _dtype.COMPLEX:
        raise no_kernel("arange_cpu", dtype)
    if dtype is not None and dtype not in _dtype.FLOATING:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {type_name(dtype)}")


def _window(length, periodic, dtype, device, requires_grad, values, name):
    _check_window_dtype(dtype, name)
    dtype = _float_default(dtype)
    if length < 0:
        raise RuntimeError(f"window_length must be non-negative, got {length}")
    if length == 0:
        return creation.tensor(np.zeros(0), dtype=dtype, device=device, requires_grad=requires_grad)
    if length == 1:
        return creation.tensor(np.ones(1), dtype=dtype, device=device, requires_grad=requires_grad)
    n = length + 1 if periodic else length
    w = values(np.arange(n, dtype=np.float64), n)[:length]
    return creation.tensor(w, dtype=dtype, device=device, requires_grad=requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window(window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 1 - np.abs(2 * k / (n - 1) - 1), "bartlett_window")


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window(window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 0.08 * np.cos(4 * np.pi * k / (n - 1)) - 0.5 * np.cos(2 * np.pi * k / (n - 1)) + 0.42, "blackman_window")


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    return _window(window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: alpha - beta * np.cos(2 * np.pi * k / (n - 1)), "hamming_window")


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    return _window(window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: np.i0(beta * np.sqrt(np.clip(1 - (2 * k / (n - 1) - 1) ** 2, 0, None))) / np.i0(beta), "kaiser_window")


# ---------------------------------------------------------------- older spellings of linalg functions
def vander(x, N=None, increasing=False):
    """Columns x^(N-1), ..., x, 1 (increasing: 1, x, ..., x^(N-1)) of a 1-d x."""
    from .linalg_matrix_functions import vander as _increasing

    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if x.dtype == mindspore.bool_ or x.dtype in (mindspore.int8, mindspore.uint8, mindspore.int16, mindspore.int32):
        x = x.astype(mindspore.int64)
    v = _increasing(x, N)
    return v if increasing else sh.flip(v, (-1,))


def pinverse(input, rcond=1e-15):
    from .linalg_solve import pinv

    return pinv(input, rtol=rcond)


# ---------------------------------------------------------------- copying forms of view ops
def _copying(view_fn, name, several=False):
    """torch.<view>_copy: the view op's result as a new tensor (no storage shared with the input). Those that
    answer several tensors take no out= here (torch's takes a list of tensors)."""

    def fn(input, *args, out=None, **kwargs):
        if out is not None:  # (as torch's: out's dtype exactly, inputs that require grad accepted)
            return write_out(out, fn(input, *args, **kwargs), name, exact=True, differentiable=False)
        return view_fn(input, *args, **kwargs).clone()

    def several_fn(input, *args, **kwargs):
        return tuple(r.clone() for r in view_fn(input, *args, **kwargs))

    chosen = several_fn if several else fn

    chosen.__name__ = chosen.__qualname__ = name
    chosen.__doc__ = f"torch.{name}: a copy of what the view op returns."
    return chosen


def _view(input, *shape):
    if len(shape) == 1 and not isinstance(shape[0], int) and not isinstance(shape[0], (tuple, list)):
        return input.view(shape[0])  # a dtype
    return input.view(*shape)


alias_copy = _copying(lambda input: input, "alias_copy")
detach_copy = _copying(lambda input: input.detach(), "detach_copy")
diagonal_copy = _copying(lambda input, offset=0, dim1=0, dim2=1: sh.diagonal(input, offset, dim1, dim2),
                         "diagonal_copy")
expand_copy = _copying(lambda input, size, *, implicit=False: sh.expand(input, tuple(size)), "expand_copy")
permute_copy = _copying(lambda input, dims: sh.permute(input, tuple(dims)), "permute_copy")
select_copy = _copying(lambda input, dim, index: sh.select(input, dim, index), "select_copy")
slice_copy = _copying(lambda input, dim=0, start=None, end=None, step=1:
                      input[(slice(None),) * (dim % input.ndim) + (slice(start, end, step),)], "slice_copy")
split_copy = _copying(lambda tensor, split_size, dim=0: sh.split(tensor, split_size, dim), "split_copy", True)
split_with_sizes_copy = _copying(lambda input, split_sizes, dim=0: sh.split_with_sizes(input, split_sizes, dim),
                                 "split_with_sizes_copy", True)
squeeze_copy = _copying(lambda input, *dim: sh.squeeze(input, *dim), "squeeze_copy")
t_copy = _copying(lambda input: sh.t(input), "t_copy")
transpose_copy = _copying(lambda input, dim0, dim1: sh.transpose(input, dim0, dim1), "transpose_copy")
unbind_copy = _copying(lambda input, dim=0: sh.unbind(input, dim), "unbind_copy", True)
unfold_copy = _copying(lambda input, dimension, size, step: input.unfold(dimension, size, step), "unfold_copy")
unsqueeze_copy = _copying(lambda input, dim: sh.unsqueeze(input, dim), "unsqueeze_copy")
view_copy = _copying(_view, "view_copy")
view_as_real_copy = _copying(lambda input: view_as_real(input), "view_as_real_copy")



def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """(hist, bin_edges): counts (or summed weights) of input's values in equal-width bins over `range` (by
    default the values' span), or in the given edges; torch defines no gradient for it."""
    import collections

    result_type = return_type("histogram", ["hist", "bin_edges"])
    if out is not None:
        from ._util import write_outs

        return write_outs(out, histogram(input, bins, range=range, weight=weight, density=density), "histogram")
    if input.dtype not in _dtype.FLOATING:
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                           f"input {input.dtype} and bins {input.dtype}")
    np_dtype = mindspore.dtype_to_nptype(input.dtype)
    x = input.asnumpy().astype(np.float64).reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins.asnumpy().astype(np_dtype)
    else:
        lo, hi = (float(range[0]), float(range[1])) if range is not None else \
            ((float(x.min()), float(x.max())) if x.size else (0.0, 0.0))
        if lo == hi:  # (an empty span widens by one unit, as torch's)
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, int(bins) + 1).astype(np_dtype)
    w = weight.asnumpy().astype(np.float64).reshape(-1) if weight is not None else None
    hist, _ = np.histogram(x, edges.astype(np.float64), weights=w)
    if density:
        total = hist.sum()
        hist = hist / (total * np.diff(edges.astype(np.float64))) if total else hist * 0.0
    return result_type(Tensor(np.require(hist.astype(np_dtype), requirements="C")),
                       Tensor(np.require(edges, requirements="C")))


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative estimate along each dim (all by default): central differences inside, one-sided
    differences of first or second order at the edges, for uniform sample spacings (one number, or one per
    dim). Coordinate tensors as spacing are not supported."""
    dims = list(builtins.range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [d % input.ndim for d in dims]
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) == 1 and len(dims) > 1:
        steps = steps * len(dims)
    if any(isinstance(h, Tensor) for h in steps):
        raise NotImplementedError("torch.gradient with coordinate tensors as spacing is not supported by "
                                  "mindnlp-shim (give the spacing as numbers)")
    if edge_order not in (1, 2):
        raise ValueError(f"torch.gradient only supports edge_order=1 and edge_order=2, but got {edge_order}")
    if input.dtype not in _dtype.FLOATING and input.dtype not in _dtype.COMPLEX:
        input = input.astype(_dtype.get_default_dtype())
    results = []
    for d, h in zip(dims, steps):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least edge_order+1")

        def part(start, length, d=d):
            return sh.narrow(input, d, start, length)

        inner = pw.div(pw.sub(part(2, n - 2), part(0, n - 2)), 2.0 * h)
        if edge_order == 1:
            first = pw.div(pw.sub(part(1, 1), part(0, 1)), h)
            last = pw.div(pw.sub(part(n - 1, 1), part(n - 2, 1)), h)
        else:
            first = pw.div(pw.sub(pw.sub(pw.mul(part(1, 1), 4.0), pw.mul(part(0, 1), 3.0)), part(2, 1)), 2.0 * h)
            last = pw.div(pw.sub(pw.add(pw.mul(part(n - 1, 1), 3.0), part(n - 3, 1)), pw.mul(part(n - 2, 1), 4.0)),
                          2.0 * h)
        results.append(sh.cat((first, inner, last), d))
    return tuple(results)
