"""torch's nested tensors (the strided layout), as far as accelerate uses them: a `NestedTensor` holds its
component tensors (copies of what it was built from), answers `is_nested`, `dtype`, `device`, `dim()`,
`size(i)` of regular dimensions, `numel()`, `unbind()` (the components themselves, so writes through them show,
as through torch's views) and `to_padded_tensor(padding, output_size)`, and prints as torch prints it.

It is registered as a virtual subclass of `torch.Tensor` and inherits none of the dense methods: every other
method or operator raises NotImplementedError naming `torch.Tensor.<name>`, never a dense answer. Autograd
through nested tensors is not provided (a component that requires grad is refused)."""
import warnings

import mindspore

from ._tensor import strided


class NestedUnsupportedError(NotImplementedError, AttributeError):
    """A nested-tensor API mindnlp-shim lacks; also an AttributeError so `hasattr` probes answer "absent"."""


_SUPPORTED = "is_nested, dtype, device, dim(), size(dim), numel(), unbind(), to_padded_tensor(), repr"


def unsupported(api):
    return NestedUnsupportedError(f"{api} is not supported for nested tensors by mindnlp-shim: nested tensor "
                                  f"support is partial ({_SUPPORTED})")


def _torch():
    import mindnlp_shim.torch as torch  # (call time: this module is imported while torch's namespace is built)

    return torch


def _no_sizes():
    return RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")


class NestedTensor:
    __slots__ = ("_components", "_dtype", "_ndim", "__weakref__")

    def __init__(self, components, dtype):
        self._components, self._dtype = tuple(components), dtype
        self._ndim = 1 + (components[0].ndim if components else 0)

    # ------------------------------------------------------------ what it tells about itself
    is_nested = True
    is_sparse = False
    is_sparse_csr = False
    is_quantized = False
    is_meta = False
    is_mkldnn = False
    layout = strided
    requires_grad = False
    is_leaf = True
    grad = None
    grad_fn = None
    dtype = property(lambda self: self._dtype)
    ndim = property(lambda self: self._ndim)

    @property
    def shape(self):
        raise _no_sizes()

    @property
    def device(self):
        return self._components[0].device if self._components else _torch().device("cpu")

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def dim(self):
        return self._ndim

    def size(self, dim=None):
        if dim is None:
            raise _no_sizes()
        if not -self._ndim <= dim < self._ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-self._ndim}, "
                             f"{self._ndim - 1}], but got {dim})")
        position = dim % self._ndim
        if position == 0:
            return len(self._components)
        sizes = [c.shape[position - 1] for c in self._components]
        if sizes and sizes[0] == 0:  # (torch 2.13 answers 0 whenever the first component is empty there)
            return 0
        sizes = set(sizes)
        if len(sizes) != 1:
            raise RuntimeError(f"Given dimension {dim} is irregular and does not have a size.")
        return sizes.pop()

    def __len__(self):
        raise _no_sizes()

    def numel(self):
        return sum(c.numel() for c in self._components)

    def element_size(self):
        return _torch().empty(0, dtype=self._dtype).element_size()

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def is_contiguous(self, memory_format=None):
        return True

    def unbind(self, dim=0):
        if dim != 0:
            raise RuntimeError(f"NestedTensor can only be unbound along dimension 0 got dimension {dim} instead.")
        return self._components

    def to_padded_tensor(self, padding, output_size=None):
        torch = _torch()
        if not self._components:
            return torch.empty(0, dtype=self._dtype)
        if self._ndim == 1:  # (torch fails an internal assertion here)
            raise RuntimeError("to_padded_tensor: the components of the nested tensor must have at least one "
                               "dimension")
        if not any(c.numel() for c in self._components):
            raise RuntimeError("to_padded_tensor: at least one constituent tensor should have non-zero numel")
        padded = [max(c.shape[d] for c in self._components) for d in range(self._ndim - 1)]
        shape = [len(self._components)] + padded
        if output_size is not None:
            output_size = list(output_size)
            if len(output_size) != len(shape):
                raise RuntimeError("Length of output_size does not match NestedTensor dims. Broadcasting is not "
                                   "supported.")
            if any(o < s for o, s in zip(output_size, shape)):
                raise RuntimeError("Value in output_size is less than NestedTensor padded size. Truncation is not "
                                   "supported.")
            shape = output_size
        out = torch.full(shape, padding, dtype=self._dtype)
        with torch.no_grad():
            for i, c in enumerate(self._components):
                out[(i,) + tuple(slice(0, n) for n in c.shape)] = c
        return out

    def __repr__(self):
        parts = ["  " + repr(c).replace("\n", "\n  ") for c in self._components]
        return "nested_tensor([\n" + ",\n".join(parts) + "\n])"

    __str__ = __repr__
    __hash__ = object.__hash__

    def _refused(name):  # noqa: N805  (builds the operator methods below)
        def method(self, *args, **kwargs):
            raise unsupported(f"torch.Tensor.{name}")

        method.__name__ = name
        return method

    for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                  "__rtruediv__", "__matmul__", "__rmatmul__", "__neg__", "__pow__", "__rpow__", "__floordiv__",
                  "__mod__", "__abs__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__",
                  "__or__", "__xor__", "__invert__", "__getitem__", "__setitem__", "__iter__", "__bool__",
                  "__float__", "__int__", "__index__", "__array__", "__iadd__", "__imul__", "__isub__",
                  "__itruediv__"):
        locals()[_name] = _refused(_name)
    del _name, _refused

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(f"torch.Tensor.{name}")


