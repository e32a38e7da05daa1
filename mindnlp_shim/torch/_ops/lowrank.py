"""Randomized low-rank factorizations: torch.svd_lowrank and torch.pca_lowrank (Halko, Martinsson and Tropp
2009: a range finder with power iterations, their Algorithm 4.4, then the SVD of the small projected matrix,
Algorithm 5.1). The random test matrix is torch.randn(n, q) from the global generator, which draws torch's
numbers, so a seed gives torch's factors; every step is a recorded op (matmul, linalg.qr, linalg.svd)."""

__all__ = ["svd_lowrank", "pca_lowrank"]


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def _approximate_basis(A, q, niter, M):
    """Q with q orthonormal columns whose span approximates the range of A - M."""
    torch = _torch()
    dtype = A.dtype if A.is_floating_point() or A.is_complex() else torch.get_default_dtype()
    R = torch.randn(A.shape[-1], q, dtype=dtype)

    def minus_m(X, M_side):
        return X if M is None else X - M_side

    Q = torch.linalg.qr(minus_m(A @ R, None if M is None else M @ R)).Q
    for _ in range(niter):
        Q = torch.linalg.qr(minus_m(A.mH @ Q, None if M is None else M.mH @ Q)).Q
        Q = torch.linalg.qr(minus_m(A @ Q, None if M is None else M @ Q)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    torch = _torch()
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # work with the tall orientation: its range is the smaller one
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = torch.linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ≈ U diag(S) Vᴴ, U (m, q), S (q,), V (n, q)."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the randomized SVD of A with its column means removed (center=True), q = min(6, m, n) by
    default."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)
