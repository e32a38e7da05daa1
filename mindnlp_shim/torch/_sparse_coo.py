"""torch's sparse COO tensors (`torch.sparse_coo_tensor`), as far as peft's SHiRA and FRoD tuners and
sentence-transformers' sparse embeddings use them.

A sparse tensor is a `SparseCooTensor`: an int64 `(sparse_dim, nnz)` index tensor, a dense values tensor of
shape `(nnz, *dense_sizes)` and a size. It is registered as a virtual subclass of `torch.Tensor` (MindSpore's
Tensor class is an ABC), so `isinstance(s, torch.Tensor)` is True as in torch, but it inherits none of the dense
methods: what is not defined here raises `NotImplementedError` naming the torch API, never a dense answer.

Gradients reach the values (and the dense operands) through the shim's own differentiable ops (index_add,
index_select, products), so a sparse tensor built from a tensor that requires grad is differentiable as in torch.
Every op depends on the values only through the dense sum of duplicates, so the gradient of each stored value
is the dense gradient at its position, which is torch's too.

Indices are checked against the size where torch reads through them (to_dense, coalesce, products, sums):
torch leaves an out-of-range index undefined there unless invariant checks are on; here it always raises
torch's invariant error."""
import numpy as np

import mindspore

from . import _running_api
from ._tensor import sparse_coo

_SUPPORTED = ("construction, coalesce, to_dense, indices/values, t(), products with a scalar, addition to a "
              "dense tensor or a coalesced sparse one, torch.sparse.mm / mm / matmul with a dense matrix, "
              "torch.sparse.sum, the elementwise functions that keep zero: abs, sin, sqrt, isnan ...")


class SparseUnsupportedError(NotImplementedError, AttributeError):
    """An API this partial sparse COO support lacks. It is also an AttributeError so that `hasattr` and
    `getattr(s, name, default)` probes answer "absent" instead of raising."""


def unsupported(api):
    return SparseUnsupportedError(
        f"{api} is not supported for sparse COO tensors by mindnlp-shim: sparse COO support is partial "
        f"({_SUPPORTED})")


def _torch():
    import mindnlp_shim.torch as torch  # (call time: this module is imported while torch's namespace is built)

    return torch


class _InvariantChecks:
    """torch.sparse.check_sparse_tensor_invariants: a context manager and a global switch."""
    _enabled = False

    def __init__(self, enable=True):
        self.state, self.saved = enable, None

    @staticmethod
    def is_enabled():
        return _InvariantChecks._enabled

    @staticmethod
    def enable():
        _InvariantChecks._enabled = True

    @staticmethod
    def disable():
        _InvariantChecks._enabled = False

    def __enter__(self):
        self.saved = _InvariantChecks._enabled
        _InvariantChecks._enabled = self.state
        return self

    def __exit__(self, *exc):
        _InvariantChecks._enabled = self.saved
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _InvariantChecks(self.state):
                return fn(*args, **kwargs)

        return wrapper


