"""Matrix products, norms and factorizations."""

import mindspore
import numpy as np
from mindspore import ops

from .. import _dtype
from . import empty_products as _empty
from . import host_small
from .. import _sparse_coo
from .._sparse_coo import SparseCooTensor as _Sparse
from . import matrix_products as _products
from . import product_dtypes
from ._util import no_kernel, type_name, write_out, write_outs
from .pointwise import add as _add  # (not ops.add: see pointwise.add on gradients reaching leaves)
from .pointwise import _exact_scalar
from .pointwise import abs as _abs
from .._runtime import grad_enabled
from ..return_types import return_type
from ... import _mindspore as _ms


def _product(kernel, a, b, name):
    """kernel(a, b), or torch's answer where an operand is empty (see empty_products)."""
    if _empty.has_empty(a, b) and a.dtype == b.dtype:
        return _empty.empty_product(a, b, _empty.product_shape(a._shape, b._shape, name))
    return kernel(a, b)


# Products of transposed views by matrix_products with transpose flags: MindSpore's MatMul makes a dense copy of
# a transposed view first, slowly (x @ w.T with w (1536, 384): 8.3 ms against 4.7 ms with the flag)
_FLAGGED_DTYPES = (mindspore.float32, mindspore.float64)


def _untransposed(matrix):
    """The dense matrix whose transposed view `matrix` is (w for w.T), or None."""
    if matrix._shape[0] < 2 or matrix._shape[1] < 2 or matrix.is_contiguous():
        return None
    dense = ops.transpose(matrix, (1, 0))  # (a view: recorded as a transpose under autograd)
    return dense if dense.is_contiguous() else None


def _flagged_product(a, b):
    """a @ b by MatMul with transpose flags, where b (2-d) or a 2-d a is a transposed view of a dense matrix
    (an n-d a, dense, is taken as rows); None where that does not apply."""
    if a._dtype is not b._dtype or a._dtype not in _FLAGGED_DTYPES or len(b._shape) != 2 or \
            not 2 <= len(a._shape) or a._shape[-1] != b._shape[0]:
        return None
    dense_b = _untransposed(b)
    dense_a = _untransposed(a) if len(a._shape) == 2 else None
    if dense_a is None and dense_b is None:
        return None
    if len(a._shape) > 2 and not a.is_contiguous():
        return None  # (its rows would be a copy)
    if len(a._shape) > 2 and grad_enabled() and any(t._requires_grad or not t._is_leaf for t in (a, b)):
        # the n-d result would be a view of the recorded 2-d product: an in-place write into it (Falcon's
        # `mlp_output += attention_output`) then silently loses every gradient through the product
        return None
    flags = (dense_a is not None, dense_b is not None)
    left = dense_a if dense_a is not None else a
    right = dense_b if dense_b is not None else b
    if len(a._shape) == 2:
        return _products.product(left, right, *flags)
    rows = ops.reshape(left, (-1, a._shape[-1]))
    return ops.reshape(_products.product(rows, right, *flags), a._shape[:-1] + (b._shape[1],))


# the matrix products' out= takes only the result's own dtype, as in torch
@product_dtypes.checked_by(product_dtypes.matmul)
def matmul(input, other, *, out=None):
    if out is not None:
        return write_out(out, matmul(input, other), "matmul", exact=True)
    if type(input) is _Sparse or type(other) is _Sparse:
        return _sparse_coo.matmul(input, other)
    product_dtypes.matmul(input, other)
    on_host = host_small.matmul(input, other)
    if on_host is not None:
        return on_host
    if not _empty.has_empty(input, other):
        flagged = _flagged_product(input, other)
        if flagged is not None:
            return flagged
    return _product(ops.matmul, input, other, "matmul")


@product_dtypes.checked_by(product_dtypes.mm)
def mm(input, mat2, *, out=None):
    if out is not None:
        return write_out(out, mm(input, mat2), "mm", exact=True)
    if type(input) is _Sparse or type(mat2) is _Sparse:
        return _sparse_coo.mm(input, mat2)
    if len(input._shape) != 2:  # (MindSpore's MatMul would broadcast a vector or a batch)
        raise RuntimeError("self must be a matrix")
    if len(mat2._shape) != 2:
        raise RuntimeError("mat2 must be a matrix")
    product_dtypes.mm(input, mat2)
    on_host = host_small.matmul(input, mat2)
    if on_host is not None:
        return on_host
    if not _empty.has_empty(input, mat2):
        flagged = _flagged_product(input, mat2)
        if flagged is not None:
            return flagged
    return _product(ops.matmul, input, mat2, "mm")


