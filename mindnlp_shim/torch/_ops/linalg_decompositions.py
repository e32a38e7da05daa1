"""torch.linalg's Cholesky, QR and eigen decompositions, each an autograd Function with its derivative written
out (MindSpore's Qr and Eig kernels have no gradient, its CholeskyGrad has no CPU kernel, its Eigh gradient is
float32-accurate for float64 inputs):

- cholesky: the factor from _ops.linalg.cholesky_ex. For A = L Lᴴ, dA = sym(L⁻ᴴ Φ(Lᴴ dL) L⁻¹), Φ the lower
  triangle with its diagonal halved, sym(X) = (X + Xᴴ) / 2.

- qr: MindSpore's Qr kernel (LAPACK's Householder signs, as torch). For A = QR with m >= n,
  dA = (dQ + Q copyltu(M)) R⁻ᴴ with M = R dRᴴ - dQᴴ Q, copyltu(M) = tril(M) + tril(M, -1)ᴴ.
- eigh: MindSpore's Eigh (mindspore.scipy.linalg), one matrix at a time. For A = V diag(λ) Vᴴ,
  dA = V (diag(dλ) + F ∘ (Vᴴ dV)) Vᴴ, F_ij = 1 / (λ_j - λ_i) off the diagonal, made Hermitian as torch does.
  Eigenvectors are unique only up to sign: torch's signs (LAPACK's) are not promised.
- eig / eigvals: LAPACK's geev through NumPy on the host (the same routine and normalization as torch: unit
  vectors). dA = V⁻ᴴ (diag(dλ) + F̄ ∘ (Vᴴ dV - Vᴴ V Re(diag(Vᴴ dV)))) Vᴴ, with F the conjugated 1/(λ_j - λ_i);
  the real part where A is real."""

import mindspore
import numpy as np
from mindspore import ops

from .. import _dtype
from ..autograd.function import Function
from . import shape as sh
from ._util import Tensor, write_outs
from ..return_types import return_type
from ... import _mindspore as _ms

_qr_result = return_type("linalg_qr", ["Q", "R"])
_cholesky_ex_result = return_type("linalg_cholesky_ex", ["L", "info"])
_eigh_result = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
_eig_result = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])


def _mH(x):
    return sh.transpose(ops.conj(x) if x.dtype in _dtype.COMPLEX else x, -2, -1)


def _solve(A, B):
    # through linalg_solve's Function: its derivative is recorded ops, so the backwards that solve here can be
    # differentiated again (MindSpore's own derivative of MatrixSolve mixes float32 into float64)
    from .linalg_solve import solve_function

    return solve_function(A, B)


def _each_matrix(fn, A, outputs):
    """fn over the matrices of a batch, results stacked back into the batch shape."""
    batch = tuple(A.shape[:-2])
    if not batch:
        return fn(A)
    flat = A.reshape((-1,) + tuple(A.shape[-2:]))
    parts = [fn(flat[i]) for i in range(flat.shape[0])]
    return tuple(ops.stack([p[k] for p in parts]).reshape(batch + tuple(parts[0][k].shape)) for k in range(outputs))