class SparseCooTensor:
    __slots__ = ("_idx", "_vals", "_size", "_coalesced", "_checked", "_leaf", "__weakref__")

    def __init__(self, indices, values, size, coalesced, leaf=False):
        self._idx, self._vals, self._size = indices, values, _torch().Size(size)
        self._coalesced, self._checked, self._leaf = coalesced, False, leaf

    # ------------------------------------------------------------ what a tensor tells about itself
    is_sparse = True
    is_sparse_csr = False
    is_cuda = property(lambda self: self._vals.is_cuda)
    is_meta = False
    is_quantized = False
    is_nested = False
    is_mkldnn = False
    layout = sparse_coo
    shape = property(lambda self: self._size)
    dtype = property(lambda self: self._vals.dtype)
    device = property(lambda self: self._vals.device)
    ndim = property(lambda self: len(self._size))
    requires_grad = property(lambda self: self._vals.requires_grad,
                             lambda self, value: self.requires_grad_(value))
    is_leaf = property(lambda self: self._leaf or not self._vals.requires_grad)

    @property
    def grad_fn(self):
        return None if self.is_leaf else self._vals.grad_fn

    def size(self, dim=None):
        if dim is None:
            return self._size
        return self._size[_wrap_dim(dim, len(self._size))]

    def dim(self):
        return len(self._size)

    def numel(self):
        return int(np.prod(self._size, dtype=np.int64))

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return len(self._size) - self._idx.shape[0]

    def _nnz(self):
        return self._vals.shape[0]

    def is_coalesced(self):
        return self._coalesced

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def is_complex(self):
        return self._vals.is_complex()

    def element_size(self):
        return self._vals.element_size()

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def _indices(self):
        return self._idx

    def _values(self):
        return self._vals

    # ------------------------------------------------------------ autograd
    @property
    def grad(self):
        """A leaf's gradient, torch's: sparse, coalesced, the dense gradient at the tensor's positions (each
        stored value's gradient is exactly that, duplicates alike, so one per position is taken)."""
        if not self._leaf or self._vals.grad is None:
            return None
        order, first, _ = _coalescing(self)
        g = self._vals.grad.index_select(0, _torch().from_numpy(order[first]))
        return SparseCooTensor(self._idx.index_select(1, _torch().from_numpy(order[first])), g, self._size, True)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise unsupported("setting torch.Tensor.grad of a sparse tensor")
        self._vals.grad = None

    def detach(self):
        return SparseCooTensor(self._idx, self._vals.detach(), self._size, self._coalesced)

    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        # (a detached alias: the flag is this tensor's, not that of the tensor its values were built from)
        self._vals = self._vals.detach().requires_grad_(requires_grad)
        self._leaf = True
        return self

    def clone(self, *, memory_format=None):
        return SparseCooTensor(self._idx.clone(), self._vals.clone(), self._size, self._coalesced)

    # ------------------------------------------------------------ conversions
    def to(self, *args, **kwargs):
        torch = _torch()
        dtype, device = None, None
        for a in args:
            if isinstance(a, torch.dtype):
                dtype = a
            elif isinstance(a, (str, torch.device)):
                device = a
            elif isinstance(a, (mindspore.Tensor, SparseCooTensor)):
                dtype, device = a.dtype, a.device
            else:
                raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
        dtype = kwargs.pop("dtype", dtype)
        device = kwargs.pop("device", device)
        kwargs.pop("non_blocking", None)
        copy = kwargs.pop("copy", False)
        if kwargs:
            raise unsupported(f"torch.Tensor.to({', '.join(kwargs)}=...)")
        values = self._vals.to(device=device, dtype=dtype) if (dtype or device) else self._vals
        indices = self._idx.to(device=device) if device is not None else self._idx
        if values is self._vals and indices is self._idx:
            # (torch: a conversion to what the tensor already is returns it, unless a copy is asked for)
            return self.clone() if copy else self
        return SparseCooTensor(indices, values, self._size, self._coalesced)

    def _as(dtype_name):  # noqa: N805  (class-body helper)
        def convert(self):
            return self.to(getattr(_torch(), dtype_name))

        convert.__name__ = dtype_name
        return convert

    float, double, half, bfloat16 = _as("float32"), _as("float64"), _as("float16"), _as("bfloat16")
    long, int, bool = _as("int64"), _as("int32"), _as("bool")
    del _as

    def type(self, dtype=None):
        if dtype is None:
            return "torch.sparse." + self._vals.type().split(".")[-1]
        return self.to(dtype)

    def cpu(self):
        return self.to("cpu")

    def coalesce(self):
        if self._coalesced:
            return self
        if not self._nnz():  # (nothing to order; MindSpore's backward of an empty index_select fails)
            return SparseCooTensor(self._idx, self._vals, self._size, True)
        torch = _torch()
        order, first, group = _coalescing(self)
        indices = self._idx.index_select(1, torch.from_numpy(order[first]))
        if len(first) == self._nnz():  # no duplicates: a reordering
            values = self._vals.index_select(0, torch.from_numpy(order))
        else:
            values = _summed(self._vals, torch.from_numpy(group), len(first))
        return SparseCooTensor(indices, values, self._size, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        torch = _torch()
        values = self._vals if dtype is None else self._vals.to(dtype)
        positions = torch.from_numpy(_linear_positions(self))
        rows = int(np.prod(self._size[:self.sparse_dim()], dtype=np.int64))
        return _summed(values, positions, rows).reshape(self._size)

    def to_sparse(self, *args, layout=None, **kwargs):
        if args or kwargs or layout not in (None, sparse_coo):
            raise unsupported("torch.Tensor.to_sparse(sparse_dim / other layouts) of a sparse tensor")
        return self

    to_sparse_coo = to_sparse

    def t(self):
        if self.dense_dim() or self.sparse_dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        if self.sparse_dim() < 2:
            return self
        # (torch marks the transpose uncoalesced whenever it has entries, one alone too)
        return SparseCooTensor(self._idx.flip(0), self._vals, self._size[::-1], not self._nnz())

    # ------------------------------------------------------------ arithmetic
    def mul(self, other):
        if isinstance(other, (int, float, bool)) or (isinstance(other, mindspore.Tensor) and type(other) is not
                                                     SparseCooTensor and other.dim() == 0):
            return SparseCooTensor(self._idx, self._vals * other, self._size, self._coalesced)
        raise unsupported(f"torch.mul of a sparse COO tensor and a {_kind(other)}")

    __mul__ = __rmul__ = multiply = mul

    def div(self, other, *, rounding_mode=None):
        if rounding_mode is None and (isinstance(other, (int, float)) or (
                isinstance(other, mindspore.Tensor) and type(other) is not SparseCooTensor and other.dim() == 0)):
            return SparseCooTensor(self._idx, self._vals / other, self._size, self._coalesced)
        raise unsupported(f"torch.div of a sparse COO tensor by a {_kind(other)}")

    __truediv__ = divide = true_divide = div

    def neg(self):
        return SparseCooTensor(self._idx, -self._vals, self._size, self._coalesced)

    __neg__ = negative = neg

    def add(self, other, *, alpha=1):
        return add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return add(self, other, alpha=-alpha)

    __add__ = add
    __sub__ = subtract = sub

    def __radd__(self, other):
        return add(other, self)

    def __rsub__(self, other):
        return add(other, self, alpha=-1)

    def mm(self, mat2):
        return mm(self, mat2)

    def matmul(self, other):
        return matmul(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other):
        return matmul(other, self)

    def sum(self, dim=None, keepdim=False, dtype=None):
        if keepdim:
            raise unsupported("torch.Tensor.sum(keepdim=True)")
        return sparse_sum(self, dim, dtype=dtype)

    # ------------------------------------------------------------ what a sparse tensor refuses
    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, *args, **kwargs):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        raise unsupported("bool() of a sparse tensor")

    def __iter__(self):
        raise unsupported("iterating over a sparse tensor")

    def __getitem__(self, index):
        raise unsupported("indexing a sparse tensor (torch.Tensor.__getitem__)")

    def __setitem__(self, index, value):
        raise unsupported("writing into a sparse tensor (torch.Tensor.__setitem__)")

    def __iadd__(self, other):
        raise unsupported("torch.Tensor.add_ of a sparse tensor")

    __isub__ = __imul__ = __itruediv__ = __iadd__

    def _refused(name):  # noqa: N805
        def method(self, *args, **kwargs):
            raise unsupported(_running_api.torch_api_running() or f"torch.Tensor.{name}")

        method.__name__ = name
        return method

    for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__pow__", "__rpow__",
                  "__floordiv__", "__rfloordiv__", "__mod__", "__rtruediv__", "__invert__", "__and__",
                  "__or__", "__xor__", "__float__", "__int__", "__index__", "__complex__"):
        locals()[_name] = _refused(_name)
    del _name, _refused
    __hash__ = object.__hash__  # (identity, as torch's tensors; __eq__ above would otherwise remove it)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        # read by a torch function's code that takes it for a dense tensor: name that function
        raise unsupported(_running_api.torch_api_running() or f"torch.Tensor.{name}")

    def __repr__(self):
        torch = _torch()
        # (torch prints the indices without their dtype, also when they are empty)
        indices = _indented(repr(self._idx).replace(", dtype=torch.int64", ""), len("tensor(indices="))
        values = repr(self._vals.detach())
        if self.dtype not in (torch.get_default_dtype(), torch.int64, torch.bool):
            values = values.replace(f", dtype={self.dtype}", "")  # (the tail names it once)
        if not self._vals.numel() and "size=" not in values:  # (torch names empty values' size here)
            values = values[:-1] + f", size={tuple(self._vals.shape)})"
        values = _indented(values, len("       values="))
        extra = "" if self.dtype in (torch.get_default_dtype(), torch.int64, torch.bool) else \
            f", dtype={self.dtype}"  # (torch's dense rule: these dtypes go without saying)
        tail = f"size={tuple(self._size)}, nnz={self._nnz()}{extra}, layout=torch.sparse_coo"
        if self.requires_grad and self.is_leaf:
            tail += ", requires_grad=True"
        elif self.grad_fn is not None:
            tail += f",\n       grad_fn=<{type(self.grad_fn).__name__}>"
        return f"tensor(indices={indices},\n       values={values},\n       {tail})"

    __str__ = __repr__