@product_dtypes.checked_by(product_dtypes.bmm)
def bmm(input, mat2, *, out=None):
    if out is not None:
        return write_out(out, bmm(input, mat2), "bmm", exact=True)
    _check_batches(input, mat2)
    product_dtypes.bmm(input, mat2)
    on_host = host_small.matmul(input, mat2)
    if on_host is not None:
        return on_host
    return _product(ops.bmm, input, mat2, "bmm")


def _check_batches(batch1, batch2):
    """torch's checks of bmm's operands: two 3-d tensors, (b, n, m) and (b, m, p)."""
    if len(batch1._shape) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(batch2._shape) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, _, m = batch1._shape
    if batch2._shape[:2] != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{batch2._shape[0]}, {batch2._shape[1]}].")


_INTEGER_PRODUCTS = frozenset({mindspore.uint8, mindspore.int8, mindspore.int16, mindspore.int32, mindspore.int64})


def _integer_scalings(product, beta, alpha):
    """torch casts beta and alpha to an integer product's dtype (truncating) so the result stays integral."""
    if product.dtype in _INTEGER_PRODUCTS:
        return int(beta), int(alpha)
    return beta, alpha


@product_dtypes.checked_by(product_dtypes.baddbmm)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return write_out(out, baddbmm(input, batch1, batch2, beta=beta, alpha=alpha), "baddbmm", exact=True)
    product_dtypes.baddbmm(input, batch1, batch2)
    prod = _product(ops.bmm, batch1, batch2, "baddbmm")
    beta, alpha = _integer_scalings(prod, beta, alpha)
    if alpha != 1:
        prod = ops.mul(prod, _exact_scalar(alpha, prod))
    return prod if beta == 0 else _add(ops.mul(input, _exact_scalar(beta, input)) if beta != 1 else input, prod)


@product_dtypes.checked_by(product_dtypes.addmm)
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return write_out(out, addmm(input, mat1, mat2, beta=beta, alpha=alpha), "addmm", exact=True)
    product_dtypes.addmm(input, mat1, mat2)
    if type(beta) is int and type(alpha) is int and beta == 1 and alpha == 1:
        on_host = host_small.addmm(input, mat1, mat2)
        if on_host is not None:
            return on_host
    prod = _product(ops.matmul, mat1, mat2, "addmm")
    beta, alpha = _integer_scalings(prod, beta, alpha)
    if alpha != 1:
        prod = ops.mul(prod, _exact_scalar(alpha, prod))
    return prod if beta == 0 else _add(ops.mul(input, _exact_scalar(beta, input)) if beta != 1 else input, prod)


def outer(input, vec2, *, out=None):
    if out is not None:
        return write_out(out, outer(input, vec2), "outer")
    for name, t in (("self", input), ("vec2", vec2)):
        if len(t._shape) != 1:  # (the reshapes below would flatten a matrix without a word)
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {len(t._shape)}-D")
    return ops.mul(input.reshape(-1, 1), vec2.reshape(1, -1))


@product_dtypes.checked_by(product_dtypes.dot)
def dot(input, other, *, out=None):
    if out is not None:
        return write_out(out, dot(input, other), "dot", exact=True)
    if len(input._shape) != 1 or len(other._shape) != 1:  # (the product below would broadcast anything)
        raise RuntimeError(f"1D tensors expected, but got {len(input._shape)}D and {len(other._shape)}D tensors")
    if input._shape != other._shape:
        n, m = input._shape[0], other._shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of "
                           f"elements, but got {n} and {m} elements respectively")
    product_dtypes.dot(input, other)
    if input._dtype is mindspore.bool_:
        raise no_kernel("dot", mindspore.bool_)
    if input._dtype in _dtype.INTEGRAL:  # torch keeps the dtype, wrapping (MindSpore summed in int64 via floats)
        values = np.dot(input.asnumpy().astype(np.int64), other.asnumpy().astype(np.int64))
        return mindspore.Tensor(np.asarray(values).astype(input.asnumpy().dtype))
    product = ops.mul(input, other)
    if product.size == 0:  # MindSpore's sum of an empty tensor is left uninitialized: torch.sum's zero
        from .reduction import sum as _sum

        return _sum(product)
    return ops.sum(product)


