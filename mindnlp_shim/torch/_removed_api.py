"""torch names that PyTorch 2.13 keeps only to say they are gone, answered as torch answers them: the linear
algebra functions removed in 1.9 in favour of torch.linalg (`torch.solve`, `eig`, `symeig`, `lstsq`,
`matrix_rank` and their Tensor methods) raise RuntimeError naming the replacement; the Variable attributes
`volatile` (always False, with torch's warning) and `reinforce` (RuntimeError) and `Tensor.name` (None: no
tensor carries a debug name here)."""
import warnings

import mindspore

Tensor = mindspore.Tensor

__all__ = ["solve", "eig", "symeig", "lstsq", "matrix_rank"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def _removed(name, advice):
    def function(*args, **kwargs):
        raise RuntimeError(_REMOVED + advice)

    function.__name__ = name
    function.__qualname__ = name
    return function


solve = _removed("solve", "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has "
                          "its arguments reversed and does not return the LU factorization.")
eig = _removed("eig", "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
                      "tensors mimicking complex tensors; use `torch.linalg.eig` (or `torch.linalg.eigvals`).")
symeig = _removed("symeig", "Use `torch.linalg.eigh` (or `torch.linalg.eigvalsh` for the eigenvalues only); it "
                            "reads the lower triangular portion of the matrix by default.")
lstsq = _removed("lstsq", "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`. `torch.linalg.lstsq` has "
                          "reversed arguments and does not return the QR decomposition in the returned tuple.")
matrix_rank = _removed("matrix_rank", "Please use the `torch.linalg.matrix_rank` function instead.")


def _volatile(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _set_volatile(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.", UserWarning,
                  stacklevel=2)


def reinforce(self, reward):
    raise RuntimeError("reinforce() was removed.\nUse torch.distributions instead.\nSee "
                       "https://pytorch.org/docs/main/distributions.html")


# Tensor methods with the removed functions' behaviour (lstsq is MindSpore's own name: _tensor_audit binds it)
TENSOR_METHODS = {"solve": solve, "eig": eig, "symeig": symeig, "reinforce": reinforce}


def install():
    for name, fn in TENSOR_METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.volatile = property(_volatile, _set_volatile)
    Tensor.name = property(lambda self: None)
