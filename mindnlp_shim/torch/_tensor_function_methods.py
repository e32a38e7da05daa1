"""torch.Tensor methods that are torch functions taking the tensor as their first argument: each method is the
function itself (one definition), or its in-place form through the shared in-place machinery. Tensor.polygamma
takes the order first, as torch's method does (`t.polygamma(n)` is `torch.polygamma(n, t)`)."""
import mindspore

Tensor = mindspore.Tensor

# method name == torch function name, tensor first
SAME_AS_FUNCTION = ("kron", "mv", "dist", "corrcoef", "vdot", "matrix_exp", "pinverse", "frexp", "histogram",
                    "scatter_reduce", "conj_physical", "lu", "stft", "nonzero_static", "index_reduce", "mode",
                    "istft", "hash_tensor")
# in-place method -> the out-of-place method it writes back into the receiver
INPLACE_OF = {"scatter_reduce_": "scatter_reduce", "conj_physical_": "conj_physical", "polygamma_": "polygamma",
              "index_reduce_": "index_reduce"}


def _torch():
    import importlib

    return importlib.import_module(__package__)


def polygamma(self, n):
    return _torch().polygamma(n, self)


def install():
    from . import _tensor_layout_queries, _tensor_python_callables
    from ._bindings import _checked_inplace

    torch = _torch()
    _tensor_layout_queries.install(Tensor)
    _tensor_python_callables.install(Tensor)
    for name in SAME_AS_FUNCTION:
        if name not in vars(Tensor):
            setattr(Tensor, name, getattr(torch, name))
    if "polygamma" not in vars(Tensor):
        Tensor.polygamma = polygamma
    for name, base in INPLACE_OF.items():
        if name not in vars(Tensor):
            setattr(Tensor, name, _checked_inplace(getattr(Tensor, base)))
