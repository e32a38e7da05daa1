"""Matrix functions under torch names that MindSpore's Tensor also carries with other meanings: `diag` (MindSpore
builds a 4-d tensor from a matrix), `svd` (MindSpore answers (S, U, V)), determinants, inverse, trace, the
`add*` products and `matrix_power`."""

import mindspore
from mindspore import ops

from .. import _dtype
from . import product_dtypes, svd_kernel
from . import linalg, pointwise as pw, reduction as red, shape as sh, svd_gradient as _svd_gradient
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ._util import no_kernel, type_name, wrap_dim, write_out
from ..return_types import return_type
from ... import _mindspore as _ms

_svd_result = return_type("svd", ["U", "S", "V"])
_slogdet_result = return_type("slogdet", ["sign", "logabsdet"])
_triangular_solve_result = return_type("triangular_solve", ["solution", "cloned_coefficient"])


def _shift_square(square, offset):
    """An (..., n, n) matrix placed on diagonal `offset` of an (..., n+|k|, n+|k|) one by zero padding."""
    if offset == 0:
        return square
    n, k = square.shape[-1], abs(offset)
    lead = tuple(square.shape[:-2])
    cols = _ms.zeros(lead + (n, k), square.dtype)
    rows = _ms.zeros(lead + (k, n + k), square.dtype)
    if offset > 0:  # above the main diagonal: zero columns on the left, zero rows below
        return sh.cat((sh.cat((cols, square), -1), rows), -2)
    return sh.cat((rows, sh.cat((square, cols), -1)), -2)  # below: zero rows on top, zero columns on the right


def _square_of(vectors):
    """(..., n) -> (..., n, n) with the vectors on the diagonal, zeros elsewhere: a select, not a product with
    the identity (inf * 0 put NaN off the diagonal, and the backward summed NaN gradients from off the
    diagonal into the vector's; torch's takes the gradient's diagonal)."""
    n = vectors.shape[-1]
    eye = ops.eye(n, n, mindspore.bool_)
    if vectors.dtype == mindspore.bool_:
        return pw.logical_and(sh.unsqueeze(vectors, -1), eye)
    return pw.where(eye, sh.unsqueeze(vectors, -1), _ms.zeros((), vectors.dtype))