# ---------------------------------------------------------------- Cholesky
class _Cholesky(Function):
    @staticmethod
    def forward(ctx, A, upper, check_errors):
        from .linalg import cholesky_ex as _factor

        L, info = _factor(A, upper=upper, check_errors=check_errors)
        ctx.save_for_backward(_mH(L) if upper else L)
        ctx.upper = upper
        return L, info

    @staticmethod
    def backward(ctx, grad_L, grad_info=None):
        (L,) = ctx.saved_tensors
        if grad_L is None:
            return None, None, None
        if ctx.upper:  # U = Lᴴ
            grad_L = _mH(grad_L)
        n = L.shape[-1]
        phi = sh.tril(ops.matmul(_mH(L), grad_L))
        phi = ops.sub(phi, ops.mul(ops.mul(phi, ops.eye(n, n, phi.dtype)), 0.5))
        Lh = _mH(L)
        left = _solve(Lh, phi)  # L⁻ᴴ Φ
        S = _mH(_solve(Lh, _mH(left)))  # (L⁻ᴴ Φ) L⁻¹
        return ops.div(ops.add(S, _mH(S)), 2.0), None, None


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info) with A = L Lᴴ (upper=True: Uᴴ U); info as _ops.linalg.cholesky_ex gives it."""
    if out is not None:
        return write_outs(out, cholesky_ex(A, upper=upper, check_errors=check_errors), "linalg_cholesky_ex")
    return _cholesky_ex_result(*_Cholesky.apply(A, upper, check_errors))


def cholesky(A, *, upper=False, out=None):
    if out is not None:
        from ._util import write_out

        return write_out(out, cholesky(A, upper=upper), "linalg_cholesky", exact=True)
    return cholesky_ex(A, upper=upper, check_errors=True).L


# ---------------------------------------------------------------- QR
class _QR(Function):
    @staticmethod
    def forward(ctx, A, mode):
        Q, R = ops.qr(A, mode="complete" if mode == "complete" else "reduced")
        ctx.save_for_backward(A, Q, R)
        ctx.mode = mode
        return Q, R

    @staticmethod
    def backward(ctx, grad_Q, grad_R):
        A, Q, R = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.")
        if m < n or (ctx.mode == "complete" and m > n):
            raise NotImplementedError(f"the derivative of torch.linalg.qr for {m}x{n} matrices in mode "
                                      f"'{ctx.mode}' is not supported by mindnlp-shim (only m >= n, reduced)")
        grad_Q = grad_Q if grad_Q is not None else _ms.zeros(tuple(Q.shape), Q.dtype)
        grad_R = grad_R if grad_R is not None else _ms.zeros(tuple(R.shape), R.dtype)
        M = ops.sub(ops.matmul(R, _mH(grad_R)), ops.matmul(_mH(grad_Q), Q))
        M = ops.add(sh.tril(M), _mH(sh.tril(M, -1)))  # copyltu
        C = ops.add(grad_Q, ops.matmul(Q, M))
        # X Rᴴ = C  <=>  R Xᴴ = Cᴴ
        return _mH(_solve(R, _mH(C))), None


def qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = QR; mode 'reduced', 'complete' or 'r' (Q empty)."""
    if out is not None:
        return write_outs(out, qr(A, mode), "linalg_qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.qr: The input tensor A must have at least 2 dimensions.")
    Q, R = _QR.apply(A, mode)
    if mode == "r":
        return _qr_result(_ms.zeros((0,), A.dtype), R)
    return _qr_result(Q, R)


# ---------------------------------------------------------------- Hermitian eigendecomposition
def _eigh_one(A, lower):
    from mindspore.scipy.linalg import eigh as _ms_eigh

    w, v = _ms_eigh(A, lower=lower)
    return w, v


class _Eigh(Function):
    @staticmethod
    def forward(ctx, A, lower):
        w, v = _each_matrix(lambda a: _eigh_one(a, lower), A, 2)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, grad_w, grad_v):
        w, V = ctx.saved_tensors
        n = w.shape[-1]
        inner = _ms.zeros(tuple(V.shape), V.dtype)
        if grad_v is not None:
            gap = ops.sub(sh.unsqueeze(w, -2), sh.unsqueeze(w, -1))  # λ_j - λ_i
            eye = ops.eye(n, n, mindspore.bool_)
            F = ops.where(eye, _ms.zeros((), w.dtype), ops.reciprocal(ops.where(eye, ops.ones((), w.dtype), gap)))
            inner = ops.mul(F, ops.matmul(_mH(V), grad_v))
        if grad_w is not None:
            inner = ops.add(inner, ops.mul(sh.unsqueeze(grad_w, -1), ops.eye(n, n, w.dtype)))
        grad_A = ops.matmul(ops.matmul(V, inner), _mH(V))
        return ops.div(ops.add(grad_A, _mH(grad_A)), 2.0), None