mindspore.Tensor.register(SparseCooTensor)  # isinstance(s, torch.Tensor), as in torch


# ---------------------------------------------------------------- helpers
def _kind(x):
    if type(x) is SparseCooTensor:
        return "sparse COO tensor"
    if isinstance(x, mindspore.Tensor):
        return f"{x.dim()}-d dense tensor"
    return type(x).__name__


def _indented(text, width):
    return text.replace("\n", "\n" + " " * width)


def _wrap_dim(dim, ndim):
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
                         f"{max(ndim, 1) - 1}], but got {dim})")
    return dim % max(ndim, 1)


def _host_indices(s):
    return s._idx.cpu().numpy()


def _check_in_size(s):
    """torch's invariant check of the indices against the size (done once per tensor)."""
    if s._checked:
        return
    idx = _host_indices(s)
    if idx.shape[1]:
        lows, highs = idx.min(axis=1), idx.max(axis=1)
        for d in range(idx.shape[0]):
            if lows[d] < 0:
                raise RuntimeError(f"found negative index {int(lows[d])} for dim {d}")
            if highs[d] >= s._size[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {s._size[d]} but "
                                   f"found index {int(highs[d])}")
    s._checked = True


def _linear_positions(s):
    """Each stored value's row-major position over the sparse dimensions (indices checked first)."""
    _check_in_size(s)
    idx = _host_indices(s)
    if idx.shape[0] == 0:
        return np.zeros(idx.shape[1], dtype=np.int64)
    return np.ravel_multi_index(tuple(idx), tuple(s._size[:idx.shape[0]])).astype(np.int64)


