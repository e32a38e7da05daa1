"""`Tensor.storage()`: torch's TypedStorage, the deprecated view of a tensor's storage as elements of its dtype.

Libraries reach it as a fallback where `untyped_storage()` fails (accelerate's and safetensors' shared-tensor
checks: `storage().data_ptr()`, `storage().size() * element size`). It wraps the tensor's untyped storage, the
whole memory of its base, and reads elements through a 1-d view of that memory."""
import warnings

_warned = False


def _warn_deprecated():
    global _warned
    if not _warned:  # (torch warns once a process)
        _warned = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)


class TypedStorage:
    """The elements of `tensor`'s storage in `tensor`'s dtype."""

    is_sparse = False

    def __init__(self, tensor):
        self._tensor = tensor
        self._untyped_storage = tensor.untyped_storage()
        self.dtype = tensor.dtype

    def untyped(self):
        return self._untyped_storage

    @property
    def device(self):
        return self._tensor.device

    def element_size(self):
        return self._tensor.element_size()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def size(self):
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def is_shared(self):
        return self._tensor.is_shared()

    def _elements(self):
        return self._tensor.as_strided((self.size(),), (1,), 0)

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise RuntimeError(f"can't index a {type(self).__name__} with {type(index).__name__}")
        return self._elements()[index].item()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        values = "\n".join(f" {v}" for v in self.tolist())
        return f"{values}\n[{type(self).__module__}.{type(self).__name__}(dtype={self.dtype}, device={self.device}) " \
               f"of size {self.size()}]"


TypedStorage.__module__ = "torch.storage"


def storage(self):
    _warn_deprecated()
    return TypedStorage(self)