def einsum(equation, *operands):
    """Contracts operands pairwise with batched matmuls: MindSpore's Einsum kernel does not exist on the CPU."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    labels, out_labels = _einsum_labels(equation, operands)
    operands, labels = zip(*(_diagonals_taken(t, ls, equation) for t, ls in zip(operands, labels)))
    sizes = {}
    for t, ls in zip(operands, labels):
        for label, n in zip(ls, t.shape):
            if sizes.get(label, 1) not in (1, n) and n != 1:
                raise RuntimeError(f"einsum(): operands do not broadcast for subscript {label!r} in '{equation}'")
            sizes[label] = max(sizes.get(label, 1), n)
    # a size-1 dimension broadcasts against the same subscript elsewhere
    terms = [(t if tuple(t.shape) == tuple(sizes[x] for x in ls) else ops.broadcast_to(t, tuple(sizes[x] for x in ls)),
              ls) for t, ls in zip(operands, labels)]
    t, ls = terms[0]
    for i in range(1, len(terms)):
        later = set(out_labels).union(*[set(x) for _, x in terms[i + 1:]])
        t, ls = _contract_pair(t, ls, terms[i][0], terms[i][1], later, sizes)
    t, ls = _sum_labels(t, ls, set(out_labels))
    perm = tuple(ls.index(x) for x in out_labels)
    return t if perm == tuple(range(len(perm))) else ops.transpose(t, perm)


def _diagonals_taken(t, ls, equation):
    """An operand whose subscript repeats (`ii`, `bii`) as the diagonal over those dimensions, labelled once: the
    elements einsum reads from it (a view, as torch.diagonal)."""
    from .shape import diagonal

    ls = list(ls)
    while len(set(ls)) != len(ls):
        label = next(x for x in ls if ls.count(x) > 1)
        first = ls.index(label)
        second = ls.index(label, first + 1)
        if t.shape[first] != t.shape[second]:
            raise RuntimeError(f"einsum(): subscript {label} is repeated for operand but the sizes don't match, "
                               f"{t.shape[first]} != {t.shape[second]}")
        t = diagonal(t, 0, first, second)  # (the diagonal becomes the last dimension)
        ls = [x for i, x in enumerate(ls) if i not in (first, second)] + [label]
    return t, ls


def _einsum_labels(equation, operands):
    """Per-operand subscript lists and the output list; ellipsis dimensions get labels '.0', '.1', ..."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"einsum(): {len(specs)} subscript groups for {len(operands)} operands in '{equation}'")
    ell_ndim = 0
    for spec, t in zip(specs, operands):
        if "..." in spec:
            ell_ndim = max(ell_ndim, t.ndim - (len(spec) - 3))
    ellipsis = [f".{i}" for i in range(ell_ndim)]
    labels = []
    for spec, t in zip(specs, operands):
        head, dots, tail = spec.partition("...")
        n_ell = t.ndim - len(head) - len(tail) if dots else 0
        ls = list(head) + ellipsis[ell_ndim - n_ell:] + list(tail)
        if len(ls) != t.ndim:
            raise RuntimeError(f"einsum(): subscripts '{spec}' do not match an operand with {t.ndim} dimensions")
        labels.append(ls)
    if arrow:
        head, dots, tail = rhs.partition("...")
        out = list(head) + (ellipsis if dots else []) + list(tail)
    else:
        counts = {}
        for ls in labels:
            for x in ls:
                counts[x] = counts.get(x, 0) + 1
        out = ellipsis + sorted(x for x, c in counts.items() if c == 1 and not x.startswith("."))
    return labels, out