def _coalescing(s):
    """(order, first, group): the stable sort of the positions, where each distinct position starts in that
    order, and each stored value's group (its distinct position's rank)."""
    positions = _linear_positions(s)
    order = np.argsort(positions, kind="stable")
    ordered = positions[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    first = np.flatnonzero(starts)
    group = np.empty(len(positions), dtype=np.int64)
    group[order] = np.cumsum(starts) - 1
    return order, first, group


def _summed(values, positions, rows):
    """zeros(rows, *dense) with values[k] added at row positions[k], differentiable in `values`."""
    torch = _torch()
    shape = (rows, *values.shape[1:])
    if values.dtype is torch.bool:  # (torch sums booleans as "any")
        return torch.zeros(shape, dtype=torch.int64).index_add(0, positions, values.to(torch.int64)) != 0
    return torch.zeros(shape, dtype=values.dtype, device=values.device).index_add(0, positions, values)


# ---------------------------------------------------------------- construction
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    torch = _torch()
    if isinstance(indices, mindspore.Tensor) and type(indices) is not SparseCooTensor:
        indices = indices.to(torch.int64)  # (torch reads the indices as int64, float ones too)
    else:
        indices = torch.as_tensor(indices, dtype=torch.int64)
    if isinstance(values, mindspore.Tensor) and type(values) is not SparseCooTensor:
        values = values if dtype is None else values.to(dtype)
    else:
        values = torch.as_tensor(values, dtype=dtype)
    if device is not None:
        indices, values = indices.to(device), values.to(device)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if values.dim() == 0:
        values = values.reshape(1)
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{indices.shape[1]}, nnz from values: {values.shape[0]}")
    sparse_dim, dense_sizes = indices.shape[0], tuple(values.shape[1:])
    if size is None:
        host = indices.cpu().numpy()
        if host.shape[1]:
            lows = host.min(axis=1)
            for d in range(sparse_dim):
                if lows[d] < 0:
                    raise RuntimeError(f"found negative index {int(lows[d])} for dim {d}")
            sparse_sizes = tuple(int(m) + 1 for m in host.max(axis=1))
        else:
            sparse_sizes = (0,) * sparse_dim
        size = sparse_sizes + dense_sizes
    else:
        size = tuple(int(n) for n in size)
        if len(size) != sparse_dim + len(dense_sizes):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                               f"sparse_dim = {sparse_dim}, dense_dim = {len(dense_sizes)}")
        if tuple(size[sparse_dim:]) != dense_sizes:
            raise RuntimeError(f"values has incorrect size, expected {[values.shape[0], *size[sparse_dim:]]}, "
                               f"got {list(values.shape)}")
    if requires_grad:
        if not (values.is_floating_point() or values.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        values = values.detach().requires_grad_(True)
    s = SparseCooTensor(indices, values, size, False, leaf=bool(requires_grad))
    if check_invariants or (check_invariants is None and _InvariantChecks._enabled):
        _check_in_size(s)
    if is_coalesced:
        if check_invariants or (check_invariants is None and _InvariantChecks._enabled):
            order, first, _ = _coalescing(s)
            if len(first) != s._nnz() or not np.array_equal(order, np.arange(len(order))):
                raise RuntimeError("cannot set is_coalesced to true if indices correspond to uncoalesced COO "
                                   "tensor")
        s._coalesced = True
    elif values.shape[0] <= 1 and is_coalesced is None:
        s._coalesced = True  # (torch: no two entries, nothing to merge)
    return s


def to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None):
    """`Tensor.to_sparse([sparse_dim])` of a dense tensor: a coalesced COO tensor of its nonzero entries,
    differentiable in the dense tensor."""
    if type(self) is SparseCooTensor:
        return self.to_sparse(*args, layout=layout)
    torch = _torch()
    if layout not in (None, sparse_coo) or blocksize is not None or dense_dim is not None:
        raise NotImplementedError(f"torch.Tensor.to_sparse(layout={layout}) is not supported by mindnlp-shim: "
                                  f"only the sparse COO layout is")
    sparse_dim = args[0] if args else self.dim()
    if not 0 <= sparse_dim <= self.dim():
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.dim()}] range, but "
                           f"{sparse_dim} is given")
    if sparse_dim == 0 and self.dim():
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    nonzero = self != 0
    if sparse_dim < self.dim():
        nonzero = nonzero.reshape(*self.shape[:sparse_dim], -1).any(-1)
    indices = torch.nonzero(nonzero).t().contiguous() if sparse_dim else torch.zeros((0, 1), dtype=torch.int64)
    values = self[tuple(indices)] if sparse_dim else self.reshape(1, *self.shape)
    return SparseCooTensor(indices, values, self.shape, True)