def eigh(A, UPLO="L", *, out=None):
    """(eigenvalues ascending, eigenvectors as columns) of a real symmetric matrix, from its UPLO triangle."""
    if out is not None:
        return write_outs(out, eigh(A, UPLO), "linalg_eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if A.dtype in _dtype.COMPLEX:
        raise NotImplementedError("torch.linalg.eigh of complex Hermitian matrices is not supported by "
                                  "mindnlp-shim (MindSpore's Eigh takes real matrices)")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.eigh: A must be batches of square matrices")
    return _eigh_result(*_Eigh.apply(A, UPLO == "L"))


def eigvalsh(A, UPLO="L", *, out=None):
    if out is not None:
        from ._util import write_out

        return write_out(out, eigvalsh(A, UPLO), "linalg_eigvalsh", exact=True)
    return eigh(A, UPLO).eigenvalues


# ---------------------------------------------------------------- general eigendecomposition
def _complex_of(dt):
    return {mindspore.float32: mindspore.complex64, mindspore.float64: mindspore.complex128}.get(dt, dt)


class _Eig(Function):
    @staticmethod
    def forward(ctx, A):
        a = A.asnumpy()
        w, v = np.linalg.eig(a)
        cdt = mindspore.dtype_to_nptype(_complex_of(A.dtype))
        w, v = Tensor(w.astype(cdt)), Tensor(np.ascontiguousarray(v.astype(cdt)))
        ctx.save_for_backward(w, v)
        ctx.real_input = A.dtype not in _dtype.COMPLEX
        return w, v

    @staticmethod
    def backward(ctx, grad_w, grad_v):
        w, V = ctx.saved_tensors
        n = w.shape[-1]
        Vh = _mH(V)
        inner = _ms.zeros(tuple(V.shape), V.dtype)
        if grad_v is not None:
            VhgV = ops.matmul(Vh, grad_v)
            real_diag = ops.real(ops.diagonal(VhgV, 0, -2, -1)).astype(V.dtype)
            VhgV = ops.sub(VhgV, ops.matmul(ops.matmul(Vh, V), ops.mul(sh.unsqueeze(real_diag, -1),
                                                                      ops.eye(n, n, V.dtype))))
            gap = ops.conj(ops.sub(sh.unsqueeze(w, -2), sh.unsqueeze(w, -1)))  # conj(λ_j - λ_i)
            eye = ops.eye(n, n, mindspore.bool_)
            gap = ops.where(eye, ops.ones((), gap.dtype), gap)
            inner = ops.where(eye, _ms.zeros((), V.dtype), ops.div(VhgV, gap))
        if grad_w is not None:
            inner = ops.add(inner, ops.mul(sh.unsqueeze(grad_w, -1), ops.eye(n, n, V.dtype)))
        grad_A = _solve(Vh, ops.matmul(inner, Vh))  # V⁻ᴴ (inner) Vᴴ
        return ops.real(grad_A) if ctx.real_input else grad_A


def eig(A, *, out=None):
    """(eigenvalues, unit eigenvectors as columns), complex, as LAPACK's geev gives them."""
    if out is not None:
        return write_outs(out, eig(A), "linalg_eig")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.eig: A must be batches of square matrices")
    return _eig_result(*_Eig.apply(A))


def eigvals(A, *, out=None):
    if out is not None:
        from ._util import write_out

        return write_out(out, eigvals(A), "linalg_eigvals", exact=True, differentiable=False)
    return eig(A).eigenvalues


# ---------------------------------------------------------------- Householder products
def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_iᴴ, v_i column i of A below the diagonal
    with a 1 on it: a composition of recorded matrix products (their gradients are MindSpore's)."""
    if out is not None:
        from ._util import write_out

        return write_out(out, householder_product(A, tau), "linalg_householder_product")
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    if A.ndim < 2 or m < n or k > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1], and tau.shape[-1] must be at most input.shape[-1]")
    batch = tuple(A.shape[:-2])
    Q = sh.broadcast_to(ops.eye(m, m, A.dtype), batch + (m, m))
    below = sh.tril(A, -1)
    for i in range(k):
        unit = Tensor(np.eye(m, 1, -i, dtype=mindspore.dtype_to_nptype(A.dtype)).reshape(m))
        v = ops.add(below[..., :, i], unit)  # (batch, m)
        Hv = ops.matmul(Q, sh.unsqueeze(v, -1))  # Q v
        vh = sh.unsqueeze(ops.conj(v) if A.dtype in _dtype.COMPLEX else v, -2)
        Q = ops.sub(Q, ops.mul(sh.unsqueeze(sh.unsqueeze(tau[..., i], -1), -1), ops.matmul(Hv, vh)))
    return Q[..., :, :n]