mindspore.Tensor.register(NestedTensor)  # isinstance(nt, torch.Tensor), as in torch


def _component(item, dtype):
    torch = _torch()
    if isinstance(item, NestedTensor):
        raise unsupported("torch.nested.nested_tensor of nested tensors")
    if isinstance(item, mindspore.Tensor):
        if item.requires_grad:
            raise unsupported("autograd through torch.nested.nested_tensor / as_nested_tensor (a component "
                              "requires grad)")
        return item.detach().to(dtype).clone() if dtype is not None and item.dtype != dtype else item.detach().clone()
    return torch.tensor(item, dtype=dtype)


_PROTOTYPE = ("The PyTorch API of nested tensors is in prototype stage and will change in the near future. We "
              "recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout receives "
              "active development, has better operator coverage, and works with torch.compile.")
_warned = []


def _build(items, dtype, device, layout, name):
    torch = _torch()
    if not _warned:  # (torch warns once per process)
        _warned.append(True)
        warnings.warn(_PROTOTYPE, UserWarning, stacklevel=3)
    if layout is not None and layout is not strided:
        raise unsupported(f"torch.nested.{name}(layout={layout})")
    components = []
    for item in items:
        component = _component(item, dtype if dtype is not None else (components[0].dtype if components else None))
        if device is not None:
            component = component.to(device)  # (refuses a device the process does not run on)
        if components and component.ndim != components[-1].ndim:  # (torch names the one before)
            raise RuntimeError(f"All Tensors given to nested_tensor must have the same dimension. Found dimension "
                               f"{component.ndim} for Tensor at index {len(components)} and dimension "
                               f"{components[-1].ndim} for Tensor at index {len(components) - 1}.")
        components.append(component)
    return NestedTensor(components, components[0].dtype if components else dtype or torch.get_default_dtype())


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A nested tensor of copies of `tensor_list`'s tensors (or of tensors made from its nested lists)."""
    if not isinstance(tensor_list, list):
        raise TypeError("Only lists (List[Tensor] and List[List...[Scalar]]) are accepted in nested_tensor")
    if requires_grad:
        raise unsupported("torch.nested.nested_tensor(requires_grad=True)")
    return _build(tensor_list, dtype, device, layout, "nested_tensor")


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A nested tensor of a list of tensors (or of a tensor's slices along dim 0)."""
    if isinstance(ts, mindspore.Tensor):
        ts = list(ts.unbind(0))
    elif not isinstance(ts, (list, tuple)):
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list / tuple of tensors ")
    return _build(list(ts), dtype, device, layout, "as_nested_tensor")


def to_padded_tensor(input, padding, output_size=None, out=None):
    if out is not None:
        raise unsupported("torch.nested.to_padded_tensor(out=...)")
    if not isinstance(input, NestedTensor):
        raise RuntimeError("to_padded_tensor: input must be a nested tensor")
    return input.to_padded_tensor(padding, output_size)
