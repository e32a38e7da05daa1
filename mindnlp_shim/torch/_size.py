"""torch.Size, and the callable-int `Tensor.size` attribute."""


class Size(tuple):
    """A tensor shape: a tuple of ints with torch.Size's extras."""

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def __reduce__(self):
        return (Size, (tuple(self),))


class SizeAttr(int):
    """`Tensor.size` must be torch's method (`x.size()`, `x.size(0)`) while MindSpore's own Python code reads
    it as an attribute holding the element count (`x.size == 0`). This int is both: its value is the element
    count and calling it answers torch's `size(dim=None)`."""

    def __new__(cls, shape):
        n = 1
        for d in shape:
            n *= d
        obj = int.__new__(cls, n)
        obj._shape = shape
        return obj

    def __call__(self, dim=None):
        if dim is None:
            return Size(self._shape)
        try:
            return self._shape[dim]
        except IndexError:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-len(self._shape)}, {len(self._shape) - 1}], but got {dim})") from None
        except TypeError:
            raise TypeError(f"size(): argument 'dim' must be int, not {type(dim).__name__}") from None