def to_sparse_coo(self):
    return to_sparse(self)


# ---------------------------------------------------------------- ops with dense operands
def add(input, other, *, alpha=1):
    """torch.add where an operand is sparse: dense + sparse is dense, coalesced sparse + coalesced sparse is
    sparse, sparse + dense is torch's error."""
    if type(input) is not SparseCooTensor:
        if not isinstance(input, mindspore.Tensor):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        if tuple(input.shape) != tuple(other.shape):
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                               f"{list(input.shape)} while other has size {list(other.shape)} (FYI: dense-sparse "
                               f"addition does not currently support broadcasting)")
        return _torch().add(input, other.to_dense(), alpha=alpha)
    if type(other) is not SparseCooTensor:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if input.shape != other.shape:
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(input.shape)} != "
                           f"{list(other.shape)}")
    if not (input._coalesced and other._coalesced) or input.sparse_dim() != other.sparse_dim():
        raise unsupported("torch.add of sparse COO tensors that are not both coalesced")
    torch = _torch()
    summed = SparseCooTensor(torch.cat([input._idx, other._idx], 1),
                             torch.cat([input._vals, other._vals * alpha if alpha != 1 else other._vals]),
                             input.shape, False)
    return summed.coalesce()


def mm(input, mat2):
    """torch.sparse.mm / torch.mm with a sparse operand: a 2-d sparse matrix (no dense dimensions) times a dense
    matrix is dense, and so is a dense matrix times a sparse one."""
    torch = _torch()
    if type(input) is not SparseCooTensor:
        if type(mat2) is not SparseCooTensor:
            return torch.mm(input, mat2)
        if input.dim() != 2:
            raise RuntimeError("self must be a matrix")
        return mm(mat2.t(), input.t()).t()
    if type(mat2) is SparseCooTensor:
        raise unsupported("torch.sparse.mm of two sparse tensors")
    if input.sparse_dim() != 2 or input.dense_dim():
        raise unsupported(f"torch.sparse.mm of a sparse tensor with {input.sparse_dim()} sparse and "
                          f"{input.dense_dim()} dense dimensions")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if mat2.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_c_name(input.dtype)} but found {_c_name(mat2.dtype)}")
    if mat2.shape[0] != input.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {input.shape[1]}, got "
                           f"{mat2.shape[0]}")
    _check_in_size(input)
    rows, cols = input._idx[0], input._idx[1]
    if not input._nnz():
        # a zero product still reaching both operands, as torch's (MindSpore's backward of an empty
        # index_select or an empty slice fails)
        zero = torch.zeros(input.shape, dtype=mat2.dtype, device=mat2.device) @ mat2
        return zero.index_add(0, rows, input._vals.unsqueeze(1) * torch.zeros((0, mat2.shape[1]), dtype=mat2.dtype))
    picked = mat2.index_select(0, cols) * input._vals.unsqueeze(1)
    return torch.zeros((input.shape[0], mat2.shape[1]), dtype=picked.dtype, device=picked.device) \
        .index_add(0, rows, picked)