def diag(input, diagonal=0, *, out=None):
    """torch.diag: a vector becomes a square matrix with it on diagonal `diagonal`; a matrix gives that
    diagonal as a vector."""
    if out is not None:  # (torch's diag out= does not refuse inputs that require grad)
        return write_out(out, diag(input, diagonal), "diag", exact=True, differentiable=False)
    if input.ndim == 1:
        return _shift_square(_square_of(input), diagonal)
    if input.ndim == 2:
        return sh.diagonal(input, diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset=0):
    return diag(input.reshape(-1), offset)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    out_ndim = input.ndim + 1
    d1, d2 = wrap_dim(dim1, out_ndim), wrap_dim(dim2, out_ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    square = _shift_square(_square_of(input), offset)  # (..., m, m) with the new dims last
    rest = iter(range(out_ndim - 2))
    order = [out_ndim - 2 if i == d1 else out_ndim - 1 if i == d2 else next(rest) for i in range(out_ndim)]
    return sh.permute(square, order)


def svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with input = U diag(S) V^H (V, not V^H); `some` gives the reduced factors."""
    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: The input tensor A must have at least 2 dimensions.")
    # a real input inside autograd: the derivative written out (MindSpore's is float32-accurate in float64)
    exact_grad = input.requires_grad and is_grad_enabled() and input.dtype in (mindspore.float32, mindspore.float64)
    if not compute_uv:
        s = _svd_gradient.ReducedSvd.apply(input)[1] if exact_grad else svd_kernel.svd(input, compute_uv=False)
        m, n = input.shape[-2], input.shape[-1]
        lead = tuple(input.shape[:-2])
        return _svd_result(_ms.zeros(lead + (m, m), input.dtype), s, _ms.zeros(lead + (n, n), input.dtype))
    if exact_grad and (some or input.shape[-2] == input.shape[-1]):
        return _svd_result(*_svd_gradient.ReducedSvd.apply(input))
    s, u, v = svd_kernel.svd(input, full_matrices=not some, compute_uv=True)
    return _svd_result(u, s, v)


def _entry_of_1x1(input):
    """The element of each 1x1 matrix (MindSpore's determinant kernels refuse matrices under 2x2)."""
    return input.reshape(tuple(input.shape[:-2]))


def _check_float_matrix(input, name):
    if input.dtype not in _dtype.FLOATING and input.dtype not in _dtype.COMPLEX:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(input.dtype)}")


def det(input):
    _check_square(input, "linalg.det")
    _check_float_matrix(input, "linalg.det")
    if input.shape[-1] <= 1:  # (the empty matrix's determinant is 1)
        lead = tuple(input.shape[:-2])
        return _entry_of_1x1(input) if input.shape[-1] else pw.add(ops.ones(lead, input.dtype),
                                                                  pw.mul(red.sum(input, (-2, -1)), 0))
    if input.requires_grad and is_grad_enabled():
        return _Det.apply(input)
    return ops.det(input)


class _Det(Function):
    """det with its derivative det(A) A^-T written in recorded ops: MindSpore's own derivative of its Det
    kernel is right once, but differentiating it again gave wrong values (create_graph=True)."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return ops.det(A)

    @staticmethod
    def backward(ctx, grad):
        A, = ctx.saved_tensors
        d = _Det.apply(A) if is_grad_enabled() else ops.det(A)
        scale = ops.unsqueeze(ops.unsqueeze(ops.mul(grad, d), -1), -1)
        return ops.mul(scale, ops.swapaxes(ops.inverse(A), -1, -2))


def slogdet(input):
    _check_square(input, "linalg.slogdet")
    _check_float_matrix(input, "linalg.slogdet")
    if input.shape[-1] <= 1:
        d = det(input)
        return _slogdet_result(pw.sign(d), pw.log(pw.abs(d)))
    if input.requires_grad and is_grad_enabled() and input.dtype not in _dtype.COMPLEX:
        sign, logabsdet = _LogAbsDet.apply(input)
    else:
        sign, logabsdet = ops.slogdet(input)
    return _slogdet_result(sign, logabsdet)


class _LogAbsDet(Function):
    """slogdet with the derivative of log|det A|, A^-T, from the checked inverse: MindSpore's own derivative
    inverts with MatrixInverse, which answers numbers for a singular matrix (torch's derivative is infinite
    there; this one raises LinAlgError)."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        sign, logabsdet = ops.slogdet(A)
        return ops.stop_gradient(sign), logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        A, = ctx.saved_tensors
        scale = ops.unsqueeze(ops.unsqueeze(grad_logabsdet, -1), -1)
        return ops.mul(scale, ops.swapaxes(inverse(A), -1, -2))


def logdet(input):
    sign, logabsdet = slogdet(input)
    # log of a negative determinant is NaN (the log of zero is already -inf)
    return pw.where(pw.lt(sign, 0), ops.fill(logabsdet.dtype, (), float("nan")), logabsdet)


def inverse(input, *, out=None):
    """torch.inverse is torch.linalg.inv: a LinAlgError for a singular matrix (MindSpore's MatrixInverse
    answered a matrix of zeros and other numbers)."""
    from .linalg_solve import inv

    if out is not None:
        return write_out(out, inverse(input), "linalg_inv_ex", exact=True)
    _check_square(input, "linalg.inv")
    _check_float_matrix(input, "linalg.inv")
    return inv(input)


def _check_square(input, name):
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.ndim > 1 else ''} by {input.shape[-1] if input.ndim else ''} "
                           f"matrices")


def trace(input):
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " + str(input.ndim))
    if input.dtype == mindspore.bool_:
        raise no_kernel("trace", mindspore.bool_)
    return red.sum(sh.diagonal(input))


