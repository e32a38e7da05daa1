"""The reduced SVD of a real matrix with its derivative written out in recorded ops (MindSpore's own SVD
derivative is float32-accurate for float64 inputs). For A = U diag(S) Vᴴ, k = min(m, n), and incoming
gradients gU, gS, gV:

    gA = U [(skew(Uᴴ gU) / E) diag(S) + diag(S) (skew(Vᴴ gV) / E) + diag(gS)] Vᴴ
         + (I - U Uᴴ) gU diag(S)⁻¹ Vᴴ      (m > k)
         + U diag(S)⁻¹ gVᴴ (I - V Vᴴ)      (n > k)

with skew(X) = X - Xᴴ and E_ij = S_j² - S_i² off the diagonal, 1 on it (the standard result for the SVD's
derivative; it is what torch computes for the reduced factors)."""
from mindspore import ops

from ..autograd.function import Function
from . import svd_kernel


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


class ReducedSvd(Function):
    """(U, S, V) of a real (batched) matrix, reduced; V, not Vᴴ, as torch.svd returns it."""

    @staticmethod
    def forward(ctx, A):
        s, u, v = svd_kernel.svd(A, full_matrices=False, compute_uv=True)
        ctx.save_for_backward(u, s, v)
        return u, s, v

    @staticmethod
    def backward(ctx, gU, gS, gV):
        torch = _torch()
        U, S, V = ctx.saved_tensors
        m, n, k = U.shape[-2], V.shape[-2], S.shape[-1]
        Vh = V.mH
        inner = torch.diag_embed(gS) if gS is not None else torch.zeros(S.shape + (k,), dtype=S.dtype)
        if gU is None and gV is None:
            return U @ inner @ Vh
        eye = torch.eye(k, dtype=S.dtype)
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye  # (E_ij = S_j^2 - S_i^2, 1 on the diagonal)
        if gU is not None:
            UhgU = U.mH @ gU
            inner = inner + (UhgU - UhgU.mH) / E * S.unsqueeze(-2)
        if gV is not None:
            VhgV = Vh @ gV
            inner = inner + S.unsqueeze(-1) * ((VhgV - VhgV.mH) / E)
        gA = U @ inner @ Vh
        if gU is not None and m > k:
            gA = gA + (gU - U @ (U.mH @ gU)) / S.unsqueeze(-2) @ Vh
        if gV is not None and n > k:
            gA = gA + U @ ((gV - V @ (Vh @ gV)) / S.unsqueeze(-2)).mH
        return gA
