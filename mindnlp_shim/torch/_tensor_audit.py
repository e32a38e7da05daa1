"""The decision for every public torch.Tensor name that `mindspore.Tensor` already carries with a meaning of its own.

`torch.Tensor is mindspore.Tensor`, so a MindSpore method left in place answers under torch's name with
MindSpore's semantics (`x.diag()` of a matrix is a 4-d tensor, `x.svd()` is (S, U, V), `x.median()` is per
row). Each such name is in exactly one table here:

- IMPLEMENTED / PROPERTIES / INPLACE: torch's semantics, defined once in `_ops/` (also `torch.<name>` where
  torch has that function), tested against real torch in tests/test_attribute_audit.py;
- KEPT: MindSpore's own attribute already behaves like torch's (tested there as well), or the shim's internals
  rely on it;
- REFUSED: raises NotImplementedError naming the reason.

tests/test_attribute_audit.py recomputes the set of MindSpore-owned names and fails on any name that is in none
of these tables.
"""
import mindspore

from . import _removed_api, _typed_storage
from ._ops import linalg, matrix, placement, pointwise as pw, special_math as sm, statistics as st
from ._ops import householder_factors, layout_factories, linalg_decompositions, linalg_lu, strided_views

Tensor = mindspore.Tensor

# method name -> op function (`self` is the op's first argument)
IMPLEMENTED = {
    # elementwise
    "acosh": sm.acosh, "arccosh": sm.acosh, "asinh": sm.asinh, "arcsinh": sm.asinh, "atanh": sm.atanh,
    "arctanh": sm.atanh, "arccos": pw.acos, "arcsin": pw.asin, "arctan": pw.atan, "arctan2": pw.atan2,
    "deg2rad": sm.deg2rad, "rad2deg": sm.rad2deg, "digamma": sm.digamma, "lgamma": sm.lgamma, "i0": sm.i0,
    "sinc": sm.sinc, "logit": sm.logit, "mvlgamma": sm.mvlgamma, "hardshrink": sm.hardshrink,
    "positive": sm.positive, "xlogy": sm.xlogy, "logaddexp": sm.logaddexp, "logaddexp2": sm.logaddexp2,
    "copysign": sm.copysign, "ldexp": sm.ldexp, "float_power": sm.float_power, "igamma": sm.igamma,
    "igammac": sm.igammac, "heaviside": sm.heaviside, "gcd": sm.gcd, "lcm": sm.lcm, "nextafter": sm.nextafter,
    "signbit": sm.signbit, "bitwise_left_shift": sm.bitwise_left_shift,
    "bitwise_right_shift": sm.bitwise_right_shift, "conj": sm.conj, "angle": sm.angle, "isreal": sm.isreal,
    # order statistics and counting
    "median": st.median, "nanmedian": st.nanmedian, "kthvalue": st.kthvalue, "quantile": st.quantile,
    "nanquantile": st.nanquantile, "nanmean": st.nanmean, "msort": st.msort, "cummax": st.cummax,
    "cummin": st.cummin, "logcumsumexp": st.logcumsumexp, "bincount": st.bincount, "histc": st.histc,
    "cov": st.cov, "renorm": st.renorm,
    # matrices
    "diag": matrix.diag, "diagflat": matrix.diagflat, "svd": matrix.svd, "det": matrix.det,
    "logdet": matrix.logdet, "slogdet": matrix.slogdet, "inverse": matrix.inverse, "trace": matrix.trace,
    "inner": matrix.inner, "ger": matrix.ger, "addmv": matrix.addmv, "addr": matrix.addr, "addbmm": matrix.addbmm,
    "adjoint": matrix.adjoint, "matrix_power": matrix.matrix_power, "cholesky": matrix.cholesky,
    "cross": linalg.cross, "cholesky_inverse": matrix.cholesky_inverse, "cholesky_solve": matrix.cholesky_solve,
    "triangular_solve": matrix.triangular_solve, "qr": layout_factories.qr, "lu_solve": linalg_lu.torch_lu_solve,
    "geqrf": householder_factors.geqrf, "orgqr": linalg_decompositions.householder_product,
    "ormqr": householder_factors.ormqr, "lstsq": _removed_api.lstsq, "resize": strided_views.resize,
    "set_": strided_views.set_,
    # placement and reshaping
    "index_put": placement.index_put, "take": placement.take, "diagonal_scatter": placement.diagonal_scatter,
    "select_scatter": placement.select_scatter, "slice_scatter": placement.slice_scatter,
    "ravel": placement.ravel, "fliplr": placement.fliplr, "flipud": placement.flipud, "hsplit": placement.hsplit,
    "vsplit": placement.vsplit, "dsplit": placement.dsplit, "rot90": placement.rot90, "unfold": placement._unfold,
    "sum_to_size": placement._sum_to_size,
    # storage
    "storage": _typed_storage.storage,
}

_ms_is_contiguous = Tensor.is_contiguous  # (the shim's internals call it; the override delegates to it)


def is_contiguous(self, memory_format=None):
    """MindSpore's answer for the default layout; for channels_last(_3d), whether the strides are that layout's
    (dimensions of size 1 do not count, as in torch). MindSpore's own takes no memory_format."""
    name = getattr(memory_format, "name", None) or (str(memory_format) if memory_format is not None else None)
    if name is None or name.endswith("contiguous_format") or name.endswith("preserve_format"):
        return _ms_is_contiguous(self)
    order = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}.get(name.replace("torch.", ""))
    if order is None or self.ndim != len(order):
        return False if order is not None else _ms_is_contiguous(self)
    shape, strides, expected = tuple(self.shape), self.stride(), 1
    for d in order:  # innermost first
        if shape[d] != 1 and strides[d] != expected:
            return False
        expected *= shape[d]
    return True


IMPLEMENTED["is_contiguous"] = is_contiguous

# names torch gives as properties (MindSpore's are methods)
PROPERTIES = {
    "real": sm.real, "imag": sm.imag, "mH": matrix._conjugate_transpose,
}

# in-place methods: computed out of place, then written into the receiver like every in-place op
INPLACE = {
    "index_put_": placement.index_put, "index_copy_": placement.index_copy, "put_": placement.put,
    "fill_diagonal_": placement._fill_diagonal,
}

# MindSpore's own attribute, left in place: what it answers and why that is torch's answer
KEPT = {
    "dtype": "the dtype object, which is torch's dtype (torch.float32 is mindspore.float32)",
    "ndim": "the number of dimensions as an int",
    "data_ptr": "the address of the first element as an int (safetensors and HF compare these)",
    "storage_offset": "0 for a tensor with its own storage, the element offset for an indexing view",
    "register_hook": "hook(grad) on MindSpore's tape, may return a replacement grad; returns a handle with "
                     "remove() (the shim's retain_grad uses it)",
}

REFUSED = {
    "index": "first-class dimensions (functorch.dim) are not provided",
}


def _refusal(name, reason):
    def refused(self, *args, **kwargs):
        raise NotImplementedError(f"torch.Tensor.{name} is not supported by mindnlp-shim on MindSpore: {reason}")

    refused.__name__ = name
    return refused


def install():
    from ._bindings import _checked_inplace

    for name, fn in IMPLEMENTED.items():
        setattr(Tensor, name, fn)
    for name, fn in PROPERTIES.items():
        setattr(Tensor, name, property(fn))
    for name, fn in INPLACE.items():
        method = _checked_inplace(fn)
        method.__name__ = name
        setattr(Tensor, name, method)
    for name, reason in REFUSED.items():
        setattr(Tensor, name, _refusal(name, reason))