def inner(input, other, *, out=None):
    if out is not None:
        return write_out(out, inner(input, other), "inner", exact=True, differentiable=False)
    if input.ndim == 0 or other.ndim == 0:
        return pw.mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    k = input.shape[-1]
    flat = linalg.matmul(input.reshape(-1, k), sh.transpose(other.reshape(-1, k), 0, 1))
    return flat.reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def ger(input, vec2):
    return linalg.outer(input, vec2)


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product, where beta == 0 ignores input (NaN in it does not propagate)."""
    beta, alpha = linalg._integer_scalings(product, beta, alpha)
    if alpha != 1:
        product = pw.mul(product, alpha)
    if beta == 0:
        return pw.add(product, _ms.zeros(tuple(input.shape), product.dtype))  # (input's shape still broadcasts)
    return pw.add(input if beta == 1 else pw.mul(input, beta), product)


@product_dtypes.checked_by(product_dtypes.addmv)
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    if out is not None:
        return write_out(out, addmv(input, mat, vec, beta=beta, alpha=alpha), "addmv", exact=True)
    product_dtypes.addmv(input, mat, vec)
    return _scaled_sum(input, linalg.matmul(mat, vec), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return write_out(out, addr(input, vec1, vec2, beta=beta, alpha=alpha), "addr")
    product = linalg.outer(vec1, vec2)
    if product.dtype in _dtype.INTEGRAL:  # (addr alone refuses float scalings of integers; addmm truncates them)
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point "
                                   "number.")
    return _scaled_sum(input, product, beta, alpha)


@product_dtypes.checked_by(product_dtypes.addmm)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if out is not None:  # (torch resizes this one's out without a warning)
        return write_out(out, addbmm(input, batch1, batch2, beta=beta, alpha=alpha), "addbmm", exact=True,
                         warn_resize=False)
    product_dtypes.addmm(input, batch1, batch2)
    return _scaled_sum(input, red.sum(linalg.bmm(batch1, batch2), 0), beta, alpha)


def _matrix_transpose(input, name="mT"):
    """`input.mT`: the last two dims swapped; torch refuses a 1-d tensor and gives a 0-d one unchanged."""
    if len(input._shape) == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return sh.transpose(input, -2, -1) if input._shape else sh.transpose(input, 0, 0)


def _conjugate_transpose(input, name="mH"):
    """`input.mH`, and torch.adjoint under its own name."""
    from .special_math import conj

    return conj(_matrix_transpose(input, name))


def adjoint(input):
    return _conjugate_transpose(input, "adjoint()")


def matrix_power(input, n):
    _check_square(input, "linalg.matrix_power")
    if n == 0:
        eye = ops.eye(input.shape[-1], input.shape[-1], input.dtype)
        # on the graph like torch's result (a zero gradient), without reading input's values
        return pw.where(ops.ones(tuple(input.shape), mindspore.bool_), eye, input)
    if n < 0:
        input, n = inverse(input), -n
    result, base = None, input
    while n:  # binary powering: log2(n) products
        if n & 1:
            result = base if result is None else linalg.matmul(result, base)
        n >>= 1
        if n:
            base = linalg.matmul(base, base)
    if result is input:
        from .._tensor import clone

        return clone(input)  # (a new tensor, as torch answers for n = 1)
    return result


def cholesky(input, upper=False, *, out=None):
    if out is not None:
        return write_out(out, cholesky(input, upper), "cholesky")
    from . import linalg_decompositions  # (torch.linalg.cholesky's definition, with its gradient)

    return linalg_decompositions.cholesky(input, upper=upper)


def _from_factor(L, upper):
    """A = L L^H (or U^H U) from a Cholesky factor."""
    return linalg.matmul(adjoint(L), L) if upper else linalg.matmul(L, adjoint(L))


def cholesky_inverse(input, upper=False, *, out=None):
    if out is not None:
        return write_out(out, cholesky_inverse(input, upper), "cholesky_inverse")
    return inverse(_from_factor(input, upper))


def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solves A X = input for X, with `input2` the Cholesky factor of A."""
    if out is not None:
        return write_out(out, cholesky_solve(input, input2, upper), "cholesky_solve")
    return linalg.matmul(inverse(_from_factor(input2, upper)), input)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A) with op(T) X = b, T the upper or lower triangle of A (unit diagonal if `unitriangular`)."""
    T = sh.triu(A) if upper else sh.tril(A)
    if unitriangular:
        n = A.shape[-1]
        eye = ops.eye(n, n, mindspore.bool_)
        T = pw.where(eye, ops.ones((), T.dtype), T)
    if transpose:
        T = sh.transpose(T, -2, -1)
    from .._tensor import clone

    return _triangular_solve_result(linalg.matmul(inverse(T), b), clone(A))