def _sum_labels(t, ls, keep):
    gone = tuple(i for i, x in enumerate(ls) if x not in keep)
    if not gone:
        return t, ls
    from .reduction import sum as _sum

    return _sum(t, gone), [x for x in ls if x in keep]


def _contract_pair(a, la, b, lb, later, sizes):
    a, la = _sum_labels(a, la, later | set(lb))
    b, lb = _sum_labels(b, lb, later | set(la))
    batch = [x for x in la if x in lb and x in later]
    contract = [x for x in la if x in lb and x not in later]
    left = [x for x in la if x not in lb]
    right = [x for x in lb if x not in la]

    def prod(ls):
        n = 1
        for x in ls:
            n *= sizes[x]
        return n

    a = ops.transpose(a, tuple(la.index(x) for x in batch + left + contract)).reshape(
        prod(batch), prod(left), prod(contract))
    b = ops.transpose(b, tuple(lb.index(x) for x in batch + contract + right)).reshape(
        prod(batch), prod(contract), prod(right))
    out = _product(ops.bmm, a, b, "tensordot").reshape(tuple(sizes[x] for x in batch + left + right))
    return out, batch + left + right


def _check_norm_dtype(name, x, dtype):
    """torch's rules for a norm's dtype=: floating or complex, and complex exactly when the input is."""
    if dtype is None:
        return
    if dtype not in _dtype.FLOATING and dtype not in _dtype.COMPLEX:
        raise RuntimeError(f"linalg.{name}: dtype should be floating point or complex, but got {type_name(dtype)}")
    if (x.dtype in _dtype.COMPLEX) != (dtype in _dtype.COMPLEX):
        kind = "complex" if x.dtype in _dtype.COMPLEX else "real"
        raise RuntimeError(f"linalg.{name}: dtype should be {kind} for {kind} inputs, but got {type_name(dtype)}")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    from .reduction import sum as _sum, amax, amin

    if out is not None:
        return write_out(out, vector_norm(x, ord, dim, keepdim, dtype=dtype), "linalg_vector_norm", exact=True)

    _check_norm_dtype("vector_norm", x, dtype)
    if x.dtype not in _dtype.FLOATING and x.dtype not in _dtype.COMPLEX:
        # (an int8 norm came out NaN: its squares wrapped)
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(x.dtype)}")
    if dtype is not None:
        x = x.astype(dtype)
    if x.dtype == mindspore.float16:  # torch accumulates in float32 (float16 squares overflowed: inf for 3162)
        return vector_norm(x.astype(mindspore.float32), ord, dim, keepdim).astype(mindspore.float16)
    a = _abs(x)  # (real for a complex x: the norm of a complex vector is real, as torch's)
    if ord == float("inf"):
        return amax(a, dim if dim is not None else (), keepdim)
    if ord == float("-inf"):
        return amin(a, dim if dim is not None else (), keepdim)
    if ord == 0:
        count = _sum(ops.not_equal(x, 0).astype(x.dtype), dim, keepdim)
        if grad_enabled() and (x._requires_grad or not x._is_leaf):  # (in the graph with a zero gradient)
            count = ops.where(_ms.zeros(count.shape, mindspore.bool_), _sum(a, dim, keepdim), count)
        return count
    if ord == 1:
        return _sum(a, dim, keepdim)
    if ord == 2:
        return _root_of_sum(_sum(ops.square(a), dim, keepdim), ops.sqrt, x)
    power, root = ord, 1.0 / ord
    if a.dtype == mindspore.float64:  # (MindSpore takes a Python exponent as float32)
        power, root = mindspore.Tensor(float(power), a.dtype), mindspore.Tensor(root, a.dtype)
    return _root_of_sum(_sum(ops.pow(a, power), dim, keepdim), lambda total: ops.pow(total, root), x)


def _root_of_sum(total, take_root, x):
    """The norm from the sum of powers. Recorded, a zero sum takes the root of 1 instead and the result is
    selected to 0: the norm's gradient there is torch's 0, not the root's infinite slope times 0 (NaN)."""
    if not (grad_enabled() and (x._requires_grad or not x._is_leaf)):
        return take_root(total)
    zero = ops.equal(total, 0)
    root = take_root(ops.where(zero, ops.ones_like(total), total))
    return ops.where(zero, ops.zeros_like(root), root)


