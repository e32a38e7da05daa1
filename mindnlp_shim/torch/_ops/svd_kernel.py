"""The singular value decomposition every torch SVD entry point computes with.

MindSpore 2.10's CPU SVD kernel returns exact zeros for the singular values below about 1e-7 of the largest
(measured: a float32 1000x1000 matrix with values from 1e5 down to 1e-4 came back with its last 330 values 0.0,
where torch's LAPACK gesdd gives them to float32 accuracy), and their singular vectors with them; CorDA's
"kpm" mode in peft builds its adapters from exactly those smallest values. On the CPU target the decomposition
is LAPACK's gesdd through NumPy instead (the driver torch uses on the CPU), in the input's own precision; other
targets keep MindSpore's kernel."""
import mindspore
import numpy as np
from mindspore import ops

from .._runtime import ON_CPU
from . import host_small

_LAPACK_DTYPES = frozenset({mindspore.float32, mindspore.float64, mindspore.complex64, mindspore.complex128})


def svd(A, full_matrices=False, compute_uv=True):
    """(s, u, v) as `mindspore.ops.svd` answers (v, not vᴴ), or s alone without compute_uv."""
    if not ON_CPU or A._dtype not in _LAPACK_DTYPES or 0 in A._shape:
        return ops.svd(A, full_matrices=full_matrices, compute_uv=compute_uv)
    values = host_small.array(A)
    if not np.isfinite(values).all():
        from .linalg_solve import LinAlgError

        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix contained "
                           "non-finite values.")
    if not compute_uv:
        return host_small.result(np.linalg.svd(values, compute_uv=False))
    u, s, vh = np.linalg.svd(values, full_matrices=full_matrices)
    return host_small.result(s), host_small.result(u), host_small.result(np.conj(np.swapaxes(vh, -1, -2)))
