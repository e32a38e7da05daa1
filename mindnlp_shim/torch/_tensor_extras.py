"""torch.Tensor queries and methods that are another name for, or a short composition of, definitions that exist
elsewhere (the torch.* function, a functional, a property of the dense layout).

Queries about features a MindSpore tensor never has answer as torch does for a dense CPU tensor without them:
no lazy conjugate or negative bit (conj() and neg() materialise here), no sparse-CSR layout, not on an
XPU/IPU/MPS/MTIA/MAIA/Vulkan/XLA device, not distributed."""
import mindspore

Tensor = mindspore.Tensor

_FALSE_PROPERTIES = ("is_xpu", "is_ipu", "is_mps", "is_mtia", "is_maia", "is_vulkan", "is_xla", "is_sparse_csr")


def _torch():
    import importlib

    return importlib.import_module(__package__)


def is_same_size(self, other):
    return tuple(self.shape) == tuple(other.shape)


def is_set_to(self, tensor):
    """True when both name the same elements: same first element, shape and strides."""
    return (self.data_ptr() == tensor.data_ptr() and tuple(self.shape) == tuple(tensor.shape)
            and tuple(self.stride()) == tuple(tensor.stride()) and self.dtype == tensor.dtype)


def narrow_copy(self, dim, start, length):
    return self.narrow(dim, start, length).clone()


def new(self, *args, **kwargs):
    """The legacy constructor: new() is empty, new(*sizes) / new(Size) uninitialised of that size, new(data) a
    copy of the data; all in self's dtype unless dtype= says otherwise."""
    torch = _torch()
    dtype = kwargs.pop("dtype", None) or self.dtype
    kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"new() got unexpected keyword arguments {sorted(kwargs)}")
    if not args:
        return torch.empty(0, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        # another tensor of the same dtype: an alias of its elements (torch refuses another dtype)
        if args[0].dtype != dtype:
            raise TypeError(f"expected a tensor of dtype {dtype} (got {args[0].dtype})")
        return args[0].view(tuple(args[0].shape))
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return torch.empty(args, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], torch.Size):
        return torch.empty(tuple(args[0]), dtype=dtype)
    if len(args) == 1:
        return torch.tensor(args[0], dtype=dtype)
    raise TypeError(f"new() received an invalid combination of arguments: {args}")


def _cast(dtype_name):
    def method(self, memory_format=None):
        return self.to(getattr(_torch(), dtype_name))

    method.__name__ = dtype_name
    return method


def prelu(self, weight):
    return _torch().nn.functional.prelu(self, weight)


def install():
    torch = _torch()
    for name in _FALSE_PROPERTIES:
        setattr(Tensor, name, property(lambda self: False))
    Tensor.retains_grad = property(lambda self: not self.is_leaf and getattr(self, "_retains_grad_hook", None)
                                   is not None)
    Tensor.is_conj = lambda self: False
    Tensor.is_neg = lambda self: False
    Tensor.resolve_conj = lambda self: self
    Tensor.resolve_neg = lambda self: self
    Tensor.is_distributed = lambda self: False
    Tensor.dense_dim = lambda self: self.ndim
    Tensor.sparse_dim = lambda self: 0
    Tensor.const_data_ptr = lambda self: self.data_ptr()
    Tensor.is_same_size = is_same_size
    Tensor.is_set_to = is_set_to
    Tensor.narrow_copy = narrow_copy
    Tensor.new = new
    Tensor.cdouble = _cast("cdouble")
    Tensor.cfloat = _cast("cfloat")
    Tensor.prelu = prelu
    Tensor.unsafe_chunk = Tensor.chunk
    Tensor.unsafe_split = Tensor.split
    Tensor.unsafe_split_with_sizes = Tensor.split_with_sizes
    for name in ("diag_embed", "index_copy", "put", "is_nonzero"):
        setattr(Tensor, name, getattr(torch, name))
