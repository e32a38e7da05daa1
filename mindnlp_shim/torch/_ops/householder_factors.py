"""QR factors in LAPACK's compact Householder form: torch.geqrf (the factorization, computed on the host by
NumPy's LAPACK `geqrf`, as torch's CPU kernel calls LAPACK: no gradient, as in torch) and torch.ormqr (a matrix
multiplied by Q of such a factorization, composed from linalg.householder_product and matmul, so its
gradients are the recorded products'). Tensor.orgqr is linalg.householder_product itself."""

import mindspore
import numpy as np

from ._util import _check_no_grad, no_kernel, Tensor, type_name, write_out, write_outs
from ..return_types import return_type

__all__ = ["geqrf", "ormqr"]

_geqrf_result = return_type("geqrf", ["a", "tau"])
# LAPACK's four types (torch has no half or integer geqrf either)
_LAPACK_DTYPES = (mindspore.float32, mindspore.float64, mindspore.complex64, mindspore.complex128)


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def _host_geqrf(matrix):
    # NumPy's raw mode returns LAPACK's geqrf output for the transposed (Fortran-ordered) matrix
    h, tau = np.linalg.qr(matrix, mode="raw")
    return h.T, tau


def geqrf(input, *, out=None):
    """(a, tau): R on and above the diagonal of `a`, the Householder vectors below it, and their scales."""
    if out is not None:
        # (the host result records nothing: an input that requires grad is refused by name, as torch does)
        if isinstance(out, (tuple, list)) and all(isinstance(o, Tensor) for o in out):  # (else out's TypeError)
            _check_no_grad((), (input,) + tuple(out), "geqrf")
        return write_outs(out, geqrf(input), "geqrf", exact=False)
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: The input tensor A must have at least 2 dimensions.")
    if input.dtype not in _LAPACK_DTYPES:
        raise no_kernel("geqrf_cpu", input.dtype)
    array = input.detach().numpy()
    m, n = array.shape[-2:]
    batch = array.reshape((-1, m, n))
    a = np.empty_like(batch)
    tau = np.empty((batch.shape[0], min(m, n)), dtype=array.dtype)
    for i, matrix in enumerate(batch):
        factors, scales = _host_geqrf(matrix)
        a[i], tau[i] = factors.astype(array.dtype), scales.astype(array.dtype)
    return _geqrf_result(Tensor(a.reshape(array.shape)), Tensor(tau.reshape(array.shape[:-2] + (min(m, n),))))


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """op(Q) @ other (left) or other @ op(Q), Q = H_1 ... H_k the full m x m product of the reflectors that
    `input` (m x n, below its diagonal) and `tau` (k) hold; op(Q) is Q^H when `transpose`."""
    if out is not None:
        return write_out(out, ormqr(input, tau, other, left, transpose), "ormqr", exact=True)
    torch = _torch()
    m, n = input.shape[-2], input.shape[-1]
    k = tau.shape[-1]
    rows = other.shape[-2] if left else other.shape[-1]
    if input.ndim < 2 or other.ndim < 2:
        raise RuntimeError("torch.ormqr: input and other must have at least 2 dimensions.")
    if rows != m:
        side = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"torch.ormqr: {side} must be equal to input.shape[-2]")
    if k > min(m, n) or k > m:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-2]")
    if input.dtype != other.dtype or input.dtype != tau.dtype:
        raise RuntimeError(f"torch.ormqr: Expected input, tau and other to have the same dtype, but got "
                           f"{type_name(input.dtype)}, {type_name(tau.dtype)} and {type_name(other.dtype)}")
    # the full Q: reflectors k+1..m are the identity (tau 0), so pad the factors to a square matrix
    square = torch.nn.functional.pad(input[..., :, :min(n, m)], (0, m - min(n, m)))
    scales = torch.nn.functional.pad(tau, (0, m - k))
    Q = torch.linalg.householder_product(square, scales)
    if transpose:
        Q = Q.mH
    return torch.matmul(Q, other) if left else torch.matmul(other, Q)