def matmul(input, other):
    if type(input) is SparseCooTensor and type(other) is not SparseCooTensor and other.dim() == 1:
        return mm(input, other.unsqueeze(1)).squeeze(1)
    return mm(input, other)


def _c_name(dtype):
    torch = _torch()
    names = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
             torch.int64: "Long", torch.int32: "Int", torch.bool: "Bool"}
    return names.get(dtype, str(dtype))


def sparse_sum(input, dim=None, dtype=None):
    """torch.sparse.sum: over everything a dense 0-d tensor; over some dimensions a coalesced sparse tensor of
    the others, or a dense tensor when only dense dimensions remain."""
    torch = _torch()
    if type(input) is not SparseCooTensor:
        raise RuntimeError("torch.sparse.sum expects a sparse tensor")
    values = input._vals if dtype is None else input._vals.to(dtype)
    _check_in_size(input)
    if dim is None:
        return values.sum()
    dims = sorted({_wrap_dim(d, input.dim()) for d in ((dim,) if isinstance(dim, int) else dim)})
    sd = input.sparse_dim()
    sparse_dims, dense_dims = [d for d in dims if d < sd], [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        values = values.sum(dense_dims)
    kept = [d for d in range(sd) if d not in sparse_dims]
    size = [n for d, n in enumerate(input.shape) if d not in dims]
    if not kept:
        return values.sum(0)
    indices = input._idx.index_select(0, torch.tensor(kept, dtype=torch.int64))
    return SparseCooTensor(indices, values, size, False).coalesce()


# ---------------------------------------------------------------- torch functions that read only shape and dtype
def _empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
                pin_memory=False):
    """torch.zeros_like / empty_like of a sparse tensor: a sparse tensor of its size without entries."""
    torch = _torch()
    if layout not in (None, sparse_coo):
        raise unsupported(f"torch.zeros_like(layout={layout}) of a sparse tensor")
    values = torch.zeros((0, *input.shape[input.sparse_dim():]), dtype=dtype or input.dtype,
                         device=device or input.device)
    s = SparseCooTensor(torch.zeros((input.sparse_dim(), 0), dtype=torch.int64), values, input.shape, True)
    return s.requires_grad_(True) if requires_grad else s