def cross(input, other, dim=None, *, out=None):
    if out is not None:
        return write_out(out, cross(input, other, dim), "cross", exact=True)
    if dim is None:  # torch.cross's default: the first dimension of size 3 (torch.linalg.cross's is -1)
        dim = next((d for d, n in enumerate(input.shape) if n == 3), -1)
    return ops.cross(input, other, dim)


def _linalg_cross(input, other, *, dim=-1, out=None):
    return cross(input, other, dim, out=out)


cholesky_ex_result = return_type("linalg_cholesky_ex", ["L", "info"])


def _triangle_as_symmetric(A, upper):
    # torch reads only the lower (upper=True: upper) triangle; MindSpore's kernel rejects non-symmetric input
    part = ops.triu(A) if upper else ops.tril(A)
    strict = ops.triu(A, 1) if upper else ops.tril(A, -1)
    return ops.add(part, strict.swapaxes(-1, -2))


def _factor_one(A, upper):
    """The factor of one matrix (or batch), or None when one is not positive definite: MindSpore's CPU kernel
    raises for that; a kernel that returns NaN instead is caught by the NaN test."""
    try:
        factor = ops.cholesky(A, upper)
    except RuntimeError:
        return None
    return None if bool(ops.isnan(factor).any()) else factor


def _failed_minor(A, upper):
    """torch's `info` for a matrix without a factor: the order of its smallest leading minor that is not
    positive definite. Positive definiteness of leading minors only fails once going up, so bisect."""
    low, high = 0, A.shape[-1]  # the order-`low` minor has a factor, the order-`high` one has none
    while high - low > 1:
        mid = (low + high) // 2
        if _factor_one(A[:mid, :mid], upper) is None:
            high = mid
        else:
            low = mid
    return high


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info) with A = L L^H (upper=True: U^H U); info is 0, or the order of the leading minor that is not
    positive definite, per matrix. L of such a matrix is unspecified (here: zeros), as in torch."""
    if out is not None:
        return write_outs(out, cholesky_ex(A, upper=upper, check_errors=check_errors), "linalg_cholesky_ex")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cholesky: A must be batches of square matrices, but they are "
                           f"{tuple(A.shape[-2:])} matrices")
    batch = tuple(A.shape[:-2])
    if A.numel() == 0:
        return cholesky_ex_result(_ms.zeros(tuple(A.shape), A.dtype), _ms.zeros(batch, mindspore.int32))
    sym = _triangle_as_symmetric(A, upper)
    whole = _factor_one(sym, upper)
    if whole is not None:
        return cholesky_ex_result(whole, _ms.zeros(batch, mindspore.int32))
    # some matrix of the batch has no factor: factor them one at a time to tell which
    flat = sym.reshape(-1, *A.shape[-2:])
    factors, infos = [], []
    for i in range(flat.shape[0]):
        factor = _factor_one(flat[i], upper)
        infos.append(0 if factor is not None else _failed_minor(flat[i], upper))
        factors.append(factor if factor is not None else _ms.zeros(tuple(A.shape[-2:]), A.dtype))
    info = mindspore.Tensor(infos, mindspore.int32).reshape(batch)
    if check_errors:
        first = next(i for i, v in enumerate(infos) if v)
        where = f"(Batch element {first}): " if batch else ""
        raise RuntimeError(f"linalg.cholesky: {where}The factorization could not be completed because the input "
                           f"is not positive-definite (the leading minor of order {infos[first]} is not "
                           f"positive-definite).")
    return cholesky_ex_result(ops.stack(factors).reshape(A.shape), info)


def cholesky(A, *, upper=False, out=None):
    """torch.linalg.cholesky: raises for a matrix that is not positive definite. (No backward on the CPU:
    MindSpore has no CholeskyGrad kernel there.)"""
    if out is not None:
        return write_out(out, cholesky_ex(A, upper=upper, check_errors=True).L, "linalg_cholesky", exact=True)
    return cholesky_ex(A, upper=upper, check_errors=True).L


from .. import _backend as _backend_table  # noqa: E402

_backend_table.adapt_module(globals(), __name__)