def _result_type(fn):
    def result_type(tensor1, tensor2):
        # a sparse operand counts as a dimensioned tensor of its values' dtype
        return fn(tensor1._vals if type(tensor1) is SparseCooTensor else tensor1,
                  tensor2._vals if type(tensor2) is SparseCooTensor else tensor2)

    return result_type


# functions that would answer from a sparse tensor's shape and dtype alone, as if it were dense: torch raises for
# them (fill, random draws) or treats the entries otherwise (ldexp); here they refuse a sparse operand
REFUSED = ("ones_like", "full_like", "rand_like", "randn_like", "randint_like", "fill", "bernoulli", "isreal",
           "unique", "alias_copy", "ldexp", "cartesian_prod", "sym_fresh_size", "fill_", "dequantize",
           "detach_copy")
LIKE = ("zeros_like", "empty_like")


def _guarded(fn, name, sparse_answer=None):
    def guarded(*args, **kwargs):
        for a in args:
            if type(a) is SparseCooTensor:
                if sparse_answer is None:
                    raise unsupported(f"torch.{name}")
                return sparse_answer(*args, **kwargs)
        return fn(*args, **kwargs)

    guarded.__name__ = guarded.__qualname__ = name
    guarded.__doc__, guarded.__wrapped__ = fn.__doc__, fn
    return guarded


def install(namespace):
    """Dense tensors' ways into the sparse layout, and the torch functions that must see a sparse operand."""
    mindspore.Tensor.to_sparse = to_sparse
    mindspore.Tensor.to_sparse_coo = to_sparse_coo
    for name in REFUSED:
        if name in namespace:
            namespace[name] = _guarded(namespace[name], name)
    for name in LIKE:
        namespace[name] = _guarded(namespace[name], name, _empty_like)
    namespace["result_type"] = _result_type(namespace["result_type"])
    for name in ("sum", "t"):  # torch.sum(s) is the dense total, as torch.sparse.sum; torch.t(s) is s.t()
        namespace[name] = _guarded(namespace[name], name, getattr(SparseCooTensor, name))
    from . import _sparse_unary

    _sparse_unary.install(namespace, _guarded)
